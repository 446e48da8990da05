/** Prints rows as aligned columns separated by " | " (a bench's table); "(not run: BENCH_SECTIONS)" when there are none. */
export function printTable(table: readonly (readonly string[])[]): void {
  if (table.length === 0) {
    console.log('(not run: BENCH_SECTIONS)');
    return;
  }
  const columns = Math.max(...table.map((r) => r.length));
  const widths = Array.from({ length: columns }, (_, i) => Math.max(...table.map((r) => (r[i] ?? '').length)));
  for (const r of table)
    console.log(
      r
        .map((c, i) => c.padEnd(widths[i]!))
        .join(' | ')
        .trimEnd(),
    );
}

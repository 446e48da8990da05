/** The rows a virtualised list renders: those in view plus `overscan` either side. Pure. */
export function visibleRange(input: { scrollTop: number; viewportHeight: number; rowHeight: number; count: number; overscan: number }): {
  start: number;
  end: number;
} {
  const { scrollTop, viewportHeight, rowHeight, count, overscan } = input;
  if (count <= 0 || rowHeight <= 0) return { start: 0, end: 0 };
  const first = Math.floor(Math.max(0, scrollTop) / rowHeight);
  const visible = Math.ceil(Math.max(viewportHeight, rowHeight) / rowHeight) + 1;
  const start = Math.max(0, Math.min(count - 1, first - overscan));
  const end = Math.min(count, first + visible + overscan);
  return { start, end };
}

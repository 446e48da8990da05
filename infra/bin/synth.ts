/**
 * `npm run synth -w infra [-- --env <name>]`: synthesizes every stack of an environment
 * (infra/config/<name>.json, default example) into infra/cdk.out, offline and without AWS
 * credentials, and prints a table: stack, resources, the time its construction took (bundling the
 * object-created function with esbuild is part of the Uploads stack's). Exits 1 with the problems
 * when the settings are wrong or the shell's build is missing.
 */
import fs from 'node:fs';
import path from 'node:path';
import { buildApp, DEFAULT_ENV, stackName, trailSenseApp } from '../src/app';

const OUT_DIR = path.join(__dirname, '..', 'cdk.out');

function envArgument(argv: readonly string[]): string {
  const index = argv.findIndex((arg) => arg === '--env' || arg.startsWith('--env='));
  if (index === -1) return DEFAULT_ENV;
  const arg = argv[index]!;
  const value = arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : argv[index + 1];
  if (!value) throw new Error('--env needs a name (infra/config/<name>.json).');
  return value;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

function main(): void {
  const started = performance.now();
  const envName = envArgument(process.argv.slice(2));
  fs.rmSync(OUT_DIR, { recursive: true, force: true });
  const app = trailSenseApp({ outdir: OUT_DIR, context: { env: envName } });
  const { environment, parts, buildTimes } = buildApp({ app });
  const synthStarted = performance.now();
  const assembly = app.synth();
  const synthMs = performance.now() - synthStarted;

  const rows = parts.map((part) => {
    const name = stackName(environment.settings.name, part);
    const template = assembly.getStackByName(name).template as { Resources?: Record<string, unknown> };
    return [name, String(Object.keys(template.Resources ?? {}).length), seconds(buildTimes[part] ?? 0)];
  });
  const header = ['stack', 'resources', 'time'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const format = (row: string[]) => row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ');
  const rule = widths.map((w) => '-'.repeat(w));
  console.log([format(header), format(rule), ...rows.map(format), format(rule)].join('\n'));
  console.log(format([`${rows.length} stacks`, String(rows.reduce((sum, row) => sum + Number(row[1]), 0)), seconds(performance.now() - started)]));
  console.log(
    `\n${environment.settingsFile} → ${OUT_DIR} (synthesis, CloudFormation schema validation included: ${seconds(synthMs)}; the total includes loading the CDK)`,
  );
}

try {
  main();
} catch (error) {
  console.error((error as Error).message);
  process.exit(1);
}

/**
 * What the deploy command (infra/bin/deploy.ts) prints after a deploy or a rollback: a table of
 * what it did, and the notes it must not hide (a switch that was not atomic: order.ts).
 */
import type { Target } from './aws';
import type { DeployResult } from './execute';
import type { DeployPlan } from './plan';
import { describeRelease } from './rollback-plan';
import type { RollbackChoice } from './rollback-plan';
import { targetUrl } from './session';

const kib = (bytes: number) =>
  bytes < 1024 ? `${bytes} B` : bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KiB` : `${(bytes / 1024 / 1024).toFixed(2)} MiB`;

function table(head: string[], rows: [string, string, string][], notes: string[]): string {
  const width = Math.max(...rows.map((r) => r[0].length));
  const count = Math.max(...rows.map((r) => r[1].length));
  return [
    ...head,
    ...rows.map(([what, n, extra]) => `  ${what.padEnd(width)}  ${n.padStart(count)}  ${extra}`.trimEnd()),
    ...notes.map((n) => `  note: ${n}`),
  ].join('\n');
}

function invalidationRow(verb: string, result: DeployResult): [string, string, string] {
  return [
    `${verb}invalidated`,
    String(result.invalidationPaths.length),
    result.invalidationId ?? (result.dryRun && result.invalidationPaths.length > 0 ? '(dry run)' : '—'),
  ];
}

const notesOf = (result: DeployResult) => (result.switchNote ? [result.switchNote] : []);

/** The table the command prints. */
export function formatResult(target: Target, plan: DeployPlan, result: DeployResult): string {
  const verb = result.dryRun ? 'would be ' : '';
  return table(
    [`${plan.app} → ${targetUrl(target)}${result.dryRun ? ' (dry run: nothing written)' : ''}`, `release ${plan.releaseKey}`],
    [
      [`${verb}uploaded`, String(result.uploaded.files), kib(result.uploaded.bytes)],
      [`entry files ${verb}copied (for rollback)`, String(result.copied), ''],
      ['unchanged (skipped)', String(result.unchanged.files), kib(result.unchanged.bytes)],
      ['not uploaded (.map, .br, .gz)', String(result.excluded), ''],
      [`${verb}deleted (older releases)`, String(result.deleted), ''],
      ['kept (in no release record)', String(result.unknownKept), ''],
      invalidationRow(verb, result),
    ],
    notesOf(result),
  );
}

/** What the command prints after a rollback. */
export function formatRollback(target: Target, plan: DeployPlan, result: DeployResult, choice: RollbackChoice): string {
  const verb = result.dryRun ? 'would be ' : '';
  const what = choice.repair
    ? [
        `${result.dryRun ? 'would put' : 'put'} back the entry files of the live release, ${describeRelease(choice.target)}`,
        'undoing a deploy that stopped midway',
      ]
    : [`${result.dryRun ? 'would roll' : 'rolled'} back to ${describeRelease(choice.target)}`, `undoing ${describeRelease(choice.live)}`];
  return table(
    [`${plan.app} → ${targetUrl(target)}${result.dryRun ? ' (dry run: nothing written)' : ''}`, ...what, `record ${plan.releaseKey}`],
    [
      [`entry files ${verb}restored`, String(result.uploaded.files), kib(result.uploaded.bytes)],
      ['files already in place', String(result.unchanged.files), ''],
      invalidationRow(verb, result),
    ],
    notesOf(result),
  );
}

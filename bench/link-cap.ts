// The upload cap section of bench/links.ts: the uploader's setting "use at most N Mbit/s or a
// share of the measured rate" (localStorage `trailsense:upload-cap`, JSON `{"mbit": 1.5}` or
// `{"share": 0.5}`; absent = no cap) set to half the link, on clean links, while a bulk TCP flow
// of the bench's own (Node → a sink on SINK_PORT, carried by the same emulated link) competes. Per
// minute: the uploader's rate (S3's PUT body bytes) against the cap — goal within 5 % over a
// minute — and what the other flow got (goal: the rest of the link).
//   BENCH_CAP_LINKS (default `3:600,20:80`, clean links), BENCH_CAP_MINUTES (3), BENCH_CAP
//   (`mbit`: {"mbit": half the link}, the default; `share`: {"share": 0.5}).
import path from 'node:path';
import type { Browser } from '@playwright/test';
import { linkName, parseCleanLink } from '../sandbox/src/index';
import type { CleanLink } from '../sandbox/src/index';
import type { Stack } from '../e2e/support/servers';
import { openBenchLink, SINK_PORT, startBulkSender, startSink } from './link-emulators';
import type { EmulatorKind } from './link-emulators';
import { linkQuiet, ownPhotos, sendBatch } from './link-runs';

const CAP_KEY = 'trailsense:upload-cap';
const MINUTES = Number(process.env.BENCH_CAP_MINUTES ?? 3);
const CAP_FORM = process.env.BENCH_CAP ?? 'mbit';
const LINKS: CleanLink[] = (process.env.BENCH_CAP_LINKS ?? '3:600,20:80').split(',').map((spec) => {
  const parsed = parseCleanLink(spec.trim());
  if ('error' in parsed || !parsed.link) throw new Error(`BENCH_CAP_LINKS: ${'error' in parsed ? parsed.error : 'a link cannot be off here'}`);
  return parsed.link;
});

/** What the setting is for a link: half of it. */
function capFor(link: CleanLink): { setting: string; mbit: number } {
  if (CAP_FORM === 'share') return { setting: JSON.stringify({ share: 0.5 }), mbit: link.mbit / 2 };
  if (CAP_FORM !== 'mbit') throw new Error(`BENCH_CAP=${CAP_FORM}: expected mbit or share`);
  return { setting: JSON.stringify({ mbit: link.mbit / 2 }), mbit: link.mbit / 2 };
}

const mbitOver = (bytes: number, seconds: number) => (bytes * 8) / 1e6 / seconds;

export async function capSection(ctx: {
  browser: Browser;
  stack: Stack;
  kind: EmulatorKind;
  work: string;
  sources: string[];
  builds: { name: string; dir: string }[];
}): Promise<string[][]> {
  const rows: string[][] = [['link', 'build', 'cap', 'minute', 'uploader', 'vs cap', 'other flow', 'link used', 'other flow got the rest']];
  for (const link of LINKS) {
    const dir = path.join(ctx.work, `cap-${linkName(link).replace(/\W/g, '-')}`);
    const bench = await openBenchLink(link, ctx.kind, dir, 3_600_000 + ctx.builds.length * (MINUTES + 10) * 60_000);
    const sink = await startSink(ctx.kind === 'packets' ? SINK_PORT : 0);
    const route = await bench.route(sink.port);
    try {
      const cap = capFor(link);
      for (const build of ctx.builds) {
        await ctx.stack.startRemote('uploader', build.dir);
        // Originals enough to outlast the minutes at the whole link's rate.
        const count = Math.ceil((((link.mbit * 1e6) / 8) * MINUTES * 60 * 1.2) / 4_000_000) + 2;
        const files = ownPhotos(
          Array.from({ length: count }, (_, i) => ctx.sources[i % ctx.sources.length]!),
          path.join(dir, build.name),
        );
        const samples: { up: number; other: number }[] = [];
        let bulk: { stop(): void } | undefined;
        await sendBatch(ctx.browser, ctx.stack.shellUrl, files, {
          copies: false,
          storage: { [CAP_KEY]: cap.setting },
          beforeClick: async () => {
            await linkQuiet(() => bench.carried());
            bulk = startBulkSender(route.port);
            samples.push({ up: bench.sandbox.putBodyBytes(), other: sink.received() });
          },
          everySecond: () => void samples.push({ up: bench.sandbox.putBodyBytes(), other: sink.received() }),
          stopAfterMs: MINUTES * 60_000,
        });
        bulk?.stop();
        for (let minute = 1; minute * 60 < samples.length; minute++) {
          const from = samples[(minute - 1) * 60]!;
          const to = samples[minute * 60]!;
          const up = mbitOver(to.up - from.up, 60);
          const other = mbitOver(to.other - from.other, 60);
          const within = Math.abs(up / cap.mbit - 1) <= 0.05;
          const rest = other >= 0.9 * (link.mbit - cap.mbit);
          rows.push([
            linkName(link),
            build.name,
            `${cap.setting} (${cap.mbit} Mbit/s)`,
            String(minute),
            `${up.toFixed(2)} Mbit/s`,
            `${((up / cap.mbit) * 100).toFixed(0)} % (within 5 %: ${within ? 'met' : 'MISSED'})`,
            `${other.toFixed(2)} Mbit/s`,
            `${(((up + other) / link.mbit) * 100).toFixed(0)} %`,
            rest ? 'yes' : 'no',
          ]);
        }
        console.log(`  cap ${linkName(link)} ${build.name}: ${rows.length - 1} rows so far`);
      }
    } finally {
      await route.close();
      await sink.close();
      await bench.close();
    }
  }
  return rows;
}

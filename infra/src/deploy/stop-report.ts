/**
 * What a deploy or rollback that stopped before its record (execute.ts) says: which of its entry
 * files are the new release's and which still the previous one's, what that leaves serving (for a
 * remote, what its live mf-manifest.json names; for the shell, its pages), and what to run. It
 * says "intact" only when no entry file was written. The order it relies on is order.ts's;
 * infra/test/deploy-stops.test.ts stops a deploy after each write and holds the message to the
 * bucket.
 */
import { isHashed } from './files';
import { HOST_FILE, MANIFEST, PLAIN_ENTRY } from './order';
import type { DeployPlan } from './plan';

/** The entry files written so far, and those whose write failed (S3 then holds either version). */
export interface EntryProgress {
  written: Set<string>;
  failed: Set<string>;
}

/** The plan's changed entry files when it stopped. */
export interface EntryState {
  /** The new release's (a rollback's: restored). */
  written: string[];
  /** Still the previous release's (a rollback's: the release being undone's). */
  previous: string[];
  /** Not in the bucket yet: new paths. */
  absent: string[];
  /** Their write failed: S3 holds the one or the other. */
  unknown: string[];
}

export function entryState(plan: DeployPlan, progress: EntryProgress): EntryState {
  const paths = plan.steps
    .filter((s) => !s.copies)
    .flatMap((s) => s.uploads)
    .filter((f) => f.kind === 'entry')
    .map((f) => f.path)
    .sort();
  const absent = new Set(plan.entriesNotInBucket);
  const state: EntryState = { written: [], previous: [], absent: [], unknown: [] };
  for (const path of paths) {
    if (progress.written.has(path)) state.written.push(path);
    else if (progress.failed.has(path)) state.unknown.push(path);
    else if (absent.has(path)) state.absent.push(path);
    else state.previous.push(path);
  }
  return state;
}

type Where = 'written' | 'previous' | 'absent' | 'unknown' | 'unchanged';

function whereIs(state: EntryState, path: string): Where {
  for (const key of ['written', 'previous', 'absent', 'unknown'] as const) if (state[key].includes(path)) return key;
  return 'unchanged';
}

/** What the shell loads of a remote, given where its manifest and entry scripts are. */
function remoteSummary(plan: DeployPlan, state: EntryState, words: Words): string {
  const manifest = whereIs(state, MANIFEST);
  const next = plan.entries?.next;
  const live = plan.entries?.live;
  const nextReady = next !== undefined && (isHashed(next) || ['written', 'unchanged'].includes(whereIs(state, next)));
  if (manifest === 'unchanged') return `${MANIFEST} is the same in both releases.`;
  if (manifest === 'written') {
    if (!nextReady) {
      return (
        `${MANIFEST} is ${words.newer}, but ${next ?? 'the entry script'}, which it names, ${whereIs(state, next ?? '') === 'unknown' ? 'may not be' : 'is not'}: ` +
        `the shell checks the new manifest and runs ${words.older} code (the switch is not atomic for a release whose manifest names ${next ?? 'an unhashed script'}).`
      );
    }
    const plain = next !== PLAIN_ENTRY && whereIs(state, PLAIN_ENTRY) === 'previous';
    return (
      `The shell loads ${words.newRelease}, whole: ${MANIFEST} is ${words.newer}, and every file it names is in place.` +
      (plain ? ` ${PLAIN_ENTRY}, which a runtime config naming it directly loads, is still ${words.older}.` : '')
    );
  }
  if (manifest === 'unknown') {
    return `${MANIFEST}'s write failed: S3 holds ${words.older} or ${words.newer}${nextReady ? '; either names only files of its own release, all in place' : ''}.`;
  }
  if (typeof live === 'string' && ['written', 'unknown'].includes(whereIs(state, live))) {
    return `The live ${MANIFEST} is ${words.older}, but ${live}, which it names, ${whereIs(state, live) === 'written' ? 'is' : 'may be'} ${words.newer}.`;
  }
  if (typeof live !== 'string') return `The live ${MANIFEST} is still ${words.older}.`;
  return `The shell still loads ${words.oldRelease}, whole: ${MANIFEST} is ${words.older}, and every file it names is in place.`;
}

/** What the shell's pages are, given where its entry files are. */
function shellSummary(state: EntryState, words: Words): string {
  const isPage = (path: string) => path.endsWith('.html');
  const notes = ["Each page served is whole: one release's HTML, naming hashed files of its own release, all in place."];
  if (state.written.includes('config.json') && state.previous.some(isPage)) notes.push(`Pages still ${words.older} read the new config.json.`);
  if (state.previous.includes(HOST_FILE) && !state.previous.some(isPage))
    notes.push(`${HOST_FILE}, which remote deploys check against, is still ${words.older}.`);
  return notes.join(' ');
}

interface Words {
  newer: string;
  older: string;
  newRelease: string;
  oldRelease: string;
}

const list = (paths: readonly string[]) => paths.join(', ');

export function stopMessage(input: { plan: DeployPlan; progress: EntryProgress; cause: string; lockLost: boolean }): string {
  const { plan, cause, lockLost } = input;
  const rollback = plan.release.rollback !== undefined;
  const state = entryState(plan, input.progress);
  const words: Words = rollback
    ? { newer: 'restored', older: "the release being undone's", newRelease: 'the restored release', oldRelease: 'the release being undone' }
    : { newer: "the new release's", older: "the previous release's", newRelease: 'the new release', oldRelease: 'the previous release' };
  const head = cause.endsWith('.') ? cause : `${cause}.`;
  const lockTaken = `Another deploy or rollback has taken over (it broke this ${rollback ? 'rollback' : 'deploy'}'s lock with --break-lock, or wrote these entry files) and may be writing now: this one wrote nothing more and pruned nothing.`;
  if (state.written.length + state.unknown.length === 0) {
    if (lockLost)
      return `${head} It wrote no entry file. ${lockTaken} Once it is done, look at what is live; ${rollback ? 'roll back' : 'deploy'} again if it should still be done.`;
    const asItWas = rollback
      ? 'No entry file was restored: what is live is as it was. Run the rollback again.'
      : plan.live
        ? 'No entry file was written: the previous release is still live and intact — its entry files, and every file they name, are as they were. Deploy again.'
        : "No entry file was written: the bucket's entry files are as they were (no release was recorded before). Deploy again.";
    return `${head} ${asItWas}`;
  }
  const lines = [head];
  if (lockLost) {
    // Another deploy may have written since: only what this one did is known.
    lines.push(`This ${rollback ? 'rollback' : 'deploy'} wrote: ${list(state.written) || 'none'}.`);
    const notWritten = [...state.previous, ...state.absent];
    if (notWritten.length > 0) lines.push(`It did not write: ${list(notWritten)}.`);
    if (state.unknown.length > 0) lines.push(`Its write failed (S3 may hold either): ${list(state.unknown)}.`);
    lines.push(`${lockTaken} Once it is done, look at what is live, then deploy again or roll back (--rollback).`);
    return lines.join(' ');
  }
  if (state.previous.length + state.absent.length + state.unknown.length === 0) {
    lines.push(`Every changed entry file is ${words.newer} (${list(state.written)}): ${words.newRelease} is live, but not recorded.`);
  } else {
    if (state.written.length > 0) lines.push(`Entry files ${rollback ? 'restored' : `now ${words.newer}`}: ${list(state.written)}.`);
    if (state.previous.length > 0) lines.push(`Still ${words.older}: ${list(state.previous)}.`);
    if (state.absent.length > 0) lines.push(`Not in the bucket yet: ${list(state.absent)}.`);
    if (state.unknown.length > 0) lines.push(`Either release's (the write failed; S3 holds the one or the other): ${list(state.unknown)}.`);
  }
  lines.push(plan.app === 'shell' ? shellSummary(state, words) : remoteSummary(plan, state, words));
  if (rollback) lines.push('Run the rollback again to finish it (it restores the same release), or deploy the build you want.');
  else if (plan.live) lines.push(`Deploy again to finish, or roll back (--rollback) to put the entry files of ${plan.live} back.`);
  else lines.push('Deploy again to finish (no earlier release is recorded to roll back to).');
  return lines.join(' ');
}

import type { SkippedFile } from '../src/features/upload/model/file-filter';
import { canUpload, initialQueueState, planUpload, queueReducer, type ListedFile, type QueueState } from '../src/features/upload/model/upload-queue';

const listed = (id: string): ListedFile => ({
  id,
  key: `${id}.jpg`,
  name: `${id}.jpg`,
  path: '',
  size: 10,
  lastModified: 1,
  file: new Blob(['x']),
  status: { kind: 'waiting' },
});
const withFiles = (n: number, state: QueueState = initialQueueState): QueueState =>
  queueReducer(state, { type: 'files-added', files: Array.from({ length: n }, (_, i) => listed(`f${i}`)), skipped: [] });

describe('queueReducer', () => {
  it('choosing files fills the list and resets the uploaded counter', () => {
    const s = withFiles(2, { ...initialQueueState, uploaded: 7 });
    expect(s.files).toHaveLength(2);
    expect(s.total).toBe(2);
    expect(s.uploaded).toBe(0);
  });
  it('shows one grouped notice for the skipped files', () => {
    const s = queueReducer(initialQueueState, { type: 'files-added', files: [], skipped: [{ name: '<b>x</b>.mp4', reason: 'not-jpeg' }] });
    expect(s.notice).toBe('1 file skipped: <b>x</b>.mp4 (not a JPEG image).');
  });
  it('removing an entry reduces the total', () => {
    const s = queueReducer(withFiles(3), { type: 'file-removed', id: 'f1' });
    expect(s.files.map((f) => f.id)).toEqual(['f0', 'f2']);
    expect(s.total).toBe(2);
  });
  it('Clear List empties the list and resets progress', () => {
    const s = queueReducer({ ...withFiles(3), uploaded: 1 }, { type: 'list-cleared' });
    expect(s).toMatchObject({ files: [], total: 0, uploaded: 0 });
  });
  it('applies a batch of engine events in one update: success leaves the list, failure stays marked and counts', () => {
    let s = queueReducer(withFiles(3), { type: 'batch-started', ids: ['f0', 'f1', 'f2'] });
    s = queueReducer(s, {
      type: 'engine-events',
      events: [
        { type: 'started', id: 'f0', attempt: 1 },
        { type: 'progress', id: 'f0', percent: 50 },
        { type: 'succeeded', id: 'f0' },
        { type: 'started', id: 'f1', attempt: 1 },
        { type: 'failed', id: 'f1', reason: 'Access Denied' },
        { type: 'started', id: 'f2', attempt: 1 },
        { type: 'progress', id: 'f2', percent: 42.4 },
      ],
    });
    expect(s.uploaded).toBe(1);
    expect(s.failures).toBe(1);
    expect(s.error).toBe('Problem with Storage.put operation: Access Denied');
    expect(s.files.map((f) => [f.id, f.status])).toEqual([
      ['f1', { kind: 'failed', reason: 'Access Denied' }],
      ['f2', { kind: 'uploading', percent: 42 }],
    ]);
    expect(s.total).toBe(3);
  });
  it('a stopped upload goes back to waiting', () => {
    let s = queueReducer(withFiles(1), { type: 'batch-started', ids: ['f0'] });
    s = queueReducer(s, {
      type: 'engine-events',
      events: [
        { type: 'started', id: 'f0', attempt: 1 },
        { type: 'returned', id: 'f0' },
      ],
    });
    expect(s.files[0]!.status).toEqual({ kind: 'waiting' });
  });
  it('does not remove or clear while a batch runs', () => {
    const running = queueReducer(withFiles(2), { type: 'batch-started', ids: ['f0', 'f1'] });
    expect(queueReducer(running, { type: 'file-removed', id: 'f0' })).toBe(running);
    expect(queueReducer(running, { type: 'list-cleared' })).toBe(running);
  });
  it('a new batch resets only its own failed files to waiting', () => {
    let s = queueReducer(withFiles(2), {
      type: 'engine-events',
      events: [
        { type: 'failed', id: 'f0', reason: 'x' },
        { type: 'failed', id: 'f1', reason: 'x' },
      ],
    });
    s = queueReducer(s, { type: 'batch-started', ids: ['f0'] });
    expect(s.files.map((f) => f.status.kind)).toEqual(['waiting', 'failed']);
  });
});

const checking = (id: string): ListedFile => ({ ...listed(id), status: { kind: 'checking' } });
const selected = (ids: string[], skipped: SkippedFile[] = [], state: QueueState = initialQueueState): QueueState =>
  queueReducer(state, { type: 'files-added', files: ids.map(checking), skipped });

describe('queueReducer: the background check of first bytes and fingerprints', () => {
  it('lists a selection at once, checking, with the instant skips in the notice', () => {
    const s = selected(['a', 'b'], [{ name: 'clip.mp4', reason: 'not-jpeg' }]);
    expect(s.files.map((f) => f.status.kind)).toEqual(['checking', 'checking']);
    expect(s.total).toBe(2);
    expect(s.checks).toEqual({ kind: 'running', files: 2, held: 0 });
    expect(s.notice).toBe('1 file skipped: clip.mp4 (not a JPEG image).');
  });
  it('a selection with nothing to check starts no check', () => {
    expect(selected([], [{ name: 'empty.jpg', reason: 'empty' }]).checks).toEqual({ kind: 'idle' });
  });
  it('JPEGs go to waiting; the others leave the list and the total and join the same grouped notice', () => {
    let s = selected(
      ['a', 'b', 'c'],
      [
        { name: 'clip.mp4', reason: 'not-jpeg' },
        { name: 'empty.jpg', reason: 'empty' },
      ],
    );
    s = queueReducer(s, {
      type: 'files-checked',
      verdicts: [
        { id: 'a', ok: true, fingerprint: 'fp-a' },
        { id: 'b', ok: false, reason: 'not-jpeg' },
      ],
    });
    expect(s.files.map((f) => [f.id, f.status.kind])).toEqual([
      ['a', 'waiting'],
      ['c', 'checking'],
    ]);
    expect(s.total).toBe(2);
    expect(s.notice).toBe('3 files skipped: clip.mp4 (not a JPEG image), empty.jpg (empty file), b.jpg (not a JPEG image).');
    expect(s.checks).toEqual({ kind: 'running', files: 3, held: 0 });
    s = queueReducer(s, { type: 'files-checked', verdicts: [{ id: 'c', ok: true, fingerprint: 'fp-c' }] });
    expect(s.checks).toEqual({ kind: 'idle' });
    expect(s.notice).toBe('3 files skipped: clip.mp4 (not a JPEG image), empty.jpg (empty file), b.jpg (not a JPEG image).');
  });
  it('a selection made while another is checked joins its notice and its count; after the check, a new notice', () => {
    let s = selected(['a'], [{ name: 'x.mov', reason: 'not-jpeg' }]);
    s = selected(['b'], [{ name: 'y.jpg', reason: 'empty' }], s);
    expect(s.notice).toBe('2 files skipped: x.mov (not a JPEG image), y.jpg (empty file).');
    expect(s.checks).toEqual({ kind: 'running', files: 2, held: 0 });
    s = queueReducer(s, {
      type: 'files-checked',
      verdicts: [
        { id: 'a', ok: true, fingerprint: 'fp-a' },
        { id: 'b', ok: true, fingerprint: 'fp-b' },
      ],
    });
    s = selected(['c'], [], s);
    expect(s.notice).toBeNull();
    expect(s.checks).toEqual({ kind: 'running', files: 1, held: 0 });
  });
  it('ignores verdicts for files removed or already admitted by their own check', () => {
    let s = selected(['a', 'b', 'c']);
    s = queueReducer(s, { type: 'file-removed', id: 'a' });
    s = queueReducer(s, { type: 'batch-started', ids: ['b', 'c'] });
    s = queueReducer(s, { type: 'engine-events', events: [{ type: 'started', id: 'b', attempt: 1 }] });
    s = queueReducer(s, {
      type: 'files-checked',
      verdicts: [
        { id: 'a', ok: false, reason: 'not-jpeg' },
        { id: 'b', ok: false, reason: 'not-jpeg' },
      ],
    });
    expect(s.files.map((f) => [f.id, f.status.kind])).toEqual([
      ['b', 'uploading'],
      ['c', 'checking'],
    ]);
    expect(s.notice).toBeNull();
    expect(s.total).toBe(2);
  });
  it('a file refused just before its upload is dropped and named, not counted as a failure', () => {
    let s = queueReducer(selected(['a', 'b']), { type: 'batch-started', ids: ['a', 'b'] });
    s = queueReducer(s, {
      type: 'engine-events',
      events: [
        { type: 'dropped', id: 'a', reason: 'not-jpeg' },
        { type: 'started', id: 'b', attempt: 1 },
      ],
    });
    expect(s.files.map((f) => [f.id, f.status.kind])).toEqual([['b', 'uploading']]);
    expect(s).toMatchObject({ total: 1, failures: 0, error: null, notice: '1 file skipped: a.jpg (not a JPEG image).', checks: { kind: 'idle' } });
  });
  it('starting a batch retires the shown notice: later drops make a notice of their own', () => {
    let s = selected(['a', 'b'], [{ name: 'clip.mp4', reason: 'not-jpeg' }]);
    s = queueReducer(s, { type: 'batch-started', ids: ['a', 'b'] });
    s = queueReducer(s, { type: 'files-checked', verdicts: [{ id: 'b', ok: false, reason: 'not-jpeg' }] });
    expect(s.notice).toBe('1 file skipped: b.jpg (not a JPEG image).');
  });
  it('a checked file keeps its fingerprint, and the key and target the journal had for it', () => {
    const s = queueReducer(selected(['a']), {
      type: 'files-checked',
      verdicts: [{ id: 'a', ok: true, fingerprint: 'fp-a', key: 'old-key.jpg', target: { level: 'public', cameraName: 'North Feeder' } }],
    });
    expect(s.files[0]).toMatchObject({
      fingerprint: 'fp-a',
      key: 'old-key.jpg',
      target: { level: 'public', cameraName: 'North Feeder' },
      status: { kind: 'waiting' },
    });
  });
  it('held files: counted as checking until resolved; those to send join the list without resetting progress', () => {
    let s = queueReducer(initialQueueState, { type: 'files-added', files: [checking('a')], skipped: [], held: 3 });
    expect(s.checks).toEqual({ kind: 'running', files: 4, held: 3 });
    expect(s.total).toBe(1);
    s = { ...s, uploaded: 1 };
    s = queueReducer(s, {
      type: 'held-resolved',
      files: [listed('b')],
      skipped: [
        { name: 'c.jpg', reason: 'already-uploaded' },
        { name: 'd.jpg', reason: 'duplicate' },
      ],
      resolved: 3,
    });
    expect(s.files.map((f) => f.id)).toEqual(['a', 'b']);
    expect(s).toMatchObject({ total: 2, uploaded: 1, checks: { kind: 'running', files: 4, held: 0 } });
    expect(s.notice).toBe('2 files skipped: 1 already uploaded, d.jpg (already in the list).');
    s = queueReducer(s, { type: 'files-checked', verdicts: [{ id: 'a', ok: true, fingerprint: 'fp-a' }] });
    expect(s.checks).toEqual({ kind: 'idle' });
  });
  it('a late progress event never brings a failed or returned file back to uploading', () => {
    let s = queueReducer(withFiles(2), { type: 'batch-started', ids: ['f0', 'f1'] });
    s = queueReducer(s, {
      type: 'engine-events',
      events: [
        { type: 'started', id: 'f0', attempt: 1 },
        { type: 'failed', id: 'f0', reason: 'Access Denied' },
        { type: 'progress', id: 'f0', percent: 80 },
        { type: 'progress', id: 'f1', percent: 10 },
      ],
    });
    expect(s.files.map((f) => f.status)).toEqual([{ kind: 'failed', reason: 'Access Denied' }, { kind: 'waiting' }]);
    s = queueReducer(s, { type: 'engine-events', events: [{ type: 'progress', id: 'f0', percent: 90 }] });
    expect(s.files[0]!.status.kind).toBe('failed');
  });
  it('removing the last file being checked, or clearing the list, ends the check', () => {
    expect(queueReducer(selected(['a']), { type: 'file-removed', id: 'a' }).checks).toEqual({ kind: 'idle' });
    expect(queueReducer(selected(['a', 'b']), { type: 'list-cleared' })).toMatchObject({ checks: { kind: 'idle' }, skipped: [], notice: null });
  });
});

describe('queueReducer: photos the server granted no slot', () => {
  const running = (n: number) => queueReducer(withFiles(n), { type: 'batch-started', ids: Array.from({ length: n }, (_, i) => `f${i}`) });

  it('stay in the list as not sent (not dropped, not failed), and the notice says how many and why', () => {
    const s = queueReducer(running(4), {
      type: 'engine-events',
      events: [
        { type: 'succeeded', id: 'f0' },
        { type: 'not-sent', id: 'f1', reason: 'limit' },
        { type: 'not-sent', id: 'f2', reason: 'limit' },
        { type: 'not-sent', id: 'f3', reason: 'unavailable' },
      ],
    });
    expect(s.files.map((f) => [f.id, f.status])).toEqual([
      ['f1', { kind: 'not-sent', reason: 'limit' }],
      ['f2', { kind: 'not-sent', reason: 'limit' }],
      ['f3', { kind: 'not-sent', reason: 'unavailable' }],
    ]);
    expect(s.total).toBe(4);
    expect(s.failures).toBe(0);
    expect(s.notice).toBe(
      'Your ranch reached its monthly limit while this batch ran: 2 photos were not sent. 1 photo was not sent: the server could not be asked for upload slots. Press Upload to try them again.',
    );
  });

  it('join the skipped files’ notice, and wait again when the next batch starts', () => {
    let s = queueReducer(running(2), { type: 'engine-events', events: [{ type: 'dropped', id: 'f0', reason: 'already-uploaded' }] });
    s = queueReducer(s, { type: 'engine-events', events: [{ type: 'not-sent', id: 'f1', reason: 'limit' }] });
    expect(s.notice).toBe('1 file skipped: 1 already uploaded. Your ranch reached its monthly limit while this batch ran: 1 photo was not sent.');
    s = queueReducer(queueReducer(s, { type: 'batch-ended' }), { type: 'batch-started', ids: ['f1'] });
    expect(s.files[0]!.status).toEqual({ kind: 'waiting' });
  });
});

describe('canUpload and planUpload', () => {
  it('needs files, allowance and no running batch', () => {
    expect(canUpload(initialQueueState, 10)).toBe(false);
    expect(canUpload(withFiles(2), 0)).toBe(false);
    expect(canUpload(withFiles(2), null)).toBe(false);
    expect(canUpload(withFiles(2), 2)).toBe(true);
    expect(canUpload(queueReducer(withFiles(2), { type: 'batch-started', ids: [] }), 10)).toBe(false);
  });
  it('uploads everything when the allowance covers the list', () => expect(planUpload(withFiles(15), 15)).toEqual({ kind: 'upload' }));
  it('asks first when the list is longer than the allowance', () =>
    expect(planUpload(withFiles(20), 15)).toEqual({ kind: 'confirm', remaining: 15, listed: 20 }));
  it('Cancel advises removing files or upgrading', () =>
    expect(queueReducer(withFiles(20), { type: 'upload-declined' }).notice).toBe(
      'Nothing was uploaded. Remove some files from the list or upgrade your subscription to upload more images.',
    ));
});

import { createSignatureCheck, SIGNATURE_CHUNK, type SignatureJob } from '../src/features/upload/services/signature-check';
import type { SignatureVerdict } from '../src/features/upload/model/upload-queue';

const JPEG = new Uint8Array([0xff, 0xd8, 0xff]);
const PNG = new Uint8Array([0x89, 0x50, 0x4e]);
/** What each fake file's first bytes are (jsdom's Blob cannot be read back). */
const heads = new Map<Blob, Uint8Array | null | Error>();
const job = (id: string, head: Uint8Array | null | Error = JPEG): SignatureJob => {
  const file = new Blob([id]);
  heads.set(file, head);
  return { id, file };
};
const fakeRead = async (file: Blob) => {
  const head = heads.get(file);
  if (head instanceof Error) throw head;
  return head ?? null;
};

/** A reader the test answers by hand, per file. */
function manualReader() {
  const pending: { file: Blob; answer: (head: Uint8Array | null) => void; fail: (e: unknown) => void }[] = [];
  const readHead = jest.fn(
    (file: Blob) => new Promise<Uint8Array | null>((answer, fail) => pending.push({ file, answer, fail })),
  );
  return { readHead, pending };
}

describe('createSignatureCheck', () => {
  it('checks in chunks, one onChunk call per chunk, each chunk read only after the one before', async () => {
    const reads: Blob[] = [];
    const check = createSignatureCheck((file) => (reads.push(file), fakeRead(file)));
    const jobs = [...Array.from({ length: SIGNATURE_CHUNK + 1 }, (_, i) => job(`f${i}`)), job('bad', PNG)];
    const chunks: SignatureVerdict[][] = [];
    await check.checkAll(jobs, (v) => chunks.push(v), new AbortController().signal);
    expect(chunks.map((c) => c.length)).toEqual([SIGNATURE_CHUNK, 2]);
    expect(chunks[1]).toEqual([
      { id: `f${SIGNATURE_CHUNK}`, isJpeg: true },
      { id: 'bad', isJpeg: false },
    ]);
    expect(reads).toHaveLength(SIGNATURE_CHUNK + 2);
  });

  it('treats an unreadable file, or fewer than three bytes, as not a JPEG', async () => {
    const check = createSignatureCheck(fakeRead);
    expect(await check.isJpeg(job('gone', new Error('NotFoundError')))).toBe(false);
    expect(await check.isJpeg(job('unreadable', null))).toBe(false);
    expect(await check.isJpeg(job('short', JPEG.slice(0, 2)))).toBe(false);
    expect(await check.isJpeg(job('photo', JPEG))).toBe(true);
  });

  it('reads a file once when the upload asks while the background read is in flight', async () => {
    const r = manualReader();
    const check = createSignatureCheck(r.readHead);
    const chunks: SignatureVerdict[][] = [];
    const done = check.checkAll([job('a')], (v) => chunks.push(v), new AbortController().signal);
    const asked = check.isJpeg(job('a'));
    expect(r.readHead).toHaveBeenCalledTimes(1);
    r.pending[0]!.answer(PNG);
    expect(await asked).toBe(false);
    await done;
    expect(chunks).toEqual([[{ id: 'a', isJpeg: false }]]);
  });

  it('stops between chunks once aborted, and reports nothing more', async () => {
    const r = manualReader();
    const check = createSignatureCheck(r.readHead);
    const controller = new AbortController();
    const onChunk = jest.fn();
    const done = check.checkAll(Array.from({ length: SIGNATURE_CHUNK * 3 }, (_, i) => job(`f${i}`)), onChunk, controller.signal);
    expect(r.readHead).toHaveBeenCalledTimes(SIGNATURE_CHUNK);
    controller.abort();
    for (const p of r.pending) p.answer(JPEG);
    await done;
    expect(onChunk).not.toHaveBeenCalled();
    expect(r.readHead).toHaveBeenCalledTimes(SIGNATURE_CHUNK);
  });
});

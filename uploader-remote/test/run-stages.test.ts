/**
 * @jest-environment node
 */
// The run pipeline's contract (controller/stages/stage.ts, docs/architecture.md#the-run-pipeline):
// the transform stages in turn, and a stage plugged into a running batch through the one
// controller harness, on jest's fake clock.
import { TRANSFORM_STAGES } from '../src/features/upload/controller/stages';
import { defaultRecord, StagePipeline } from '../src/features/upload/controller/stages/pipeline';
import type { RunPhoto, StageChoices, TransformStage } from '../src/features/upload/controller/stages/stage';
import type { PhotoExif } from '../src/features/upload/model/photo-exif';
import type { ListedFile } from '../src/features/upload/model/upload-queue';
import { fakeServices, photo } from './support/fake-services';
import { open, until, uploadAll } from './support/controller-harness';

beforeEach(() => jest.useFakeTimers({ now: new Date('2026-11-21T22:00:00') }));
afterEach(() => jest.useRealTimers());

const CHOICES: StageChoices = { sendCopies: false, choices: { camera: '', training: false }, stageSettings: {} };
const listed = {
  id: 'f1',
  key: 'k1.JPG',
  name: 'A.JPG',
  path: '',
  size: 4000,
  lastModified: 1,
  file: new Blob(['x']),
  status: { kind: 'waiting' },
} satisfies ListedFile;
const admitted = (): RunPhoto => ({
  key: 'k1.JPG',
  form: 'original',
  bytes: 4000,
  counted: true,
  target: { level: 'public', cameraName: '', ranchId: 'mesquite-flats' },
  entry: {
    owner: 'sub-1',
    ranchId: 'mesquite-flats',
    fingerprint: 'v1-1',
    batchId: 'b',
    name: 'A.JPG',
    path: '',
    size: 4000,
    lastModified: 1,
    key: 'k1.JPG',
    status: 'waiting',
    updatedAt: 0,
  },
  exif: null,
});
/** A camera whose clock runs an hour slow, set right: the next feature's kind of stage. */
const HOUR_SLOW: PhotoExif = { make: 'Browning', captureTime: '2026-10-01T05:12:44' };
const SET_RIGHT: PhotoExif = { make: 'Browning', captureTime: '2026-10-01T06:12:44' };
const clockStage = (more: Partial<ReturnType<TransformStage['begin']>> = {}): TransformStage => ({
  name: 'camera clock',
  exif: (exif) => (exif?.captureTime === HOUR_SLOW.captureTime ? SET_RIGHT : exif),
  begin: () => more,
});

describe('StagePipeline', () => {
  it('says what the ranch has by the default rule (this browser sent it, or the server has it), then by each stage in turn', () => {
    expect(defaultRecord({ entry: undefined, server: null, asked: true })).toBe('new');
    expect(defaultRecord({ entry: { status: 'uploaded' }, server: null, asked: false })).toBe('had');
    expect(defaultRecord({ entry: undefined, server: 'copy', asked: true })).toBe('had');
    const copyOnly = { entry: undefined, server: 'copy' as const, asked: true };
    expect(new StagePipeline([]).record(copyOnly, CHOICES)).toBe('had');
    expect(new StagePipeline(TRANSFORM_STAGES).record(copyOnly, CHOICES)).toBe('upgrade');
    expect(new StagePipeline(TRANSFORM_STAGES).record(copyOnly, { ...CHOICES, sendCopies: true })).toBe('had');
    const later: TransformStage = { name: 'later', onRecord: (_facts, verdict) => (verdict === 'upgrade' ? 'new' : verdict), begin: () => ({}) };
    expect(new StagePipeline([...TRANSFORM_STAGES, later]).record(copyOnly, CHOICES)).toBe('new');
  });

  it('transforms a photo through each stage in order; a stage that throws is logged and the photo goes on as it came', async () => {
    const logError = jest.fn();
    const tag =
      (name: string) =>
      async (photo: RunPhoto): Promise<RunPhoto> => ({ ...photo, key: `${photo.key}+${name}` });
    const stages = new StagePipeline([
      { name: 'a', begin: () => ({ transform: tag('a') }) },
      { name: 'broken', begin: () => ({ transform: () => Promise.reject(new Error('no')) }) },
      { name: 'b', begin: () => ({ transform: tag('b') }) },
    ]).begin({ choices: CHOICES, services: { ...fakeServices().services, logError }, listed: () => [listed] });
    expect((await stages.transform(admitted(), listed)).key).toBe('k1.JPG+a+b');
    expect(logError).toHaveBeenCalledWith('The broken stage failed', new Error('no'));
    expect(stages.weigh).toBeUndefined();
  });

  it('weighs a listed photo by the first stage that weighs it, else by its size', () => {
    const { services } = fakeServices();
    const stages = new StagePipeline([
      { name: 'none', begin: () => ({ weigh: () => undefined }) },
      { name: 'half', begin: () => ({ weigh: (f) => (f.size > 1000 ? f.size / 2 : undefined) }) },
    ]).begin({ choices: CHOICES, services, listed: () => [] });
    expect(stages.weigh?.(listed)).toBe(2000);
    expect(stages.weigh?.({ ...listed, size: 10 })).toBe(10);
  });
});

describe('a transform stage plugged into the run', () => {
  it('sets what each photo goes as, hears the run’s events, adds to the outcome, and ends with the batch', async () => {
    const heard: string[] = [];
    let ended = 0;
    const stage = clockStage({
      transform: async (photo) => ({ ...photo, body: new Blob(['rewritten']), bytes: 9 }),
      listener: (event, sent) => {
        if (event.type === 'succeeded') heard.push(sent!.key);
      },
      outcome: () => ({ bytesSaved: 42 }),
      end: () => void ended++,
    });
    const t = open(fakeServices(), { concurrency: 3, transforms: [stage] });
    await uploadAll(t, [photo('IMG_0001.JPG', 'photo-1', { exif: HOUR_SLOW }), photo('IMG_0002.JPG', 'photo-2', { exif: { make: 'Stealth Cam' } })]);
    const keys = [...t.world.stored.keys()];
    expect(keys).toHaveLength(2);
    expect(heard.sort()).toEqual([...keys].sort());
    expect(keys.map((k) => t.world.photos.get(k))).toEqual(expect.arrayContaining([SET_RIGHT, { make: 'Stealth Cam' }]));
    expect(keys.map((k) => t.world.bodies.get(k)!.size)).toEqual([9, 9]);
    expect(t.world.tracked.find((e) => e.name === 'batchOutcome')).toMatchObject({ photos: 2, bytes: 18, bytesSaved: 42 });
    expect(ended).toBe(1);
  });

  it('runs before the copies stage: a copy, made now or ahead, carries the EXIF the stages before it set', async () => {
    const services = fakeServices();
    const maker = services.services.copies;
    const exifs: (PhotoExif | null)[] = [];
    services.services.copies = { ...maker, make: (file, exif, signal) => (exifs.push(exif), maker.make(file, exif, signal)) };
    const t = open(services, { concurrency: 1, transforms: [clockStage(), ...TRANSFORM_STAGES] });
    await until(() => t.state().allowance.kind === 'known');
    t.controller.setSendCopies(true);
    const card = Array.from({ length: 4 }, (_, i) => photo(`IMG_${i + 1}.JPG`, `photo-${i + 1}-`.padEnd(4000, 'x'), { exif: HOUR_SLOW }));
    await uploadAll(t, card);
    expect(t.world.puts.every((key) => key.endsWith('-copy.jpg'))).toBe(true);
    expect(exifs).toEqual(Array(4).fill(SET_RIGHT));
    expect([...t.world.photos.values()]).toEqual(Array(4).fill(SET_RIGHT));
  });
});

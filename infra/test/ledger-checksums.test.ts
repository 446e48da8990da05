/**
 * Each photo's full checksum beside its fingerprint (infra/docs/server.md#checksums): the
 * object-created function reads the stored object's checksum (HeadObject with ChecksumMode
 * ENABLED, src/object-created/aws.ts) and the ledger keeps it with the counted object, the photo's
 * record and an upgrade — on the ledgers of support/ledgers.ts: the sandbox's SQLite ledger and the
 * DynamoDB adapter on both engines (our fake and DynamoDB Local). An object without one (an older
 * client's, stored before S3 kept them) is counted all the same, its checksum null.
 */
import { HeadObjectCommand } from '@aws-sdk/client-s3';
import { headChecksum, s3Objects } from '../src/object-created/aws';
import { checksumFromText, checksumText, type ObjectChecksum } from '../src/ledger/port';
import { LEDGERS, type LedgerSetup } from './support/ledgers';
import { BUCKET, fingerprint, RANCH, UploadWorld } from './support/upload-world';

// DynamoDB Local on a busy 2-core machine (see ledger-dynamo.test.ts).
jest.setTimeout(120_000);

const NOW = Date.parse('2026-11-10T12:00:00Z');
const CRC32: ObjectChecksum = { algorithm: 'CRC32', type: 'FULL_OBJECT', value: 'DLOxmA==' };
const OTHER: ObjectChecksum = { algorithm: 'CRC32', type: 'FULL_OBJECT', value: 'q0Hn2A==' };

describe('checksumText and checksumFromText', () => {
  it('read back what they write, a COMPOSITE one too', () => {
    expect(checksumText(CRC32)).toBe('CRC32:FULL_OBJECT:DLOxmA==');
    const composite: ObjectChecksum = { algorithm: 'SHA256', type: 'COMPOSITE', value: 'n2alat9FhKiZXkZO18V2LLcZFM3IT8R7DjSMvK//7WU=-3' };
    expect(checksumFromText(checksumText(composite))).toEqual(composite);
  });
  it('read nothing from nothing or from what is not one', () => {
    expect(checksumFromText(null)).toBeNull();
    expect(checksumFromText('crc32 DLOxmA==')).toBeNull();
  });
});

describe('headChecksum', () => {
  it('reads the checksum a HeadObject with checksum mode answers, and its type', () => {
    expect(headChecksum({ $metadata: {}, ChecksumCRC32: 'DLOxmA==', ChecksumType: 'FULL_OBJECT' })).toEqual(CRC32);
    expect(headChecksum({ $metadata: {}, ChecksumSHA256: 'abc=-2', ChecksumType: 'COMPOSITE' })).toEqual({
      algorithm: 'SHA256',
      type: 'COMPOSITE',
      value: 'abc=-2',
    });
  });
  it('is null for an object S3 keeps none for', () => expect(headChecksum({ $metadata: {} })).toBeNull());
});

describe('s3Objects.head', () => {
  it('asks S3 for the checksum (ChecksumMode ENABLED) and answers it with the head', async () => {
    const sent: object[] = [];
    const objects = s3Objects({
      send: (command) => {
        sent.push(command);
        return Promise.resolve({
          $metadata: {},
          Metadata: { ranchid: RANCH },
          ContentLength: 3,
          ContentType: 'image/jpg',
          ChecksumCRC32: 'DLOxmA==',
          ChecksumType: 'FULL_OBJECT',
        });
      },
    });
    await expect(objects.head(BUCKET, 'public/cedar-creek/a.jpg')).resolves.toEqual({
      metadata: { ranchid: RANCH },
      size: 3,
      contentType: 'image/jpg',
      checksum: CRC32,
    });
    expect(sent[0]).toBeInstanceOf(HeadObjectCommand);
    expect((sent[0] as HeadObjectCommand).input).toEqual({ Bucket: BUCKET, Key: 'public/cedar-creek/a.jpg', ChecksumMode: 'ENABLED' });
  });
});

describe.each(LEDGERS)('the checksum on %s', (_name, setUp) => {
  let setup: LedgerSetup;
  let world: UploadWorld;
  beforeEach(async () => {
    setup = await setUp();
    world = new UploadWorld(setup.ledger, 10, NOW);
  });
  afterEach(() => setup.close());

  /** The checksums the ledger keeps for an object and for its photo (as the port names them). */
  async function kept(key: string, photo: string): Promise<{ object: ObjectChecksum | null; photo: ObjectChecksum | null }> {
    return { object: await setup.records.objectChecksum(BUCKET, key), photo: (await setup.records.photo(RANCH, photo))?.checksum ?? null };
  }

  async function send(key: string, fp: string, checksum?: ObjectChecksum) {
    const { reservation } = await world.reserve('alice', [fp]);
    world.store(key, reservation!, fp, checksum ? { checksum } : {});
    await world.deliver(key);
  }

  it('keeps the stored object’s checksum with the counted object and its photo', async () => {
    await send('public/cedar-creek/a.jpg', fingerprint(1), CRC32);
    expect(world.decisions.at(-1)).toMatchObject({ decision: 'counted' });
    await expect(kept('public/cedar-creek/a.jpg', fingerprint(1))).resolves.toEqual({ object: CRC32, photo: CRC32 });
  });

  it('counts an object without one all the same, its checksum null', async () => {
    await send('public/cedar-creek/b.jpg', fingerprint(2));
    expect(world.decisions.at(-1)).toMatchObject({ decision: 'counted' });
    expect((await setup.ledger.readMonth(RANCH, '2026_11')).total).toBe(1);
    await expect(kept('public/cedar-creek/b.jpg', fingerprint(2))).resolves.toEqual({ object: null, photo: null });
  });

  it('gives the photo the checksum of the object it was last counted under, or none', async () => {
    await send('public/cedar-creek/c1.jpg', fingerprint(3), CRC32);
    // Two devices that reserved the same photo before either was stored: both counted.
    const { reservation } = await world.reserve('bob', [fingerprint(30)]);
    world.store('public/cedar-creek/c2.jpg', reservation!, fingerprint(3), { checksum: OTHER });
    await world.deliver('public/cedar-creek/c2.jpg');
    expect((await kept('public/cedar-creek/c2.jpg', fingerprint(3))).photo).toEqual(OTHER);
    const again = await world.reserve('carol', [fingerprint(31)]);
    world.store('public/cedar-creek/c3.jpg', again.reservation!, fingerprint(3));
    await world.deliver('public/cedar-creek/c3.jpg');
    await expect(kept('public/cedar-creek/c3.jpg', fingerprint(3))).resolves.toEqual({ object: null, photo: null });
  });

  it('a second delivery of a counted object changes nothing of it', async () => {
    await send('public/cedar-creek/d.jpg', fingerprint(4), CRC32);
    await world.deliver('public/cedar-creek/d.jpg');
    expect(world.decisions.at(-1)).toMatchObject({ decision: 'duplicate' });
    await expect(kept('public/cedar-creek/d.jpg', fingerprint(4))).resolves.toEqual({ object: CRC32, photo: CRC32 });
  });
});

/**
 * The sweep (src/sweep/sweep.ts) on a fake bucket and ledger: untagged objects past every retry
 * removed and recorded, counted-but-untagged ones tagged again, young and tagged ones left, twice
 * in a row the same; and its S3 adapter (src/sweep/aws.ts) on a fake SDK client.
 */
import { DeleteObjectCommand, GetObjectTaggingCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import type { Refusal } from '../src/ledger/port';
import { awsSweepPort } from '../src/sweep/aws';
import { SWEEP_WINDOW, sweepUntagged } from '../src/sweep/sweep';
import type { ListedObject, SweepDecision, SweepPort } from '../src/sweep/sweep';

const BUCKET = 'uploads';
const HOUR = 3_600_000;
const NOW = new Date('2026-03-15T12:00:00Z');

class FakeBucket implements SweepPort {
  objects = new Map<string, { lastModified: Date; tags: Record<string, string> }>();
  countedKeys = new Set<string>();
  refusals: Refusal[] = [];
  failTags = new Set<string>();
  pageSize = 2;

  put(key: string, hoursAgo: number, tags: Record<string, string> = {}) {
    this.objects.set(key, { lastModified: new Date(NOW.getTime() - hoursAgo * HOUR), tags });
  }

  async *list(_bucket: string, prefix: string): AsyncIterable<readonly ListedObject[]> {
    const all = [...this.objects].filter(([key]) => key.startsWith(prefix)).map(([key, o]) => ({ key, lastModified: o.lastModified }));
    for (let i = 0; i < all.length; i += this.pageSize) yield all.slice(i, i + this.pageSize);
  }
  async tags(_bucket: string, key: string) {
    if (this.failTags.has(key)) throw new Error(`tagging of ${key} failed`);
    return this.objects.get(key)?.tags ?? null;
  }
  async putRanchTag(_bucket: string, key: string, ranchId: string) {
    const object = this.objects.get(key);
    if (object) object.tags = { ranchid: ranchId };
  }
  async remove(_bucket: string, key: string) {
    this.objects.delete(key);
  }
  async counted(_bucket: string, key: string) {
    return this.countedKeys.has(key);
  }
  async recordRefusal(refusal: Refusal) {
    // One item per object and month, as the DynamoDB ledger keys it.
    this.refusals = [...this.refusals.filter((r) => r.key !== refusal.key || r.yearmo !== refusal.yearmo), refusal];
  }
}

let bucket: FakeBucket;
let log: SweepDecision[];
beforeEach(() => {
  bucket = new FakeBucket();
  log = [];
});
const sweep = () => sweepUntagged(BUCKET, { port: bucket, clock: { now: () => NOW }, log: (line) => log.push(line) });

describe('sweepUntagged', () => {
  it('removes and records an untagged object older than any retry, under public/ and private/', async () => {
    bucket.put('public/cedar-creek/stuck.jpg', 9);
    bucket.put('private/us-east-2:0f0e/cedar-creek/stuck.jpg', 30);
    bucket.put('public/a.jpg', 10);
    await expect(sweep()).resolves.toEqual({ checked: 3, swept: 3, retagged: 0, failed: 0 });
    expect(bucket.objects.size).toBe(0);
    expect(bucket.refusals.map((r) => [r.key, r.ranchId, r.reason, r.yearmo, r.at]).sort()).toEqual([
      ['private/us-east-2:0f0e/cedar-creek/stuck.jpg', 'cedar-creek', 'unprocessed', '2026_03', NOW.toISOString()],
      ['public/a.jpg', null, 'unprocessed', '2026_03', NOW.toISOString()],
      ['public/cedar-creek/stuck.jpg', 'cedar-creek', 'unprocessed', '2026_03', NOW.toISOString()],
    ]);
    expect(log).toContainEqual({
      decision: 'swept',
      bucket: BUCKET,
      key: 'public/cedar-creek/stuck.jpg',
      ranchId: 'cedar-creek',
      lastModified: '2026-03-15T03:00:00.000Z',
    });
  });

  it('keeps tagged objects, objects still within the retries, and objects past the window', async () => {
    bucket.put('public/cedar-creek/counted.jpg', 20, { ranchid: 'cedar-creek' });
    bucket.put('public/cedar-creek/young.jpg', SWEEP_WINDOW.minAgeMs / HOUR - 1);
    bucket.put('public/cedar-creek/ancient.jpg', SWEEP_WINDOW.maxAgeMs / HOUR + 1);
    bucket.put('other/cedar-creek/elsewhere.jpg', 20);
    await expect(sweep()).resolves.toEqual({ checked: 1, swept: 0, retagged: 0, failed: 0 });
    expect([...bucket.objects.keys()].sort()).toEqual([
      'other/cedar-creek/elsewhere.jpg',
      'public/cedar-creek/ancient.jpg',
      'public/cedar-creek/counted.jpg',
      'public/cedar-creek/young.jpg',
    ]);
    expect(bucket.refusals).toEqual([]);
  });

  it('tags again an object the ledger counted whose tagging failed, rather than removing it', async () => {
    bucket.put('public/cedar-creek/a.jpg', 12);
    bucket.countedKeys.add('public/cedar-creek/a.jpg');
    await expect(sweep()).resolves.toMatchObject({ swept: 0, retagged: 1 });
    expect(bucket.objects.get('public/cedar-creek/a.jpg')?.tags).toEqual({ ranchid: 'cedar-creek' });
    expect(bucket.refusals).toEqual([]);
  });

  it('is idempotent: a second run finds nothing to do and records nothing twice', async () => {
    bucket.put('public/cedar-creek/stuck.jpg', 9);
    bucket.put('public/cedar-creek/b.jpg', 9);
    bucket.countedKeys.add('public/cedar-creek/b.jpg');
    await sweep();
    const after = { objects: [...bucket.objects], refusals: [...bucket.refusals] };
    await expect(sweep()).resolves.toEqual({ checked: 1, swept: 0, retagged: 0, failed: 0 });
    expect({ objects: [...bucket.objects], refusals: bucket.refusals }).toEqual(after);
  });

  it('goes on past an object that fails, then throws naming it', async () => {
    bucket.put('public/cedar-creek/bad.jpg', 9);
    bucket.put('public/cedar-creek/good.jpg', 9);
    bucket.failTags.add('public/cedar-creek/bad.jpg');
    await expect(sweep()).rejects.toThrow('sweep: 1 object(s) failed: public/cedar-creek/bad.jpg: tagging of public/cedar-creek/bad.jpg failed');
    expect(bucket.objects.has('public/cedar-creek/good.jpg')).toBe(false);
    expect(bucket.objects.has('public/cedar-creek/bad.jpg')).toBe(true);
  });
});

describe('awsSweepPort', () => {
  it('lists page by page, reads tags (null when gone), deletes, and asks the ledger for the object item', async () => {
    const sent: object[] = [];
    const s3 = {
      send: async (command: object) => {
        sent.push(command);
        if (command instanceof ListObjectsV2Command) {
          return command.input.ContinuationToken
            ? { Contents: [{ Key: 'public/r/b.jpg', LastModified: NOW }], IsTruncated: false }
            : { Contents: [{ Key: 'public/r/a.jpg', LastModified: NOW }], IsTruncated: true, NextContinuationToken: 'next' };
        }
        if (command instanceof GetObjectTaggingCommand) {
          if (command.input.Key === 'public/r/gone.jpg') throw Object.assign(new Error('NoSuchKey'), { name: 'NoSuchKey', $metadata: { httpStatusCode: 404 } });
          return { TagSet: [{ Key: 'ranchid', Value: 'r' }] };
        }
        return {};
      },
    };
    const gets: object[] = [];
    const dynamo = {
      send: async (command: object) => {
        gets.push((command as { input: object }).input);
        return { Item: { pk: { S: 'OBJECT#uploads/public/r/a.jpg' } } };
      },
    };
    const port = awsSweepPort(s3, dynamo, 'ledger-table');
    const pages: ListedObject[][] = [];
    for await (const page of port.list(BUCKET, 'public/')) pages.push([...page]);
    expect(pages.map((p) => p.map((o) => o.key))).toEqual([['public/r/a.jpg'], ['public/r/b.jpg']]);
    await expect(port.tags(BUCKET, 'public/r/a.jpg')).resolves.toEqual({ ranchid: 'r' });
    await expect(port.tags(BUCKET, 'public/r/gone.jpg')).resolves.toBeNull();
    await port.remove(BUCKET, 'public/r/a.jpg');
    expect(sent.at(-1)).toBeInstanceOf(DeleteObjectCommand);
    await expect(port.counted(BUCKET, 'public/r/a.jpg')).resolves.toBe(true);
    expect(gets[0]).toMatchObject({ TableName: 'ledger-table', Key: { pk: { S: 'OBJECT#uploads/public/r/a.jpg' }, sk: { S: 'OBJECT' } } });
  });
});

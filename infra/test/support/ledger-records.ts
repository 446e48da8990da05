/**
 * What the production ledger keeps, read from its DynamoDB items (src/ledger/dynamo.ts defines
 * them) and named as the port names it (src/ledger/port.ts): for tests that drive a handler over
 * the DynamoDB adapter on an engine (support/ledger-engines.ts) and check what it recorded — the
 * months, the counted objects, the photos, the refusals. `LedgerRecords` is what every ledger's
 * records answer, the sandbox's SQLite one's too (support/ledgers.ts), for the port's suites.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { dynamoLedger, ledgerKeys, objectDecisionOf } from '../../src/ledger/dynamo';
import type { CommandSender } from '../../src/ledger/dynamo';
import { checksumFromText, type LedgerPort, type ObjectChecksum, type PhotoRecord, type Refusal, type RefusalReason } from '../../src/ledger/port';
import type { MonthState } from '../../src/ledger/rules';
import { prng } from '../../../test-support/prng';
import { fakeEngine, type LedgerEngine } from './ledger-engines';

type Item = Record<string, AttributeValue>;

/** The DynamoDB adapter as the tests run it: a lost race is retried at once (seeded jitter, no time budget). */
export const instantLedger = (client: CommandSender, table: string, seed = 1): LedgerPort =>
  dynamoLedger(client, table, { sleep: async () => {}, random: prng(seed), budgetMs: Number.POSITIVE_INFINITY });

/** What a test reads of any ledger's records, as the port names them. */
export interface LedgerRecords {
  /** The photo's record (port.ts PhotoRecord; one of before forms reads as an original's), or undefined when the ranch has no such photo. */
  photo(ranchId: string, fingerprint: string): Promise<PhotoRecord | undefined>;
  /** The checksum kept with the object's decision (counted, or an upgrade of a copy); null for none, or no such decision. */
  objectChecksum(bucket: string, key: string): Promise<ObjectChecksum | null>;
  /** Stores a photo as a ledger of before forms kept it: the object it was counted under and when, no form. */
  seedPhotoOfBefore(ranchId: string, fingerprint: string, key: string, at: string): Promise<void>;
}

/**
 * An object counted in a month, as its items keep it: its own item (ranch, month, time, checksum),
 * and the fingerprint of the photo whose item names it (null: none does). The reservation it was
 * counted under is no attribute of it: its use is the month's (the hold's slots).
 */
export interface CountedRecord {
  bucket: string;
  key: string;
  ranchId: string;
  yearmo: string;
  at: string;
  checksum: ObjectChecksum | null;
  fingerprint: string | null;
}

const str = (item: Item, name: string) => item[name]?.S;

/** A photo item as the port's record: its attributes named as PhotoRecord names them. */
function photoRecordOf(item: Item): PhotoRecord {
  const optional = (name: keyof PhotoRecord, attribute: string) => (str(item, attribute) === undefined ? {} : { [name]: str(item, attribute) });
  const checksum = checksumFromText(str(item, 'checksum'));
  return {
    form: str(item, 'form') === 'copy' ? 'copy' : 'original',
    key: str(item, 'key') ?? '',
    at: str(item, 'at') ?? '',
    ...(checksum ? { checksum } : {}),
    ...optional('copyKey', 'copy_key'),
    ...optional('originalKey', 'original_key'),
    ...optional('upgradedAt', 'upgraded_at'),
  };
}

/** The records of the DynamoDB adapter on `engine`, from its items. */
export class DynamoRecords implements LedgerRecords {
  constructor(readonly engine: LedgerEngine) {}

  /** The month's state as stored, its version included (EMPTY_MONTH when it has no item). */
  month(ranchId: string, yearmo: string): Promise<MonthState> {
    return this.engine.month(ranchId, yearmo);
  }

  /** The months that have an item, as `<ranchid>|<YYYY_MM>`. */
  async months(): Promise<string[]> {
    return (await this.engine.all())
      .filter((item) => str(item, 'sk')?.startsWith('UPLOADS#'))
      .map((item) => `${str(item, 'pk')?.slice('RANCH#'.length)}|${str(item, 'sk')?.slice('UPLOADS#'.length)}`);
  }

  /** The object, when the ledger counted it in a month (not when it refused it, nor when it upgraded a copy). */
  async counted(bucket: string, key: string): Promise<CountedRecord | undefined> {
    const item = await this.engine.get(ledgerKeys.object(bucket, key));
    if (objectDecisionOf(item) !== 'counted' || !item) return undefined;
    const ranchId = str(item, 'ranchid') ?? '';
    const objectKey = `${bucket}/${key}`;
    const naming = (await this.engine.all()).find(
      (photo) =>
        str(photo, 'pk') === `RANCH#${ranchId}` &&
        str(photo, 'sk')?.startsWith('PHOTO#') &&
        ['key', 'copy_key', 'original_key'].some((name) => str(photo, name) === objectKey),
    );
    return {
      bucket,
      key,
      ranchId,
      yearmo: str(item, 'yearmo') ?? '',
      at: str(item, 'at') ?? '',
      checksum: checksumFromText(str(item, 'checksum')),
      fingerprint: naming ? (str(naming, 'sk') ?? '').slice('PHOTO#'.length) : null,
    };
  }

  /** Every object counted in a month, as `<bucket>/<key>`. */
  async countedObjects(): Promise<string[]> {
    return (await this.engine.all())
      .filter((item) => str(item, 'sk') === 'OBJECT' && objectDecisionOf(item) === 'counted')
      .map((item) => (str(item, 'pk') ?? '').slice('OBJECT#'.length));
  }

  /**
   * The refusals recorded (recordRefusal), in the order the engine holds their items: on the fake,
   * the order they were first written, which is the order the function decided them.
   */
  async refusals(): Promise<Refusal[]> {
    return (await this.engine.all())
      .filter((item) => str(item, 'pk')?.startsWith('REFUSAL#'))
      .map((item) => {
        const claimed = str(item, 'claimed_ranchid');
        return {
          bucket: str(item, 'bucket') ?? '',
          key: str(item, 'key') ?? '',
          ranchId: str(item, 'ranchid') ?? null,
          yearmo: (str(item, 'pk') ?? '').slice('REFUSAL#'.length),
          reason: str(item, 'reason') as RefusalReason,
          at: str(item, 'at') ?? '',
          ...(claimed === undefined ? {} : { claimedRanchId: claimed }),
        };
      });
  }

  /** The ranch's photos by fingerprint, each as its record. */
  async photos(ranchId: string): Promise<Map<string, PhotoRecord>> {
    const items = (await this.engine.all()).filter((item) => str(item, 'pk') === `RANCH#${ranchId}` && str(item, 'sk')?.startsWith('PHOTO#'));
    return new Map(items.map((item) => [(str(item, 'sk') ?? '').slice('PHOTO#'.length), photoRecordOf(item)]));
  }

  async photo(ranchId: string, fingerprint: string): Promise<PhotoRecord | undefined> {
    const item = await this.engine.get(ledgerKeys.photo(ranchId, fingerprint));
    return item && photoRecordOf(item);
  }

  async objectChecksum(bucket: string, key: string): Promise<ObjectChecksum | null> {
    return checksumFromText(str((await this.engine.get(ledgerKeys.object(bucket, key))) ?? {}, 'checksum'));
  }

  async seedPhotoOfBefore(ranchId: string, fingerprint: string, key: string, at: string): Promise<void> {
    const { pk, sk } = ledgerKeys.photo(ranchId, fingerprint);
    await this.engine.put({ pk: { S: pk }, sk: { S: sk }, key: { S: key }, at: { S: at } });
  }
}

/** The DynamoDB adapter on a fresh table of the fake engine, and its records. */
export function onTheFake(): { ledger: LedgerPort; records: DynamoRecords; engine: LedgerEngine } {
  const engine = fakeEngine();
  return { ledger: instantLedger(engine.client, engine.table), records: new DynamoRecords(engine), engine };
}

/** Sets a month's count through the port, its reservations kept (a test's starting point: "999 counted"). */
export function setTotal(ledger: LedgerPort, ranchId: string, yearmo: string, total: number): Promise<void> {
  return ledger.updateMonth(ranchId, yearmo, (state) => ({ next: { ...state, total, version: state.version + 1 }, result: undefined }));
}

/**
 * The photos on the DynamoDB ledger (src/ledger/dynamo.ts defines their items): the form a ranch
 * has each photo in, how a count writes its photo's item, and the upgrade of a copy by its
 * original — the effect of src/ledger/port.ts's `countedPhoto` and `upgradedPhoto`, as update
 * expressions, so that no count reads a photo's item first.
 */
import { TransactWriteItemsCommand } from '@aws-sdk/client-dynamodb';
import type { AttributeValue, TransactWriteItem, Update } from '@aws-sdk/client-dynamodb';
import {
  batchGet,
  cancellationReasons,
  FIRST_DECISION,
  getItem,
  isConflict,
  keyAttributes,
  LEDGER_TABLE,
  ledgerKeys,
  objectDecisionOf,
  s,
  type LedgerTable,
} from './dynamo-table';
import { checksumText, type CountedObject, type PhotoForm, type PhotoUpgrade, type UpgradeOutcome } from './port';

/** A photo item's form: `copy` only when it says so; an item from before forms has none and is an original. */
export function photoFormOf(item: Record<string, AttributeValue> | undefined): PhotoForm {
  return item?.['form']?.S === 'copy' ? 'copy' : 'original';
}

/** The condition under which a copy's count may write its photo's form: the item is new, or a copy's. */
export const COPY_PHOTO_CONDITION = 'attribute_not_exists(#pk) OR #form = :copy';

/**
 * The update of a photo's item by a count (one item of the count's transaction): `key` and `at`
 * become the object's, and the object's key is kept as the photo's first copy or first original.
 * An original makes the photo `original`, whatever it was. A copy makes a new item, or a copy's,
 * `copy`, on the condition that it is not an original's (COPY_PHOTO_CONDITION) — and when it was
 * (`heldOriginal`: the condition failed once; an original never goes back), leaves the form alone.
 */
export function photoCountUpdate(tableName: string, object: CountedObject & { fingerprint: string }, heldOriginal: boolean): Update {
  const names: Record<string, string> = { '#key': 'key', '#at': 'at', '#first': object.form === 'copy' ? 'copy_key' : 'original_key', '#checksum': 'checksum' };
  const values: Record<string, AttributeValue> = { ':key': s(`${object.bucket}/${object.key}`), ':at': s(object.at) };
  const sets = ['#key = :key', '#at = :at', '#first = if_not_exists(#first, :key)'];
  // The checksum goes with `key` (port.ts countedPhoto): the object's, or none.
  if (object.checksum) {
    values[':checksum'] = s(checksumText(object.checksum));
    sets.push('#checksum = :checksum');
  }
  const remove = object.checksum ? '' : ' REMOVE #checksum';
  const update = { TableName: tableName, Key: keyAttributes(ledgerKeys.photo(object.ranchId, object.fingerprint)) };
  if (object.form === 'copy' && heldOriginal) {
    return { ...update, UpdateExpression: `SET ${sets.join(', ')}${remove}`, ExpressionAttributeNames: names, ExpressionAttributeValues: values };
  }
  names['#form'] = 'form';
  values[object.form === 'copy' ? ':copy' : ':original'] = s(object.form);
  const setForm = object.form === 'copy' ? '#form = :copy' : '#form = :original';
  const expression = { UpdateExpression: `SET ${[setForm, ...sets].join(', ')}${remove}`, ExpressionAttributeValues: values };
  if (object.form === 'original') return { ...update, ...expression, ExpressionAttributeNames: names };
  return { ...update, ...expression, ConditionExpression: COPY_PHOTO_CONDITION, ExpressionAttributeNames: { ...names, '#pk': LEDGER_TABLE.partitionKey } };
}

/** LedgerPort.photoForms: the photos' items, read consistently (the object-created function decides by them). */
export async function photoForms(table: LedgerTable, ranchId: string, fingerprints: readonly string[]): Promise<Map<string, PhotoForm>> {
  const items = await batchGet(
    table,
    fingerprints.map((fp) => ledgerKeys.photo(ranchId, fp)),
    ['form'],
    true,
  );
  const forms = new Map<string, PhotoForm>();
  for (const item of items) {
    const sk = item[LEDGER_TABLE.sortKey]?.S ?? '';
    if (sk.startsWith('PHOTO#')) forms.set(sk.slice('PHOTO#'.length), photoFormOf(item));
  }
  return forms;
}

/**
 * The upgrade's transaction: the object decided (its item new, naming the photo it upgraded) and
 * the photo's item from `copy` to `original` (it must be a copy's), naming the original. Pure.
 */
export function upgradeItems(tableName: string, upgrade: PhotoUpgrade): TransactWriteItem[] {
  const objectKey = `${upgrade.bucket}/${upgrade.key}`;
  return [
    {
      Put: {
        TableName: tableName,
        Item: {
          ...keyAttributes(ledgerKeys.object(upgrade.bucket, upgrade.key)),
          ranchid: s(upgrade.ranchId),
          yearmo: s(upgrade.yearmo),
          at: s(upgrade.at),
          upgraded: s(upgrade.fingerprint),
          ...(upgrade.checksum ? { checksum: s(checksumText(upgrade.checksum)) } : {}),
        },
        ...FIRST_DECISION,
      },
    },
    {
      Update: {
        TableName: tableName,
        Key: keyAttributes(ledgerKeys.photo(upgrade.ranchId, upgrade.fingerprint)),
        UpdateExpression: 'SET #form = :original, #original = :key, #upgraded = :at',
        ConditionExpression: '#form = :copy',
        ExpressionAttributeNames: { '#form': 'form', '#original': 'original_key', '#upgraded': 'upgraded_at' },
        ExpressionAttributeValues: { ':original': s('original'), ':copy': s('copy'), ':key': s(objectKey), ':at': s(upgrade.at) },
      },
    },
  ];
}

/**
 * LedgerPort.upgradePhoto: one transaction, tried again after a conflict. Cancelled because the
 * object was decided → `duplicate` (`not-a-copy` when it was refused); because the photo is not a
 * copy's (an original's, or none) → `not-a-copy`.
 */
export async function upgradePhoto(table: LedgerTable, upgrade: PhotoUpgrade): Promise<UpgradeOutcome> {
  const started = table.now();
  for (let attempt = 0; ; attempt++) {
    try {
      await table.client.send(new TransactWriteItemsCommand({ TransactItems: upgradeItems(table.name, upgrade) }));
      return 'upgraded';
    } catch (error) {
      const reasons = cancellationReasons(error);
      if (reasons?.[0]?.Code === 'ConditionalCheckFailed') {
        const decided = objectDecisionOf(await getItem(table, ledgerKeys.object(upgrade.bucket, upgrade.key)));
        if (decided === 'refused') return 'not-a-copy';
        if (decided !== null) return 'duplicate';
        // Gone since (a refused object's record outlived): decided again.
      } else if (reasons?.[1]?.Code === 'ConditionalCheckFailed') {
        return 'not-a-copy';
      } else if (!isConflict(error, reasons)) {
        throw error;
      }
      if (!table.mayRetry(started, attempt)) throw error;
      await table.backoff(attempt);
    }
  }
}

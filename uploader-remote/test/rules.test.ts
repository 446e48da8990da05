import {
  activeSubscription,
  allowanceFrom,
  monthlyLimit,
  remainingOf,
  remainingUploads,
  uploadedThisMonth,
  usedOf,
  withSuccesses,
  countingMonth,
  type AllowanceInputs,
} from '../src/features/upload/model/quota';
import { ranchUploadCeiling } from '@trailsense/shared/quota';
import {
  allowanceUnknownMessage,
  NO_SUBSCRIPTION_MESSAGE,
  resumeOfferMessage,
  overAllowanceQuestion,
  progressAnnouncement,
  progressLabel,
  quotaMessage,
  skippedNotice,
  storageErrorMessage,
  subscriptionErrorMessage,
  subscriptionMessage,
} from '../src/features/upload/model/messages';
import { parseConcurrency, parseStallMs, DEFAULT_CONCURRENCY } from '../src/features/upload/model/concurrency';

const now = new Date('2026-11-22T12:00:00Z');

describe('activeSubscription', () => {
  it('is the entitlement whose expires_date is in the future', () => {
    expect(activeSubscription({ premium: { expires_date: '2027-06-30T23:59:59Z' } }, now)).toEqual({
      level: 'premium',
      expiresDate: new Date('2027-06-30T23:59:59Z'),
    });
  });
  it('is null when every entitlement has expired', () => {
    expect(activeSubscription({ premium: { expires_date: '2026-10-15T12:00:00Z' } }, now)).toBeNull();
  });
  it('is null with no entitlements or unreadable dates', () => {
    expect(activeSubscription(undefined, now)).toBeNull();
    expect(activeSubscription({ premium: { expires_date: 'soon' } }, now)).toBeNull();
  });
});

describe('monthlyLimit', () => {
  it('is 1,000 when the ranch max is 0 and there is no active subscription', () => expect(monthlyLimit(0, false)).toBe(1000));
  it('is the ranch max otherwise', () => {
    expect(monthlyLimit(10_000, true)).toBe(10_000);
    expect(monthlyLimit(500, false)).toBe(500);
    expect(monthlyLimit(0, true)).toBe(0);
  });
  it('is never looser than the ceiling the server enforces for the ranch', () => {
    for (const max of [0, 1, 500, 1000, 10_000]) {
      for (const subscribed of [false, true]) expect(monthlyLimit(max, subscribed)).toBeLessThanOrEqual(ranchUploadCeiling(max));
    }
    expect(ranchUploadCeiling(0)).toBe(1000);
    expect(ranchUploadCeiling(10_000)).toBe(10_000);
  });
});

describe('uploadedThisMonth and remainingUploads', () => {
  it('counts an empty total as 0', () => expect(uploadedThisMonth('')).toBe(0));
  it('reads a numeric total', () => expect(uploadedThisMonth('985')).toBe(985));
  it('never takes an unreadable total for 0', () => {
    expect(uploadedThisMonth('n/a')).toBeNull();
    expect(uploadedThisMonth('12.5')).toBeNull();
  });
  it('subtracts, never below 0', () => {
    expect(remainingUploads(1000, 985)).toBe(15);
    expect(remainingUploads(1000, 1200)).toBe(0);
  });
});

describe('allowanceFrom', () => {
  const inputs = (over: Partial<AllowanceInputs> = {}): AllowanceInputs => ({ ranchMax: 0, subscribed: false, total: '985', totalRequestedAt: 1_000, ...over });
  it('combines the ranch, the subscription and the month into the allowance', () => {
    const a = allowanceFrom(inputs(), []);
    expect(a).toEqual({ kind: 'known', limit: 1000, counted: 985, countedFrom: 1_000, since: 0, held: 0 });
    expect(remainingOf(a)).toBe(15);
  });
  it('never shows more than the ceiling the server says it enforces, and ignores one it cannot read', () => {
    expect(allowanceFrom(inputs({ ranchMax: 5_000, total: '10', ceiling: 2_500 }), [])).toMatchObject({ kind: 'known', limit: 2_500 });
    expect(allowanceFrom(inputs({ ranchMax: 500, total: '10', ceiling: 2_500 }), [])).toMatchObject({ kind: 'known', limit: 500 });
    expect(allowanceFrom(inputs({ ranchMax: 500, total: '10', ceiling: Number.NaN }), [])).toMatchObject({ kind: 'known', limit: 500 });
    expect(allowanceFrom(inputs({ ranchMax: 500, total: '10', ceiling: -1 }), [])).toMatchObject({ kind: 'known', limit: 500 });
  });
  it('is loading until every fetch it needs has answered', () => {
    expect(allowanceFrom(inputs({ total: undefined }), []).kind).toBe('loading');
    expect(allowanceFrom(inputs({ ranchMax: undefined }), []).kind).toBe('loading');
    expect(allowanceFrom(inputs({ subscribed: undefined }), []).kind).toBe('loading');
    // A ranch with its own max does not need the subscription.
    expect(allowanceFrom(inputs({ ranchMax: 10_000, subscribed: undefined }), []).kind).toBe('known');
  });
  it('fails closed: a failed usage or ranch fetch makes it unknown, never 0 used', () => {
    expect(allowanceFrom(inputs({ total: new Error('Network Error') }), [])).toEqual({ kind: 'unknown', reason: 'Network Error' });
    expect(allowanceFrom(inputs({ ranchMax: new Error('Request failed with status 503') }), [])).toEqual({
      kind: 'unknown',
      reason: 'Request failed with status 503',
    });
    expect(remainingOf(allowanceFrom(inputs({ total: new Error('x') }), []))).toBeNull();
    expect(allowanceFrom(inputs({ total: 'n/a' }), []).kind).toBe('unknown');
  });
  it('a failed subscription fetch matters only when the limit depends on it', () => {
    expect(allowanceFrom(inputs({ subscribed: new Error('boom') }), []).kind).toBe('unknown');
    expect(allowanceFrom(inputs({ ranchMax: 10_000, subscribed: new Error('boom') }), [])).toMatchObject({ kind: 'known', limit: 10_000 });
  });
  it('subtracts the successes since the usage request was sent', () => {
    const a = allowanceFrom(inputs({ totalRequestedAt: 1_000 }), [500, 1_000, 1_001, 1_500]);
    expect(a).toMatchObject({ since: 2 });
    expect(remainingOf(a)).toBe(13);
  });
});

describe('withSuccesses and usedOf', () => {
  it('subtracts successes at once, so a second batch before the refetch cannot overdraw', () => {
    let a = allowanceFrom({ ranchMax: 0, subscribed: false, total: '985', totalRequestedAt: 1_000 }, []);
    a = withSuccesses(a, 2_000, 15);
    expect(remainingOf(a)).toBe(0);
    expect(a.kind === 'known' && usedOf(a)).toBe(1000);
  });
  it('ignores successes the fetched total already counts', () => {
    const a = allowanceFrom({ ranchMax: 0, subscribed: false, total: '985', totalRequestedAt: 1_000 }, []);
    expect(withSuccesses(a, 999, 1)).toBe(a);
  });
  it('changes nothing while unknown', () => {
    const unknown = { kind: 'unknown' as const, reason: 'x' };
    expect(withSuccesses(unknown, 5, 1)).toBe(unknown);
  });
});

describe('countingMonth', () => {
  it('is YYYY_MM with a zero-padded month', () => expect(countingMonth(new Date(2026, 2, 5))).toBe('2026_03'));
});

describe('messages', () => {
  it('subscriptionMessage names the level and expiry date', () =>
    expect(subscriptionMessage({ level: 'premium', expiresDate: new Date('2027-06-30T23:59:59Z') })).toBe(
      'Your active subscription level is premium which expires on June 30, 2027',
    ));
  it('subscriptionMessage without a subscription is the documented text', () => {
    expect(subscriptionMessage(null)).toBe(NO_SUBSCRIPTION_MESSAGE);
    expect(NO_SUBSCRIPTION_MESSAGE).toBe(
      'You do not have an active subscription. You are limited to 1,000 images per month. Please subscribe to allow for more uploads.',
    );
  });
  it('quotaMessage uses thousands separators', () =>
    expect(quotaMessage(1234, 10_000, 8766)).toBe('You have uploaded 1,234 images of your monthly limit of 10,000 images. You have 8,766 remaining.'));
  it('progressLabel is X of Y = Z%', () => {
    expect(progressLabel(15, 20)).toBe('Overall Progress: 15 of 20 = 75%');
    expect(progressLabel(0, 0)).toBe('Overall Progress: 0 of 0 = 0%');
    expect(progressLabel(1, 3)).toBe('Overall Progress: 1 of 3 = 33%');
    expect(progressLabel(2500, 10_000)).toBe('Overall Progress: 2,500 of 10,000 = 25%');
  });
  it('error texts follow docs/uploader.md#uploader-messages', () => {
    expect(subscriptionErrorMessage('Network Error')).toBe('Problem with subscription retrieval: Network Error');
    expect(storageErrorMessage('Access Denied')).toBe('Problem with Storage.put operation: Access Denied');
  });
  it('overAllowanceQuestion asks to upload only the remaining count', () =>
    expect(overAllowanceQuestion(15, 20)).toBe(
      'You cannot upload more images than your remaining limit of 15. You have 20 images in the list. Do you want to upload only the remaining 15 images?',
    ));
  it('skippedNotice groups every skipped file into one notice', () => {
    expect(skippedNotice([])).toBeNull();
    expect(
      skippedNotice([
        { name: 'a.mp4', reason: 'not-jpeg' },
        { name: 'b.jpg', reason: 'empty' },
        { name: 'c.jpg', reason: 'duplicate' },
      ]),
    ).toBe('3 files skipped: a.mp4 (not a JPEG image), b.jpg (empty file), c.jpg (already in the list).');
    expect(skippedNotice([{ name: 'big.jpg', reason: 'too-large' }])).toBe('1 file skipped: big.jpg (larger than 50 MB).');
  });
  it('skippedNotice names at most 10 and counts the rest', () => {
    const many = Array.from({ length: 1500 }, (_, i) => ({ name: `Thumbs${i}.db`, reason: 'not-jpeg' as const }));
    const text = skippedNotice(many)!;
    expect(text.startsWith('1,500 files skipped: Thumbs0.db (not a JPEG image),')).toBe(true);
    expect(text.endsWith('and 1,490 more.')).toBe(true);
  });
  it('progressAnnouncement speaks at start, milestones and end', () => {
    expect(progressAnnouncement({ kind: 'started', files: 40 })).toBe('Uploading 40 images.');
    expect(progressAnnouncement({ kind: 'milestone', uploaded: 10, total: 40 })).toBe('25% uploaded: 10 of 40.');
    expect(progressAnnouncement({ kind: 'ended', uploaded: 38, failed: 2, stopped: false })).toBe('Upload finished. 38 uploaded. 2 failed.');
    expect(progressAnnouncement({ kind: 'ended', uploaded: 3, failed: 0, stopped: true })).toBe('Upload stopped. 3 uploaded.');
  });
});

describe('resume and allowance messages', () => {
  it('says how far an unfinished batch got and what to do', () =>
    expect(resumeOfferMessage(412, 2000, new Date(2026, 10, 21, 22, 30))).toBe('412 of 2,000 uploaded on Nov 21 — pick the same card to finish.'));
  it('says why Upload is off while the allowance is unknown', () =>
    expect(allowanceUnknownMessage('Network Error')).toMatch(/^Your monthly upload allowance could not be checked \(Network Error\)/));
  it('counts photos already uploaded instead of naming them', () => {
    const skipped = [
      ...Array.from({ length: 9000 }, (_, i) => ({ name: `IMG_${i}.JPG`, reason: 'already-uploaded' as const })),
      { name: 'clip.mp4', reason: 'not-jpeg' as const },
    ];
    expect(skippedNotice(skipped)).toBe('9,001 files skipped: 9,000 already uploaded, clip.mp4 (not a JPEG image).');
  });
});

describe('skippedNotice with videos and hidden or system files', () => {
  const many = (n: number, reason: 'video' | 'hidden' | 'already-uploaded' | 'not-jpeg', name = (i: number) => `f${i}`) =>
    Array.from({ length: n }, (_, i) => ({ name: name(i), reason }));
  it('counts videos instead of naming them', () => {
    expect(skippedNotice(many(1, 'video'))).toBe('1 file skipped: 1 video.');
    expect(skippedNotice(many(340, 'video'))).toBe('340 files skipped: 340 videos.');
  });
  it('counts hidden and system files and never names them', () => {
    const text = skippedNotice([...many(3, 'hidden', () => '.DS_Store'), ...many(2, 'hidden', () => 'Thumbs.db')])!;
    expect(text).toBe('5 files skipped: 5 hidden or system files.');
    expect(text).not.toMatch(/DS_Store|Thumbs/);
    expect(skippedNotice(many(1, 'hidden'))).toBe('1 file skipped: 1 hidden or system file.');
  });
  it('gives the counts first, in a fixed order, then the named files', () => {
    const skipped = [
      { name: 'notes.txt', reason: 'not-jpeg' as const },
      ...many(2, 'hidden'),
      ...many(3, 'video'),
      ...many(2000, 'already-uploaded'),
      { name: 'empty.jpg', reason: 'empty' as const },
    ];
    expect(skippedNotice(skipped)).toBe(
      '2,007 files skipped: 2,000 already uploaded, 3 videos, 2 hidden or system files, notes.txt (not a JPEG image), empty.jpg (empty file).',
    );
  });
  it('counted files take none of the named places', () => {
    const skipped = [...many(5000, 'hidden'), ...many(12, 'not-jpeg', (i) => `n${i}.txt`), ...many(7, 'video')];
    expect(skippedNotice(skipped)).toBe(
      '5,019 files skipped: 7 videos, 5,000 hidden or system files, n0.txt (not a JPEG image), n1.txt (not a JPEG image), n2.txt (not a JPEG image), n3.txt (not a JPEG image), n4.txt (not a JPEG image), n5.txt (not a JPEG image), n6.txt (not a JPEG image), n7.txt (not a JPEG image), n8.txt (not a JPEG image), n9.txt (not a JPEG image) and 2 more.',
    );
  });
  it('a card with a video, an empty file, a copy and a fake reads as one notice', () =>
    expect(
      skippedNotice([
        { name: 'IMG_0026.MP4', reason: 'video' },
        { name: 'empty.jpg', reason: 'empty' },
        { name: 'IMG_0001.JPG', reason: 'duplicate' },
        { name: 'fake.jpg', reason: 'not-jpeg' },
      ]),
    ).toBe('4 files skipped: 1 video, empty.jpg (empty file), IMG_0001.JPG (already in the list), fake.jpg (not a JPEG image).'));
});

describe('parseStallMs', () => {
  it('takes whole seconds from 5 to 600', () => {
    expect(parseStallMs('5', 60_000)).toBe(5_000);
    expect(parseStallMs('600', 60_000)).toBe(600_000);
  });
  it('falls back otherwise', () => {
    for (const v of [null, '', '4', '601', 'x', '1.5']) expect(parseStallMs(v, 60_000)).toBe(60_000);
  });
});

describe('parseConcurrency', () => {
  it('takes a whole number from 1 to 16', () => {
    expect(parseConcurrency('1')).toBe(1);
    expect(parseConcurrency('6')).toBe(6);
  });
  it('falls back to the default otherwise', () => {
    for (const v of [null, '', '0', '17', 'abc', '2.5']) expect(parseConcurrency(v)).toBe(DEFAULT_CONCURRENCY);
  });
});

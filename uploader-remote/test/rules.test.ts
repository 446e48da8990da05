import { activeSubscription, monthlyLimit, quotaFrom, remainingUploads, uploadedThisMonth, yearMonth } from '../src/features/upload/model/quota';
import {
  NO_SUBSCRIPTION_MESSAGE,
  overAllowanceQuestion,
  progressAnnouncement,
  progressLabel,
  quotaMessage,
  skippedNotice,
  storageErrorMessage,
  subscriptionErrorMessage,
  subscriptionMessage,
} from '../src/features/upload/model/messages';
import { parseConcurrency, DEFAULT_CONCURRENCY } from '../src/features/upload/model/concurrency';
import { visibleRange } from '../src/features/upload/components/virtual-range';

const now = new Date('2026-11-22T12:00:00Z');

describe('activeSubscription', () => {
  it('is the entitlement whose expires_date is in the future', () => {
    expect(activeSubscription({ premium: { expires_date: '2027-06-30T23:59:59Z' } }, now)).toEqual({ level: 'premium', expiresDate: new Date('2027-06-30T23:59:59Z') });
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
});

describe('uploadedThisMonth and remainingUploads', () => {
  it('counts an empty total as 0', () => expect(uploadedThisMonth('')).toBe(0));
  it('reads a numeric total', () => expect(uploadedThisMonth('985')).toBe(985));
  it('subtracts, never below 0', () => {
    expect(remainingUploads(1000, 985)).toBe(15);
    expect(remainingUploads(1000, 1200)).toBe(0);
  });
  it('combines into the quota', () => expect(quotaFrom({ maxMonthlyUploads: 0, subscribed: false, total: '985' })).toEqual({ kind: 'known', uploaded: 985, limit: 1000, remaining: 15 }));
});

describe('yearMonth', () => {
  it('is YYYY_MM with a zero-padded month', () => expect(yearMonth(new Date(2026, 2, 5))).toBe('2026_03'));
});

describe('messages', () => {
  it('subscriptionMessage names the level and expiry date', () =>
    expect(subscriptionMessage({ level: 'premium', expiresDate: new Date('2027-06-30T23:59:59Z') })).toBe(
      'Your active subscription level is premium which expires on June 30, 2027',
    ));
  it('subscriptionMessage without a subscription is the SPEC text', () => {
    expect(subscriptionMessage(null)).toBe(NO_SUBSCRIPTION_MESSAGE);
    expect(NO_SUBSCRIPTION_MESSAGE).toBe('You do not have an active subscription. You are limited to 1,000 images per month. Please subscribe to allow for more uploads.');
  });
  it('quotaMessage uses thousands separators', () =>
    expect(quotaMessage(1234, 10_000, 8766)).toBe('You have uploaded 1,234 images of your monthly limit of 10,000 images. You have 8,766 remaining.'));
  it('progressLabel is X of Y = Z%', () => {
    expect(progressLabel(15, 20)).toBe('Overall Progress: 15 of 20 = 75%');
    expect(progressLabel(0, 0)).toBe('Overall Progress: 0 of 0 = 0%');
    expect(progressLabel(1, 3)).toBe('Overall Progress: 1 of 3 = 33%');
    expect(progressLabel(2500, 10_000)).toBe('Overall Progress: 2,500 of 10,000 = 25%');
  });
  it('error texts follow SPEC §8', () => {
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

describe('parseConcurrency', () => {
  it('takes a whole number from 1 to 16', () => {
    expect(parseConcurrency('1')).toBe(1);
    expect(parseConcurrency('6')).toBe(6);
  });
  it('falls back to the default otherwise', () => {
    for (const v of [null, '', '0', '17', 'abc', '2.5']) expect(parseConcurrency(v)).toBe(DEFAULT_CONCURRENCY);
  });
});

describe('visibleRange', () => {
  it('renders the rows in view plus the overscan', () => {
    expect(visibleRange({ scrollTop: 0, viewportHeight: 336, rowHeight: 56, count: 10_000, overscan: 6 })).toEqual({ start: 0, end: 13 });
    expect(visibleRange({ scrollTop: 56 * 5000, viewportHeight: 336, rowHeight: 56, count: 10_000, overscan: 6 })).toEqual({ start: 4994, end: 5013 });
  });
  it('never passes the end of the list', () => {
    expect(visibleRange({ scrollTop: 56 * 9999, viewportHeight: 336, rowHeight: 56, count: 10_000, overscan: 6 }).end).toBe(10_000);
    expect(visibleRange({ scrollTop: 0, viewportHeight: 336, rowHeight: 56, count: 0, overscan: 6 })).toEqual({ start: 0, end: 0 });
  });
});

import { formatBytes, UNKNOWN_SIZE } from '../src/features/upload/model/format-size';

const KB = 1024;
const MB = 1024 * KB;
const GB = 1024 * MB;
const TB = 1024 * GB;

describe('formatBytes', () => {
  it('shows bytes below 1 KB', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(1)).toBe('1 B');
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(1023)).toBe('1,023 B');
  });
  it('shows whole KB from 1 KB', () => {
    expect(formatBytes(1024)).toBe('1 KB');
    expect(formatBytes(40 * KB)).toBe('40 KB');
    expect(formatBytes(320 * KB + 100)).toBe('320 KB');
    expect(formatBytes(1023 * KB)).toBe('1,023 KB');
  });
  it('rolls over to the next unit instead of printing 1024 of one', () => {
    expect(formatBytes(1023.6)).toBe('1 KB');
    expect(formatBytes(1023.96 * KB)).toBe('1.0 MB');
    expect(formatBytes(1023.5 * KB)).toBe('1.0 MB');
    expect(formatBytes(1023.96 * MB)).toBe('1.0 GB');
    expect(formatBytes(1023.96 * GB)).toBe('1.0 TB');
  });
  it('shows MB, GB and TB with one decimal, never 0.0', () => {
    expect(formatBytes(MB)).toBe('1.0 MB');
    expect(formatBytes(4.2 * MB)).toBe('4.2 MB');
    expect(formatBytes(6.2 * GB)).toBe('6.2 GB');
    expect(formatBytes(1.1 * TB)).toBe('1.1 TB');
    expect(formatBytes(1536 * TB)).toBe('1,536.0 TB');
  });
  it('reads an unknown size as a dash', () => {
    expect(formatBytes(-1)).toBe(UNKNOWN_SIZE);
    expect(formatBytes(Number.NaN)).toBe('—');
    expect(formatBytes(Number.POSITIVE_INFINITY)).toBe('—');
  });
});

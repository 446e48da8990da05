/**
 * How the uploader treats a photo S3 received damaged (model/retry.ts): S3's 400 BadDigest says
 * the bytes changed on the way (its CRC32 of what it received is not the browser's of the file),
 * not that the photo is wrong, and nothing was stored; so it is sent again as a network failure
 * is, and a photo that arrives damaged every time fails with a message in the member's words.
 */
import { ARRIVED_DAMAGED } from '../src/features/upload/model/messages';
import { classifyUploadError } from '../src/features/upload/model/retry';

/** What Amplify's S3 client throws for an S3 error answer: the error's Code as its name, the HTTP status in $metadata. */
const s3Error = (code: string, message: string, status: number) => Object.assign(new Error(message), { name: code, $metadata: { httpStatusCode: status } });

describe('classifyUploadError', () => {
  it('sends a photo S3 received damaged again (400 BadDigest): transient, in the member’s words', () => {
    expect(classifyUploadError(s3Error('BadDigest', 'The CRC32 you specified did not match the calculated checksum.', 400))).toEqual({
      kind: 'transient',
      message: ARRIVED_DAMAGED,
    });
  });
  it('does the same for a damaged part or a multipart completion (S3 words them otherwise)', () => {
    expect(classifyUploadError(s3Error('BadDigest', 'The crc32 you specified did not match the calculated checksum.', 400)).kind).toBe('transient');
    expect(classifyUploadError(s3Error('BadDigest', 'The Content-MD5 you specified did not match what we received.', 400)).kind).toBe('transient');
  });
  it('still reports what the same bytes would meet again at once: a malformed checksum or Content-MD5', () => {
    expect(classifyUploadError(s3Error('InvalidRequest', 'Value for x-amz-checksum-crc32 header is invalid.', 400))).toEqual({
      kind: 'permanent',
      message: 'Value for x-amz-checksum-crc32 header is invalid.',
    });
    expect(classifyUploadError(s3Error('InvalidDigest', 'The Content-MD5 you specified was invalid.', 400)).kind).toBe('permanent');
  });
});

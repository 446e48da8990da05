import { amplifyUpload, loadStorage, type UploadTarget } from '../src/features/upload/services/upload/amplify-storage';
import type { UploadJob } from '../src/features/upload/services/upload/upload-engine';

// Amplify's storage module as the page gets it: a chunk whose first download fails, then arrives.
let mockLoads = 0;
const mockUploadData = jest.fn();
jest.mock('aws-amplify/storage', () => {
  mockLoads += 1;
  if (mockLoads === 1) throw new Error('Loading chunk 938 failed');
  return { uploadData: mockUploadData };
});

const target: UploadTarget = { level: 'public', ranchId: 'cedar-creek', cameraName: '' };
const job: UploadJob = { id: 'a', key: 'IMG_0001.JPG', file: new Blob(['x']) };

describe('Amplify storage, loaded with the first upload', () => {
  it('tries a failed load again on the next use, then keeps the loaded module', async () => {
    await expect(loadStorage()).rejects.toThrow('Loading chunk 938 failed');
    const loaded = await loadStorage();
    expect(loaded.uploadData).toBe(mockUploadData);
    await loadStorage();
    expect(mockLoads).toBe(2);
  });

  it('rejects as a cancelled transfer, sending nothing, when the upload was stopped while the module loaded', async () => {
    const stop = new AbortController();
    stop.abort('stalled');
    await expect(amplifyUpload(target, job, { onProgress: () => {}, signal: stop.signal })).rejects.toBe('stalled');
    expect(mockUploadData).not.toHaveBeenCalled();
  });
});

describe('amplifyUpload', () => {
  const run = () => amplifyUpload(target, job, { onProgress: () => {}, signal: new AbortController().signal });

  it('never overwrites: every upload asks S3 for If-None-Match', async () => {
    mockUploadData.mockReturnValueOnce({ result: Promise.resolve({}), cancel: jest.fn() });
    await run();
    expect(mockUploadData).toHaveBeenLastCalledWith(expect.objectContaining({ options: expect.objectContaining({ preventOverwrite: true }) }));
  });

  it("reads S3's 412 (the key holds this photo from an earlier attempt) as uploaded, and any other refusal as a failure", async () => {
    const preconditionFailed = Object.assign(new Error('At least one of the pre-conditions you specified did not hold'), {
      name: 'PreconditionFailed',
      $metadata: { httpStatusCode: 412 },
    });
    mockUploadData.mockReturnValueOnce({ result: Promise.reject(preconditionFailed), cancel: jest.fn() });
    await expect(run()).resolves.toBeUndefined();
    const denied = Object.assign(new Error('Access Denied'), { name: 'AccessDenied', $metadata: { httpStatusCode: 403 } });
    mockUploadData.mockReturnValueOnce({ result: Promise.reject(denied), cancel: jest.fn() });
    await expect(run()).rejects.toBe(denied);
  });
});

/**
 * An S3 emulator for the deploy tests: s3rver (the sandbox's S3, sandbox/src/s3.ts), as its own
 * process (s3rver-process.cjs: an object is replaced whole, at once, as S3 does) on an ephemeral
 * loopback port with one empty bucket, path-style, storing objects in a temporary folder. Its own
 * process rather than the sandbox's S3 piece: that piece runs the upload bucket's object-created
 * function on every new object, and the tests need a plain hosting bucket. s3rver answers GET and
 * HEAD with the Content-Type and Cache-Control an object was put with, so a browser can load a site
 * from it.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface S3Emulator {
  /** `http://127.0.0.1:<port>`. */
  endpoint: string;
  bucket: string;
  /** A bucket object's URL (path-style). */
  url(key: string): string;
  /**
   * Whether an upload of `key` is under way: its body streams into a file of its own in the
   * uploads directory (s3rver-process.cjs), opened only after a conditional write registered itself
   * as in progress (patches/@20minutes+s3rver+4.0.4.patch). Read only: looking changes nothing.
   */
  storing(key: string): boolean;
  /**
   * Copies every object under the prefix `from` to the prefix `to` (both ending in `/`; `to`
   * empty), metadata and all, on the emulator's disk: what a test would otherwise set up again by
   * deploying the same release over and over, without its requests. Only while nothing writes
   * under `from`.
   */
  copyPrefix(from: string, to: string): void;
  stop(): Promise<void>;
}

/** s3rver's own key pair, which it accepts. */
export const S3RVER_KEYS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

/**
 * The deploy options (infra/src/deploy/deploy.ts DeployOptions) that aim a deploy at the
 * emulator's bucket under `prefix`, with the command's defaults: 2 releases kept, not a dry run.
 */
export function emulatorDeploy(s3: S3Emulator, prefix = '') {
  return { target: { bucket: s3.bucket, prefix }, endpoint: s3.endpoint, region: 'us-east-1', credentials: S3RVER_KEYS, keep: 2, dryRun: false };
}

export async function startS3Emulator(bucket = 'hosting'): Promise<S3Emulator> {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'trailsense-deploy-s3-'));
  // The objects, and the uploads under way beside them: on the same file system, as each takes
  // its key's place by a rename.
  const [directory, uploads] = [path.join(base, 'objects'), path.join(base, 'uploads')];
  const child = spawn(
    process.execPath,
    [
      path.join(__dirname, 's3rver-process.cjs'),
      require.resolve('@20minutes/s3rver/lib/cli'),
      uploads,
      '--directory',
      directory,
      '--address',
      '127.0.0.1',
      '--port',
      '0',
      '--no-vhost-buckets',
      '--configure-bucket',
      bucket,
    ],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  const port = await new Promise<number>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /S3rver listening on [\d.]+:(\d+)/.exec(output);
      if (match) resolve(Number(match[1]));
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => reject(new Error(`s3rver exited (${code}) before listening:\n${output}`)));
    child.once('error', reject);
  });
  // Its request log is not wanted; keep the pipes drained.
  child.stdout.resume();
  child.stderr.resume();
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint,
    bucket,
    url: (key) => `${endpoint}/${bucket}/${key}`,
    copyPrefix: (from, to) => {
      if (!/^[\w.-]+\/$/.test(from) || !/^[\w.-]+\/$/.test(to)) throw new Error(`copyPrefix: one-folder prefixes ending in / (got ${from} and ${to})`);
      const target = path.join(directory, bucket, to);
      if (fs.existsSync(target)) throw new Error(`copyPrefix: ${to} is not empty`);
      fs.cpSync(path.join(directory, bucket, from), target, { recursive: true });
    },
    storing: (key) => fs.readdirSync(uploads).some((name) => name.endsWith(`-${encodeURIComponent(`${bucket}/${key}`)}`)),
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill();
        await exited;
      }
      fs.rmSync(base, { recursive: true, force: true });
    },
  };
}

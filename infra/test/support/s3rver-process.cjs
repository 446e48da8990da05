// The S3 emulator's process (support/s3-emulator.ts starts it): s3rver's command line, patched for
// conditional writes (patches/@20minutes+s3rver+4.0.4.patch), with objects replaced as S3 replaces
// them: whole, at once.
//
//   node s3rver-process.cjs <s3rver's lib/cli.js> <uploads directory> <s3rver's arguments…>
//
// (The fork's package names a bin it does not ship, bin/s3rver.js; its command-line program is
// lib/cli.js, a commander program that the bin would run. Its path comes from the caller, which
// resolves the package as the sandbox has it: sandbox/package.json declares it.)
//
// s3rver's file store writes an object's file in place (truncated, then written as the body
// arrives) and a GET sizes its answer before it opens the file: a GET that meets a PUT of the same
// key sends fewer bytes than its Content-Length, and the client sees the connection cut
// (ECONNRESET "aborted") — the busier the machine, the more often (two deploys in 40 rounds of
// deploy-lock.test.ts's race with both cores busy). Here an upload goes to a file of its own in
// the uploads directory and takes the key's place in one rename, and the store's short steps — an
// upload's commit (rename, metadata), a delete, a copy, a GET up to the moment its file is open, a
// HEAD, a listing — run one at a time. A reader sees an object as it was before a write or after
// it, never during; an upload's body still streams alongside any other request.
const fs = require('node:fs');
const path = require('node:path');
const { AsyncLocalStorage } = require('node:async_hooks');

const [cliFile, uploads, ...args] = process.argv.slice(2);
const lib = path.dirname(cliFile);
const FilesystemStore = require(path.join(lib, 'stores', 'filesystem'));
const { ensureDir } = require(path.join(lib, 'utils'));
const cli = require(cliFile);

fs.mkdirSync(uploads, { recursive: true });

/** The name of an upload's file under way: its bucket and key, for S3Emulator.storing(). */
const uploadName = (count, bucket, key) => `${count}-${encodeURIComponent(`${bucket}/${key}`)}`;

// One step at a time; a step's own calls into the store (getObject reads the metadata) run inside it.
const inside = new AsyncLocalStorage();
let last = Promise.resolve();
function exclusive(step) {
  if (inside.getStore()) return step();
  const run = last.then(() => inside.run(true, step));
  last = run.catch(() => undefined);
  return run;
}

const store = FilesystemStore.prototype;
for (const name of ['getMetadata', 'existsObject', 'getObject', 'deleteObject', 'copyObject', 'listObjects']) {
  const original = store[name];
  store[name] = function (...params) {
    return exclusive(() => original.apply(this, params));
  };
}

let uploadCount = 0;
store.putObject = async function putObject(object) {
  const upload = path.join(uploads, uploadName(++uploadCount, object.bucket, object.key));
  const [size, md5] = await this.putContent(upload, object.content);
  return exclusive(async () => {
    const objectPath = this.getResourcePath(object.bucket, object.key, 'object');
    await ensureDir(path.dirname(objectPath));
    await fs.promises.rename(upload, objectPath);
    await this.putMetadata(object.bucket, object.key, object.metadata, md5);
    return { size, md5 };
  });
};

cli.parseAsync(args, { from: 'user' });

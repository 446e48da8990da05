// DynamoDB Local, Amazon's own DynamoDB engine (a Java program), for the tests and benchmarks.
// The build machines reach the npm registry and nothing else, and the registry's
// amplify-dynamodb-simulator package ships DynamoDB Local in its emulator/ folder (DynamoDBLocal.jar,
// DynamoDBLocal_lib/ with sqlite4java's native libraries). `install` takes that folder alone: it
// `npm pack`s the package version pinned in tools/dynamodb-local/package.json (never `npm install`:
// the package's own dependencies pull in the Amplify CLI core), checks the tarball against the
// pinned integrity and extracts package/emulator/ into tools/dynamodb-local/emulator/ (ignored by
// git). `npm install` runs it (postinstall); once installed it does nothing and prints nothing.
// `start` runs one, in memory, on a free port until Ctrl-C. Running it needs Java 17+ on PATH
// (Debian/Ubuntu: `apt-get install -y openjdk-17-jre-headless`; .ci/run installs it).
//
//   node scripts/dynamodb-local.mjs install   # the default command
//   node scripts/dynamodb-local.mjs start     # prints the endpoint, runs until Ctrl-C
//
//   import installDynamoDbLocal, { startDynamoDbLocal } from './dynamodb-local.mjs';
//   const dynamo = await startDynamoDbLocal(); // { endpoint, stop(), exited }
//
// The infra tests start one per jest run (infra/test/support/dynamodb-global-setup.cjs).
import { spawn, spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const TOOL = path.join(repo, 'tools', 'dynamodb-local');
const EMULATOR = path.join(TOOL, 'emulator');
const JAR = path.join(EMULATOR, 'DynamoDBLocal.jar');
/** Written last by `install`: the package and integrity the emulator came from (a new pin installs again). */
const STAMP = path.join(EMULATOR, '.installed-from');

const JAVA_MISSING =
  'DynamoDB Local needs Java 17 or newer and `java` is not on PATH: on Debian/Ubuntu install the openjdk-17-jre-headless package ' +
  '(as root: `apt-get install -y openjdk-17-jre-headless`)';
const NOT_INSTALLED = 'DynamoDB Local is not installed (no tools/dynamodb-local/emulator/DynamoDBLocal.jar): run `node scripts/dynamodb-local.mjs install`';

/** The pin: { package, version, integrity, engine } from tools/dynamodb-local/package.json. */
function pin() {
  return JSON.parse(fs.readFileSync(path.join(TOOL, 'package.json'), 'utf8')).dynamodbLocal;
}

/**
 * Installs DynamoDB Local into tools/dynamodb-local/emulator/ unless the pinned one is there.
 * Resolves to true when it installed, false when there was nothing to do. Its errors are one line.
 */
export default async function installDynamoDbLocal() {
  const { package: name, version, integrity, engine } = pin();
  const spec = `${name}@${version}`;
  const source = `${spec} ${integrity}`;
  if (fs.existsSync(JAR) && readStamp() === source) return false;

  console.log(`=== DynamoDB Local ${engine}: taking the emulator/ folder of ${spec} into tools/dynamodb-local/emulator/ (once)`);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'trailsense-dynamodb-local-'));
  try {
    const tarball = pack(spec, work);
    const actual = `sha512-${createHash('sha512').update(fs.readFileSync(tarball)).digest('base64')}`;
    if (actual !== integrity) {
      throw new Error(`${spec}: the tarball's integrity is ${actual}, not the ${integrity} pinned in tools/dynamodb-local/package.json; nothing installed`);
    }
    const untar = spawnSync('tar', ['-xzf', tarball, '-C', work, '--no-same-owner', 'package/emulator'], { encoding: 'utf8' });
    if (untar.error || untar.status !== 0) {
      throw new Error(`could not extract package/emulator/ from ${spec}: ${oneLine(untar.error?.message ?? untar.stderr)}`);
    }
    fs.rmSync(tarball);
    fs.rmSync(EMULATOR, { recursive: true, force: true });
    move(path.join(work, 'package', 'emulator'), EMULATOR);
    fs.writeFileSync(STAMP, `${source}\n`);
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
  return true;
}

function readStamp() {
  try {
    return fs.readFileSync(STAMP, 'utf8').trim();
  } catch {
    return null;
  }
}

/** `npm pack <spec>` into `destination` (the registry and npm's cache, as npm is configured): the tarball's path. */
function pack(spec, destination) {
  const args = ['pack', spec, '--pack-destination', destination, '--json', '--loglevel=error'];
  const result = spawnSync('npm', args, { cwd: repo, encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
  if (result.error) throw new Error(`could not run npm pack ${spec}: ${result.error.message}`);
  if (result.status !== 0) throw new Error(`npm pack ${spec} failed (exit ${result.status ?? result.signal}): ${oneLine(result.stderr)}`);
  let filename;
  try {
    filename = JSON.parse(result.stdout)[0]?.filename;
  } catch {
    filename = undefined;
  }
  const tarball = filename ? path.join(destination, filename) : null;
  if (!tarball || !fs.existsSync(tarball)) throw new Error(`npm pack ${spec} wrote no tarball`);
  return tarball;
}

/**
 * A command's error output as one line: its first two lines before any stack trace, without npm's
 * "npm error" prefix, its syscall/errno lines or the log-file pointer.
 */
function oneLine(text) {
  const lines = String(text ?? '')
    .split('\n')
    .map((line) => line.replace(/^npm (error|ERR!)\s*/, '').trim());
  const frame = lines.findIndex((line) => line.startsWith('at '));
  const kept = lines.slice(0, frame === -1 ? undefined : frame).filter((line) => line && !/^(syscall|errno) |complete log of this run/i.test(line));
  const joined = kept.slice(0, 2).join('; ');
  return joined.length > 400 ? `${joined.slice(0, 400)}…` : joined || 'no error output';
}

function move(from, to) {
  try {
    fs.renameSync(from, to);
  } catch (error) {
    if (error.code !== 'EXDEV') throw error;
    fs.cpSync(from, to, { recursive: true });
  }
}

/** How long a started JVM may take to answer its first request (CI allows 90 minutes in all). */
const START_BUDGET_MS = 10 * 60_000;

/** The port was taken between our check and the JVM's bind: worth one more try. */
class PortTaken extends Error {}

/**
 * Starts DynamoDB Local in memory (`-sharedDb`: one database whatever the credentials and region)
 * on a free port and resolves once it answers a DynamoDB request: `{ endpoint, stop, exited }`.
 * `stop()` ends the JVM and resolves once it has exited; `exited` settles when the JVM exits for
 * any reason (with its exit code or signal). A JVM still running when this process exits is killed.
 */
export async function startDynamoDbLocal() {
  if (!fs.existsSync(JAR)) throw new Error(NOT_INSTALLED);
  try {
    return await launch(await freePort());
  } catch (error) {
    if (!(error instanceof PortTaken)) throw error;
    return launch(await freePort());
  }
}

/**
 * A port free on every interface, as the JVM binds it: DynamoDB Local 1.25.1 has no option for
 * the address it listens on (`-help` lists `-port` alone), so Jetty listens on all interfaces and
 * cannot be kept to loopback; the endpoint handed out is loopback, and `-cors` (see launch) keeps
 * web pages from reading it. On a shared network, a firewall is what keeps others away while it runs.
 */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

async function launch(port) {
  // A random origin as its CORS allow-list: no web page may read it, and its answer to a request
  // from that origin (the header echoed) tells this JVM from any other server on the port.
  const origin = `http://dynamodb-local-${randomBytes(8).toString('hex')}.invalid`;
  const args = [
    `-Djava.library.path=${path.join(EMULATOR, 'DynamoDBLocal_lib')}`,
    '-jar',
    JAR,
    '-inMemory',
    '-sharedDb',
    '-port',
    String(port),
    '-disableTelemetry',
    '-cors',
    origin,
  ];
  const child = spawn('java', args, { cwd: EMULATOR, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const collect = (chunk) => (output = (output + chunk.toString()).slice(-8000));
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const killOnExit = () => child.kill('SIGKILL');
  process.on('exit', killOnExit);

  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));
  const failed = new Promise((_, reject) => {
    child.once('error', (error) => reject(error.code === 'ENOENT' ? new Error(JAVA_MISSING) : error));
    void exited.then((status) => reject(new Error(`DynamoDB Local exited (${status}) before it answered:\n${output.trim()}`)));
  });
  failed.catch(() => {});

  let stopping = null;
  const stop = () =>
    (stopping ??= (async () => {
      process.off('exit', killOnExit);
      if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) {
        const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
        child.kill('SIGTERM');
        await exited;
        clearTimeout(timer);
      }
    })());

  const endpoint = `http://127.0.0.1:${port}`;
  // A JVM that is up but slow to open Jetty (a 2-core machine with both cores held by other jobs
  // took over a minute) is waited for; the bound only ends a JVM that never answers.
  const deadline = Date.now() + START_BUDGET_MS;
  try {
    for (;;) {
      // Jetty reports a failed bind but the JVM keeps running.
      if (/BindException|Failed to bind/.test(output)) throw new PortTaken(`port ${port} was taken`);
      if (await Promise.race([answers(endpoint, origin), failed])) break;
      if (Date.now() > deadline) throw new Error(`DynamoDB Local did not answer on ${endpoint} within ${START_BUDGET_MS / 60_000} minutes:\n${output.trim()}`);
      await Promise.race([new Promise((resolve) => setTimeout(resolve, 100)), failed]);
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { endpoint, stop, exited };
}

/** Whether this JVM answers a ListTables (any credentials do; the signature is not checked). */
function answers(endpoint, origin) {
  return new Promise((resolve) => {
    const request = http.request(
      endpoint,
      {
        method: 'POST',
        agent: false,
        timeout: 2000,
        headers: {
          'content-type': 'application/x-amz-json-1.0',
          'x-amz-target': 'DynamoDB_20120810.ListTables',
          authorization: 'AWS4-HMAC-SHA256 Credential=local/20240101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0',
          origin,
        },
      },
      (response) => {
        response.resume();
        response.once('end', () => resolve(response.statusCode === 200 && response.headers['access-control-allow-origin'] === origin));
        response.once('error', () => resolve(false));
      },
    );
    request.once('timeout', () => request.destroy());
    request.once('error', () => resolve(false));
    request.end('{}');
  });
}

const invoked = process.argv[1] ? fs.realpathSync(process.argv[1]) === fileURLToPath(import.meta.url) : false;
if (invoked) {
  const command = process.argv[2] ?? 'install';
  try {
    if (command === 'install') {
      await installDynamoDbLocal();
    } else if (command === 'start') {
      const dynamo = await startDynamoDbLocal();
      console.error(`DynamoDB Local ${pin().engine}, in memory, one database for any credentials and region; Ctrl-C stops it`);
      console.log(dynamo.endpoint);
      let stopped = false;
      const onSignal = () => {
        stopped = true;
        void dynamo.stop().then(() => process.exit(0));
      };
      process.once('SIGINT', onSignal);
      process.once('SIGTERM', onSignal);
      const status = await dynamo.exited;
      if (!stopped) {
        console.error(`DynamoDB Local exited on its own (${status})`);
        process.exit(1);
      }
    } else {
      console.error('Usage: node scripts/dynamodb-local.mjs [install|start]');
      process.exit(2);
    }
  } catch (error) {
    console.error(`dynamodb-local: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
}

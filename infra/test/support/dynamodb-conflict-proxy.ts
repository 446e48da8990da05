/**
 * A conflict proxy: an HTTP proxy in front of DynamoDB Local that forwards every request byte for
 * byte, except the writes a test chooses, which it answers itself as DynamoDB answers a write that
 * met another transaction. DynamoDB Local runs one transaction at a time, so it never answers so;
 * behind this proxy the ledger's conflict and retry paths (src/ledger/dynamo-table.ts `isConflict`)
 * run against Amazon's engine and the real SDK's deserializer, not only against our fake.
 *
 * What DynamoDB answers (the API reference's TransactWriteItems and PutItem/UpdateItem/DeleteItem
 * errors; the developer guide's "Transaction conflict handling"):
 * - a TransactWriteItems with an item that is part of another ongoing transaction is cancelled:
 *   `TransactionCanceledException` with one reason per item of the request, in order — `None` for
 *   the others, `TransactionConflict` ("Transaction is ongoing for the item") for the conflicting ones;
 * - a PutItem, UpdateItem or DeleteItem of an item that is part of an ongoing transaction is
 *   rejected: `TransactionConflictException` ("Transaction is ongoing for the item").
 * On the wire (awsJson1_0): HTTP 400, `Content-Type: application/x-amz-json-1.0`, an
 * `x-amzn-RequestId` (52 upper-case letters and digits, as DynamoDB's are) and an `x-amz-crc32` of
 * the body, which DynamoDB sends with every answer (DynamoDB Local omits it on errors; the Go SDK
 * checks it). The bodies are as captured from DynamoDB in aws/aws-sdk-net#1292, erlcloud/erlcloud#607
 * and pynamodb/PynamoDB#1144 — `__type`, then `CancellationReasons` (a `None` reason has no
 * `Message`), then `Message` with the codes in brackets — and as DynamoDB Local itself sends a
 * cancellation for a failed condition (infra/test/dynamodb-conflict-proxy.test.ts compares them).
 * The member names are the SDK's model's (@aws-sdk/client-dynamodb): `Message` for
 * TransactionCanceledException, `message` for TransactionConflictException.
 *
 * Which requests are answered so is the test's `chooser`, asked for every request whose body is
 * JSON and names an operation; only the four writes above can be answered with a conflict, every
 * other request (reads, BatchWriteItem, CreateTable, ...) is forwarded whatever it chose. The
 * proxy never fails on a request: a body that is not JSON, an unknown or missing operation, or a
 * chooser that throws (recorded in `failures`) is forwarded as it came, for DynamoDB Local to answer;
 * DynamoDB Local unreachable is answered as DynamoDB answers an internal failure (500).
 */
import { randomInt } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { crc32 } from 'node:zlib';

const DYNAMODB = 'com.amazonaws.dynamodb.v20120810';
export const JSON_1_0 = 'application/x-amz-json-1.0';

/** DynamoDB's messages for the cancellation reasons the ledger meets. */
export const REASON_MESSAGES: Readonly<Record<string, string>> = {
  TransactionConflict: 'Transaction is ongoing for the item',
  ConditionalCheckFailed: 'The conditional request failed',
};

/** The message of a TransactionConflictException (a single-item write that met a transaction). */
export const TRANSACTION_CONFLICT_MESSAGE = 'Transaction is ongoing for the item';

/** The reason DynamoDB gives for one item of a cancelled transaction. */
export function cancellationReason(code: string): { Code: string; Message?: string } {
  if (code === 'None') return { Code: code };
  return { Code: code, Message: REASON_MESSAGES[code] ?? code };
}

/** The message of a TransactionCanceledException: its reasons' codes in brackets. */
export const cancellationMessage = (codes: readonly string[]) =>
  `Transaction cancelled, please refer cancellation reasons for specific reasons [${codes.join(', ')}]`;

/** The body of DynamoDB's TransactionCanceledException for reasons `codes` (one per item, in order). */
export function cancellationBody(codes: readonly string[]) {
  return { __type: `${DYNAMODB}#TransactionCanceledException`, CancellationReasons: codes.map(cancellationReason), Message: cancellationMessage(codes) };
}

/** The body of DynamoDB's TransactionConflictException. */
export const conflictBody = () => ({ __type: `${DYNAMODB}#TransactionConflictException`, message: TRANSACTION_CONFLICT_MESSAGE });

/** The operations DynamoDB answers with a conflict: the transaction is cancelled, a single write rejected. */
const SINGLE_WRITES = new Set(['PutItem', 'UpdateItem', 'DeleteItem']);

/** What the proxy does with one request: forwards it, or answers it as conflicting with a transaction (`conflicting`: which of a transaction's items, by index). */
export type ProxyChoice = 'forward' | { conflicting: readonly number[] };

/** Chooses for the `seq`th request the proxy received (from 0): `operation` from its X-Amz-Target, `body` its JSON. */
export type Chooser = (operation: string, body: Record<string, unknown>, seq: number) => ProxyChoice;

export const FORWARD_ALL: Chooser = () => 'forward';

/** One request the proxy answered itself. */
export interface ConflictAnswer {
  seq: number;
  operation: string;
  /** The reasons of a cancelled transaction; none for a rejected single write. */
  reasons?: string[];
}

export interface ConflictProxy {
  readonly endpoint: string;
  /** Asked for every request (default: forward all). */
  chooser: Chooser;
  /** The requests answered as conflicts, in order. */
  readonly answered: ConflictAnswer[];
  /** Requests received, forwarded or not. */
  readonly received: () => number;
  /** What the chooser threw (the request was forwarded). */
  readonly failures: string[];
  close(): Promise<void>;
}

/** A request id as DynamoDB writes them: 52 upper-case letters and digits. */
function requestId(): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
  return Array.from({ length: 52 }, () => alphabet[randomInt(alphabet.length)]).join('');
}

/** Writes a DynamoDB-shaped JSON answer. */
export function answerJson(res: http.ServerResponse, status: number, body: object): void {
  const bytes = Buffer.from(JSON.stringify(body));
  res.writeHead(status, {
    'x-amzn-RequestId': requestId(),
    'x-amz-crc32': String(crc32(bytes)),
    'Content-Type': JSON_1_0,
    'Content-Length': String(bytes.length),
  });
  res.end(bytes);
}

/** The operation an X-Amz-Target names (`DynamoDB_20120810.PutItem` → `PutItem`), or null. */
export function operationOf(target: string | string[] | undefined): string | null {
  const m = typeof target === 'string' ? /^DynamoDB_\d{8}\.([A-Za-z]+)$/.exec(target) : null;
  return m ? m[1]! : null;
}

function jsonObject(bytes: Buffer): Record<string, unknown> | null {
  try {
    const parsed = JSON.parse(bytes.toString('utf8')) as unknown;
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** The body of the conflict `choice` makes of the request, or null to forward it. */
export function conflictFor(operation: string, body: Record<string, unknown>, choice: ProxyChoice): object | null {
  if (choice === 'forward') return null;
  if (SINGLE_WRITES.has(operation)) return conflictBody();
  if (operation !== 'TransactWriteItems' || !Array.isArray(body['TransactItems'])) return null;
  const items = body['TransactItems'].length;
  const conflicting = new Set(choice.conflicting.filter((i) => Number.isInteger(i) && i >= 0 && i < items));
  if (conflicting.size === 0) return null;
  return cancellationBody(Array.from({ length: items }, (_, i) => (conflicting.has(i) ? 'TransactionConflict' : 'None')));
}

/** Starts a conflict proxy on a free loopback port in front of `upstream` (DynamoDB Local's endpoint). */
export async function startConflictProxy(upstream: string, chooser: Chooser = FORWARD_ALL): Promise<ConflictProxy> {
  const target = new URL(upstream);
  const agent = new http.Agent({ keepAlive: true });
  const answered: ConflictAnswer[] = [];
  const failures: string[] = [];
  let seq = 0;

  const forward = (req: http.IncomingMessage, res: http.ServerResponse, body: Buffer) => {
    const up = http.request(
      { protocol: target.protocol, hostname: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.rawHeaders, agent },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.statusMessage, answer.rawHeaders);
        answer.pipe(res);
        answer.on('error', () => res.destroy());
      },
    );
    up.on('error', (error) => {
      if (res.headersSent) res.destroy();
      else answerJson(res, 500, { __type: `${DYNAMODB}#InternalServerError`, message: `conflict proxy: DynamoDB Local unreachable (${error.message})` });
    });
    up.end(body);
  };

  const handle = (req: http.IncomingMessage, res: http.ServerResponse, body: Buffer) => {
    const n = seq++;
    const operation = operationOf(req.headers['x-amz-target']);
    const parsed = operation === null ? null : jsonObject(body);
    if (operation === null || parsed === null) return forward(req, res, body);
    let conflict: object | null = null;
    try {
      conflict = conflictFor(operation, parsed, proxy.chooser(operation, parsed, n));
    } catch (error) {
      failures.push(`request ${n} (${operation}): ${error instanceof Error ? error.stack : String(error)}`);
    }
    if (conflict === null) return forward(req, res, body);
    const reasons = (conflict as { CancellationReasons?: { Code: string }[] }).CancellationReasons?.map((r) => r.Code);
    answered.push({ seq: n, operation, ...(reasons ? { reasons } : {}) });
    answerJson(res, 400, conflict);
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('error', () => res.destroy());
    req.on('end', () => handle(req, res, Buffer.concat(chunks)));
  });
  server.on('clientError', (_error, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
    else socket.destroy();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  const proxy: ConflictProxy = {
    endpoint: `http://127.0.0.1:${port}`,
    chooser,
    answered,
    received: () => seq,
    failures,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        agent.destroy();
      }),
  };
  return proxy;
}

/**
 * The server half of Cognito's SRP-6a variant (what `USER_SRP_AUTH` + `PASSWORD_VERIFIER` speak).
 *
 * Cognito's parameters: the 3072-bit group of RFC 5054 / RFC 3526, g = 2, SHA-256, k = H(N | g),
 * x = H(salt | H(poolName | userId | ":" | password)), and the session key is HKDF-SHA256 of S with
 * salt u and info "Caldera Derived Key" (16 bytes). The client proves it knows the password by
 * sending HMAC(key, poolName | userId | secretBlock | timestamp); we recompute that.
 *
 * All hex here follows Amplify's "padded hex" convention (even length, a leading 00 when the top bit
 * is set), because the hashes are taken over those exact bytes: get it wrong and nothing verifies.
 * Pure functions over bigint; no I/O.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

const N_HEX =
  'FFFFFFFFFFFFFFFFC90FDAA22168C234C4C6628B80DC1CD129024E088A67CC74020BBEA63B139B22514A08798E3404DD' +
  'EF9519B3CD3A431B302B0A6DF25F14374FE1356D6D51C245E485B576625E7EC6F44C42E9A637ED6B0BFF5CB6F406B7ED' +
  'EE386BFB5A899FA5AE9F24117C4B1FE649286651ECE45B3DC2007CB8A163BF0598DA48361C55D39A69163FA8FD24CF5F' +
  '83655D23DCA3AD961C62F356208552BB9ED529077096966D670C354E4ABC9804F1746C08CA18217C32905E462E36CE3B' +
  'E39E772C180E86039B2783A2EC07A28FB5C55DF06F4C52C9DE2BCBF6955817183995497CEA956AE515D2261898FA0510' +
  '15728E5A8AAAC42DAD33170D04507A33A85521ABDF1CBA64ECFB850458DBEF0A8AEA71575D060C7DB3970F85A6E1E4C7' +
  'ABF5AE8CDB0933D71E8C94E04A25619DCEE3D2261AD2EE6BF12FFA06D98A0864D87602733EC86A64521F2B18177B200C' +
  'BBE117577A615D6C770988C0BAD946E208E24FA074E5AB3143DB5BFCE0FD108E4B82D120A93AD2CAFFFFFFFFFFFFFFFF';

export const N = BigInt(`0x${N_HEX}`);
export const g = 2n;

/** Hex of a non-negative bigint, even length, with 00 prepended when the top bit is set. */
export function paddedHex(value: bigint): string {
  let hex = value.toString(16);
  if (hex.length % 2 !== 0) hex = `0${hex}`;
  if (/^[89a-f]/i.test(hex)) hex = `00${hex}`;
  return hex;
}

function sha256Hex(data: Buffer | string): string {
  return createHash('sha256').update(data).digest('hex');
}

function hashHex(hex: string): string {
  return sha256Hex(Buffer.from(hex, 'hex'));
}

export function modPow(base: bigint, exponent: bigint, modulus: bigint): bigint {
  let result = 1n;
  let b = ((base % modulus) + modulus) % modulus;
  let e = exponent;
  while (e > 0n) {
    if (e & 1n) result = (result * b) % modulus;
    e >>= 1n;
    b = (b * b) % modulus;
  }
  return result;
}

const k = BigInt(`0x${hashHex(paddedHex(N) + paddedHex(g))}`);

/** x = H(salt | H(poolName | userId | ":" | password)). */
export function passwordHash(poolName: string, userId: string, password: string, saltHex: string): bigint {
  const inner = sha256Hex(`${poolName}${userId}:${password}`);
  return BigInt(`0x${hashHex(paddedHex(BigInt(`0x${saltHex}`)) + inner)}`);
}

/** The verifier v = g^x mod N, what Cognito stores in place of the password. */
export function verifierFor(poolName: string, userId: string, password: string, saltHex: string): bigint {
  return modPow(g, passwordHash(poolName, userId, password, saltHex), N);
}

/** u = H(A | B). */
export function scramble(A: bigint, B: bigint): bigint {
  return BigInt(`0x${hashHex(paddedHex(A) + paddedHex(B))}`);
}

/** The server's ephemeral pair: b random, B = k·v + g^b mod N. */
export function serverEphemeral(v: bigint, b: bigint = BigInt(`0x${randomBytes(32).toString('hex')}`)): { b: bigint; B: bigint } {
  const B = (k * v + modPow(g, b, N)) % N;
  return { b, B };
}

/** HKDF(ikm = S, salt = u, info = "Caldera Derived Key" | 0x01), first 16 bytes: Cognito's one-block HKDF. */
export function derivedKey(S: bigint, u: bigint): Buffer {
  const prk = createHmac('sha256', Buffer.from(paddedHex(u), 'hex'))
    .update(Buffer.from(paddedHex(S), 'hex'))
    .digest();
  return createHmac('sha256', prk)
    .update(Buffer.concat([Buffer.from('Caldera Derived Key', 'utf8'), Buffer.from([1])]))
    .digest()
    .subarray(0, 16);
}

/** S = (A · v^u)^b mod N, the shared secret as the server computes it. */
export function serverSecret(A: bigint, v: bigint, u: bigint, b: bigint): bigint {
  return modPow((A * modPow(v, u, N)) % N, b, N);
}

/** The client's proof: base64(HMAC-SHA256(key, poolName | userId | secretBlock bytes | timestamp)). */
export function claimSignature(key: Buffer, poolName: string, userId: string, secretBlockBase64: string, timestamp: string): string {
  return createHmac('sha256', key)
    .update(Buffer.concat([Buffer.from(poolName + userId, 'utf8'), Buffer.from(secretBlockBase64, 'base64'), Buffer.from(timestamp, 'utf8')]))
    .digest('base64');
}

/** Parses the client's A (hex); SRP-6a requires A mod N ≠ 0 or the proof is meaningless. */
export function parseClientA(srpA: string): bigint | undefined {
  if (!/^[0-9a-f]+$/i.test(srpA) || srpA.length > 2048) return undefined;
  const A = BigInt(`0x${srpA}`);
  return A % N === 0n ? undefined : A;
}

export interface SrpChallenge {
  saltHex: string;
  b: bigint;
  B: bigint;
}

/** Everything the server keeps between the challenge and the verifier: fresh salt, b, B. */
export function startChallenge(poolName: string, userId: string, password: string): SrpChallenge & { v: bigint } {
  // A fresh salt per attempt is legitimate: the verifier is derived from the stored password here,
  // not stored, and the client only ever uses the salt we send with this challenge.
  const saltHex = randomBytes(16).toString('hex');
  const v = verifierFor(poolName, userId, password, saltHex);
  const { b, B } = serverEphemeral(v);
  return { saltHex, b, B, v };
}

/** Checks the client's PASSWORD_CLAIM_SIGNATURE in constant time. */
export function verifyClaim(input: {
  poolName: string;
  userId: string;
  A: bigint;
  B: bigint;
  b: bigint;
  v: bigint;
  secretBlock: string;
  timestamp: string;
  signature: string;
}): boolean {
  const u = scramble(input.A, input.B);
  if (u === 0n) return false;
  const key = derivedKey(serverSecret(input.A, input.v, u, input.b), u);
  const expected = Buffer.from(claimSignature(key, input.poolName, input.userId, input.secretBlock, input.timestamp), 'base64');
  const given = Buffer.from(input.signature, 'base64');
  return expected.length === given.length && timingSafeEqual(expected, given);
}

/**
 * The strict reading of a receipt and a key set (docs/protocol.md section 4 and the ten
 * answers of section 6.6), as the SDK's verifier reads them (sdk/cardproof/receipts.py,
 * edwards.py): the parts valid UTF-8 with no byte order mark, no lone surrogate, every
 * integer within ±(2^53 − 1); no `null` score or hand member; a key set's keys objects,
 * `nbf` and `exp` not null, not negative; an Ed25519 key a canonical point of the
 * prime-order group (not the identity, not of small or mixed order).
 */

/** A refusal with the SDK's code (`malformed`, `bad-jwks`...). */
export class Refused extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why a JSON value breaks I-JSON (RFC 7493) as the SDK reads it, or null. */
export function jsonProblem(value: unknown): string | null {
  const stack: unknown[] = [value];
  while (stack.length) {
    const item = stack.pop();
    if (typeof item === "number" && Number.isInteger(item) && !Number.isSafeInteger(item)) {
      return `the integer ${item} is beyond 2^53 - 1 (I-JSON)`;
    }
    if (typeof item === "string" && LONE_SURROGATE.test(item)) return "a string holds a lone surrogate";
    if (Array.isArray(item)) stack.push(...(item as unknown[]));
    else if (item !== null && typeof item === "object") {
      for (const [name, member] of Object.entries(item)) {
        if (LONE_SURROGATE.test(name)) return "a member name holds a lone surrogate";
        stack.push(member);
      }
    }
  }
  return null;
}

/** Bytes as JSON, strictly (a `RangeError`/`SyntaxError`/`TypeError` otherwise). */
export function readJson(bytes: Uint8Array): unknown {
  let text: string;
  try {
    text = decoder.decode(bytes); // fatal: no overlong form, no encoded surrogate
  } catch {
    throw new RangeError("a part is not valid UTF-8");
  }
  if (text.startsWith("\ufeff")) throw new RangeError("a part starts with a byte order mark");
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch {
    throw new RangeError("a part is not JSON");
  }
  const problem = jsonProblem(value);
  if (problem) throw new RangeError(problem);
  return value;
}

const SCORE_MEMBERS = ["total", "hands", "levels", "won", "series_removed"];
const HAND_MEMBERS = ["line", "cards", "category", "points", "level", "removed"];

/** Why a payload's score has a `null` member it knows (an unknown one is ignored), or null. */
export function nullScoreMember(payload: Record<string, unknown>): string | null {
  const score = payload["score"];
  if (score === null || typeof score !== "object") return "the score is not an object";
  for (const [name, value] of Object.entries(score)) {
    if (value === null && SCORE_MEMBERS.includes(name)) return `score.${name} is null: a score member is absent or of its type`;
  }
  const hands = (score as Record<string, unknown>)["hands"];
  if (!Array.isArray(hands)) return "score.hands is not a list";
  for (const [i, hand] of (hands as unknown[]).entries()) {
    if (hand === null || typeof hand !== "object") return `score.hands[${i}] is not an object`;
    for (const [name, value] of Object.entries(hand)) {
      if (value === null && HAND_MEMBERS.includes(name)) return `score.hands[${i}].${name} is null: a hand member is absent or of its type`;
    }
  }
  return null;
}

/** The members of a score each variant has beyond `total` and `hands`, and of a hand
 * beyond `line`, `cards`, `category`, `points`: another known member is a score mismatch. */
const SCORE_EXTRA: Readonly<Record<string, readonly string[]>> = { "repeat-poker": ["levels"], solodrez: ["won", "series_removed"] };
const HAND_EXTRA: Readonly<Record<string, readonly string[]>> = { "repeat-poker": ["level", "removed"] };
const SCORE_KNOWN = ["levels", "won", "series_removed"];
const HAND_KNOWN = ["level", "removed"];

/** Why a score's members are not its variant's (a member another variant has, or one of
 * its own left out), or null. Unknown members are ignored. */
export function scoreMembersProblem(variant: string, score: Record<string, unknown>): string | null {
  const own = SCORE_EXTRA[variant] ?? [];
  for (const name of SCORE_KNOWN) {
    if ((name in score) !== own.includes(name)) {
      return own.includes(name) ? `a ${variant} score has ${name}` : `a ${variant} score has no ${name}`;
    }
  }
  const ownHand = HAND_EXTRA[variant] ?? [];
  for (const hand of (score["hands"] as Record<string, unknown>[] | undefined) ?? []) {
    for (const name of HAND_KNOWN) {
      if ((name in hand) !== ownHand.includes(name)) {
        return ownHand.includes(name) ? `a ${variant} hand has ${name}` : `a ${variant} hand has no ${name}`;
      }
    }
  }
  return null;
}

export interface StrictKey {
  kty?: string;
  kid?: string;
  crv?: string;
  x?: string;
  nbf?: number;
  exp?: number;
}

const KEY_TYPES: Readonly<Record<string, string>> = { kty: "string", kid: "string", crv: "string", x: "string", use: "string", alg: "string", nbf: "number", exp: "number" };

/** A key set read strictly (`Refused("bad-jwks")` otherwise). */
export function readKeySet(value: unknown): StrictKey[] {
  const keys = value !== null && typeof value === "object" ? (value as { keys?: unknown }).keys : undefined;
  if (!Array.isArray(keys)) throw new Refused("bad-jwks", "the key set has no list of keys");
  const problem = jsonProblem(value);
  if (problem) throw new Refused("bad-jwks", `the key set cannot be read: ${problem}`);
  for (const key of keys as unknown[]) {
    if (key === null || typeof key !== "object" || Array.isArray(key)) throw new Refused("bad-jwks", "a key of the key set is not an object");
    for (const [name, type] of Object.entries(KEY_TYPES)) {
      if (!(name in key)) continue;
      const member = (key as Record<string, unknown>)[name];
      if (typeof member !== type) throw new Refused("bad-jwks", `a key's ${name} is ${JSON.stringify(member)}, not a ${type}`);
      if (type === "number" && (!Number.isSafeInteger(member) || (member as number) < 0)) {
        throw new Refused("bad-jwks", `a key's ${name} (${String(member)}) is not a whole number of seconds from 0 to 2^53 - 1`);
      }
    }
  }
  return keys as StrictKey[];
}

// ---- Ed25519 keys (RFC 8032 5.1.3; protocol.md 4.5 step 2) -----------------------------

const P = 2n ** 255n - 19n;
const L = 2n ** 252n + 27742317777372353535851937790883648493n;
const mod = (a: bigint): bigint => ((a % P) + P) % P;

function pow(base: bigint, exp: bigint): bigint {
  let result = 1n;
  let b = mod(base);
  let e = exp;
  while (e > 0n) {
    if (e & 1n) result = (result * b) % P;
    b = (b * b) % P;
    e >>= 1n;
  }
  return result;
}

const inv = (a: bigint): bigint => pow(a, P - 2n);
const D = mod(-121665n * inv(121666n));
const SQRT_M1 = pow(2n, (P - 1n) / 4n);
type Point = readonly [bigint, bigint, bigint, bigint];
const IDENTITY: Point = [0n, 1n, 1n, 0n];

/** The point 32 bytes encode canonically (y < p; x = 0 without the sign bit), or null. */
export function decodePoint(bytes: Uint8Array): Point | null {
  if (bytes.length !== 32) return null;
  let v = 0n;
  for (let i = 31; i >= 0; i--) v = (v << 8n) | BigInt(bytes[i] ?? 0);
  const sign = v >> 255n;
  const y = v & ((1n << 255n) - 1n);
  if (y >= P) return null;
  const x2 = mod((y * y - 1n) * inv(D * y * y + 1n));
  if (x2 === 0n) return sign ? null : [0n, y, 1n, 0n];
  let x = pow(x2, (P + 3n) / 8n);
  if (mod(x * x - x2) !== 0n) x = (x * SQRT_M1) % P;
  if (mod(x * x - x2) !== 0n) return null;
  if ((x & 1n) !== sign) x = P - x;
  return [x, y, 1n, (x * y) % P];
}

function add([x1, y1, z1, t1]: Point, [x2, y2, z2, t2]: Point): Point {
  const a = mod((y1 - x1) * (y2 - x2));
  const b = mod((y1 + x1) * (y2 + x2));
  const c = mod(2n * t1 * t2 * D);
  const d = mod(2n * z1 * z2);
  const e = b - a;
  const f = d - c;
  const g = d + c;
  const h = b + a;
  return [mod(e * f), mod(g * h), mod(f * g), mod(e * h)];
}

function multiply(scalar: bigint, point: Point): Point {
  let result = IDENTITY;
  let p = point;
  for (let k = scalar; k > 0n; k >>= 1n) {
    if (k & 1n) result = add(result, p);
    p = add(p, p);
  }
  return result;
}

const isIdentity = ([x, y, z]: Point): boolean => mod(x) === 0n && mod(y - z) === 0n;

/** Whether 32 bytes are an Ed25519 key a verifier trusts: a canonical point of the
 * prime-order group other than the identity (WebCrypto takes any point). */
export function isStrictPublicKey(bytes: Uint8Array): boolean {
  const point = decodePoint(bytes);
  return point !== null && !isIdentity(point) && isIdentity(multiply(L, point));
}

/** Whether a signature's S (its last 32 bytes, little-endian) is below L (RFC 8032 5.1.7). */
export function isCanonicalS(signature: Uint8Array): boolean {
  if (signature.length !== 64) return false;
  let s = 0n;
  for (let i = 63; i >= 32; i--) s = (s << 8n) | BigInt(signature[i] ?? 0);
  return s < L;
}

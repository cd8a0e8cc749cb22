// Which 32 bytes are an Ed25519 key a receipt verifier trusts (docs/protocol.md 4.5, step 2):
// the canonical encoding (RFC 8032 5.1.2, y < p; x = 0 without the sign bit) of a point A
// on the curve, other than the identity, with [L]A the identity. node's OpenSSL loads any
// 32 bytes; this check comes first. BigInt arithmetic, extended coordinates (RFC 8032 5.1.4).

const P = 2n ** 255n - 19n;
const L = 2n ** 252n + 27742317777372353535851937790883648493n;
const mod = (a) => ((a % P) + P) % P;

function pow(base, exp) {
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

const inv = (a) => pow(a, P - 2n);
const D = mod(-121665n * inv(121666n));
const SQRT_M1 = pow(2n, (P - 1n) / 4n);
const IDENTITY = [0n, 1n, 1n, 0n];

/** The point the 32 bytes encode, or null if they encode none canonically. */
export function decodePoint(bytes) {
  if (bytes.length !== 32) return null;
  let v = 0n;
  for (let i = 31; i >= 0; i -= 1) v = (v << 8n) | BigInt(bytes[i]);
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

function add([x1, y1, z1, t1], [x2, y2, z2, t2]) {
  const a = mod((y1 - x1) * (y2 - x2));
  const b = mod((y1 + x1) * (y2 + x2));
  const c = mod(2n * t1 * t2 * D);
  const d = mod(2n * z1 * z2);
  const e = b - a; const f = d - c; const g = d + c; const h = b + a;
  return [mod(e * f), mod(g * h), mod(f * g), mod(e * h)];
}

function multiply(scalar, point) {
  let result = IDENTITY;
  let p = point;
  let k = scalar;
  while (k > 0n) {
    if (k & 1n) result = add(result, p);
    p = add(p, p);
    k >>= 1n;
  }
  return result;
}

const isIdentity = ([x, y, z]) => mod(x) === 0n && mod(y - z) === 0n;

/** The key check of protocol.md 4.5 step 2 (`unknown-key` when false). */
export function isStrictPublicKey(bytes) {
  const point = decodePoint(bytes);
  return point !== null && !isIdentity(point) && isIdentity(multiply(L, point));
}

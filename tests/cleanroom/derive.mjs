// Clean-room implementation of cardproof's deal derivation (docs/protocol.md sections 1-3):
// cardproof-shuffle-v1 (stream keys, the counter-mode word stream, rejection sampling, the
// Fisher-Yates shuffle), cardproof-points-v1 (tables drawn from the seeds), commitment ids,
// server seeds and round ids (sections 3.1, 3.2, 3.8), reserve-poker's "random" version (3.6),
// card texts (section 2) and RFC 7638 JWK thumbprints (section 4.2).
// Written from the documents alone: node's standard library only.
import { createHash, createHmac } from 'node:crypto';

export const ALGORITHM = 'cardproof-shuffle-v1';
export const POINTS_ALGORITHM = 'cardproof-points-v1';

// ---- section 1: bytes ------------------------------------------------------------------

export function hmac(key, message) {
  return createHmac('sha256', key).update(message).digest();
}

export function sha256(bytes) {
  return createHash('sha256').update(bytes).digest();
}

export function u64be(n) {
  const b = Buffer.alloc(8);
  b.writeBigUInt64BE(BigInt(n));
  return b;
}

const HEX = /^(?:[0-9a-f]{2})*$/;

/** Lower-case hex only (section 1: "Hex is lower case, two digits a byte"). */
export function fromHex(text, bytes) {
  if (typeof text !== 'string' || !HEX.test(text)) throw new Error(`not lower-case hex: ${text}`);
  if (bytes !== undefined && text.length !== 2 * bytes) throw new Error(`not ${bytes} bytes of hex`);
  return Buffer.from(text, 'hex');
}

const B64URL = /^[A-Za-z0-9_-]*$/;

/**
 * Strict base64url (section 1): RFC 4648 section 5 alphabet, no padding, no white space,
 * and no set bits in the unused low bits of the last character, so one spelling a value.
 */
export function b64urlDecode(text) {
  if (typeof text !== 'string' || !B64URL.test(text)) throw new Error('not base64url text');
  if (text.length % 4 === 1) throw new Error('impossible base64url length');
  const bytes = Buffer.from(text, 'base64url');
  if (bytes.toString('base64url') !== text) throw new Error('non-canonical base64url (stray bits)');
  return bytes;
}

export function b64urlEncode(bytes) {
  return Buffer.from(bytes).toString('base64url');
}

// ---- section 2: decks and card indices -------------------------------------------------

export const DECK_SIZES = { 'standard-52': 52, 'joker-53': 53, 'pokerdrez-56': 56 };

const RANKS = '23456789TJQKA';
const SUITS = 'CDHS';
const FIGURES = 'JQTBNP';

export function cardText(deckType, i) {
  const size = DECK_SIZES[deckType];
  if (size === undefined) throw new Error(`unknown deck type ${deckType}`);
  if (!Number.isInteger(i) || i < 0 || i >= size) throw new Error(`index ${i} outside ${deckType}`);
  if (deckType === 'pokerdrez-56') {
    if (i < 54) return FIGURES[i % 6] + String(Math.floor(i / 6) + 1);
    return i === 54 ? 'X1' : 'X2';
  }
  if (i === 52) return 'JK';
  return RANKS[i % 13] + SUITS[Math.floor(i / 13)];
}

// ---- sections 3.1, 3.2, 3.8: commitment ids and server seeds ---------------------------

const COMMITMENT_LABEL = Buffer.from('cardproof-commitment\0', 'ascii');
const SEED_LABEL = Buffer.from('cardproof-server-seed\0', 'ascii');

function masterBytes(master) {
  const m = typeof master === 'string' ? fromHex(master) : Buffer.from(master);
  if (m.length < 32) throw new Error('a master key is at least 32 bytes');
  return m;
}

/** Section 3.1: body = nonce (16 bytes) || u64be(expires_at); tag = HMAC(master, label || body)[0:12]. */
export function commitmentParts(master, nonce, expiresAt) {
  const n = typeof nonce === 'string' ? fromHex(nonce, 16) : Buffer.from(nonce);
  if (n.length !== 16) throw new Error('a nonce is 16 bytes');
  const e = BigInt(expiresAt);
  if (e < 0n || e >= 2n ** 64n) throw new Error('expires_at is a u64');
  const body = Buffer.concat([n, u64be(e)]);
  const tag = hmac(masterBytes(master), Buffer.concat([COMMITMENT_LABEL, body])).subarray(0, 12);
  return { body, tag, commitmentId: `c_${b64urlEncode(Buffer.concat([body, tag]))}` };
}

export function commitmentId(master, nonce, expiresAt) {
  return commitmentParts(master, nonce, expiresAt).commitmentId;
}

/**
 * Section 3.1: what any replica does with an id it is given: the text must be exactly
 * `c_` and 48 strict base64url characters of body || tag, the tag recomputed. Anything
 * else is `unknown-commitment`. Returns the nonce and expiry (a BigInt).
 */
export function readCommitmentId(master, id) {
  const unknown = (why) => { const e = new Error(`unknown-commitment: ${why}`); e.code = 'unknown-commitment'; throw e; };
  if (typeof id !== 'string' || id.length !== 50 || !id.startsWith('c_')) unknown('not c_ and 48 characters');
  let raw;
  try { raw = b64urlDecode(id.slice(2)); } catch (err) { unknown(err.message); }
  if (raw.length !== 36) unknown('not 36 bytes');
  const body = raw.subarray(0, 24);
  const want = hmac(masterBytes(master), Buffer.concat([COMMITMENT_LABEL, body])).subarray(0, 12);
  if (!want.equals(raw.subarray(24))) unknown('bad tag');
  return { nonce: body.subarray(0, 16), expiresAt: body.readBigUInt64BE(16) };
}

/** Section 3.2: server_seed = HMAC(master, "cardproof-server-seed" || 0x00 || utf8(commitment_id)). */
export function serverSeedFor(master, id) {
  return hmac(masterBytes(master), Buffer.concat([SEED_LABEL, Buffer.from(id, 'utf8')]));
}

/** Section 3.8: round n (1-based, decimal, no leading zeros) of tournament t. */
export function roundCommitmentId(tournamentId, n) {
  if (!Number.isSafeInteger(n) || n < 1) throw new Error('a round is numbered from 1');
  return `${tournamentId}:round-${n}`;
}

// ---- section 3.2: the server seed hash -------------------------------------------------

export function serverSeedHash(serverSeed) {
  const seed = typeof serverSeed === 'string' ? fromHex(serverSeed, 32) : serverSeed;
  return sha256(seed).toString('hex');
}

/**
 * Python's bytes.fromhex, which README's by-hand check (step 3) reads a receipt's server seed
 * with, though protocol.md 4.3.1 and 4.5 step 8 now allow only 64 lower-case hex digits: pairs
 * of hex digits in either case, ASCII white space (space, \t, \n, \v, \f, \r) skipped between
 * pairs (not inside one). Throws where Python raises ValueError.
 */
export function pythonFromHex(text) {
  if (typeof text !== 'string') throw new Error('not a string');
  const out = [];
  let i = 0;
  const space = (c) => c === ' ' || (c >= '\t' && c <= '\r');
  while (i < text.length) {
    if (space(text[i])) { i += 1; continue; }
    const pair = text.slice(i, i + 2);
    if (!/^[0-9a-fA-F]{2}$/.test(pair)) throw new Error(`non-hexadecimal number at ${i}`);
    out.push(parseInt(pair, 16));
    i += 2;
  }
  return Buffer.from(out);
}

// ---- section 3.4: cardproof-shuffle-v1 -------------------------------------------------

function seedBytes(serverSeed) {
  const seed = typeof serverSeed === 'string' ? fromHex(serverSeed, 32) : Buffer.from(serverSeed);
  if (seed.length !== 32) throw new Error('a server seed is 32 bytes');
  return seed;
}

function checkInputs(clientSeed, deckType, stream) {
  // No Unicode normalization: the UTF-8 bytes of the string as given (NOTES.md B.4).
  if (typeof clientSeed !== 'string' || !clientSeed.isWellFormed()) throw new Error('a client seed is Unicode text');
  const c = Buffer.from(clientSeed, 'utf8');
  if (c.length < 1 || c.length > 256) throw new Error('a client seed is 1 to 256 UTF-8 bytes');
  if (!(deckType in DECK_SIZES)) throw new Error(`unknown deck type ${deckType}`);
  // step 1: an ASCII label without a NUL byte; the empty label is not refused (section 3.4)
  if (typeof stream !== 'string' || !/^[\x01-\x7f]*$/.test(stream)) {
    throw new Error(`bad stream label ${JSON.stringify(stream)}`);
  }
  return c;
}

/** Step 2: K = HMAC(server_seed, "cardproof-shuffle-v1" 0x00 deck_type 0x00 stream 0x00 utf8(client_seed)). */
export function streamKey(serverSeed, clientSeed, deckType, stream) {
  const client = checkInputs(clientSeed, deckType, stream);
  const zero = Buffer.from([0]);
  const message = Buffer.concat([
    Buffer.from(ALGORITHM, 'ascii'), zero,
    Buffer.from(deckType, 'ascii'), zero,
    Buffer.from(stream, 'ascii'), zero,
    client,
  ]);
  return hmac(seedBytes(serverSeed), message);
}

/** Step 3: block `counter` of the stream, HMAC(K, u64be(counter)). */
export function block(key, counter) {
  return hmac(key, u64be(counter));
}

/** Steps 3 and 4: consecutive u32be words of the counter-mode stream, and uniform draws. */
export class UniformDraws {
  constructor(key) {
    this.key = Buffer.from(key);
    this.counter = 0;
    this.block = null;
    this.offset = 32;
    this.wordsRead = 0;
  }

  nextWord() {
    if (this.offset === 32) {
      this.block = block(this.key, this.counter);
      this.counter += 1;
      this.offset = 0;
    }
    const x = this.block.readUInt32BE(this.offset);
    this.offset += 4;
    this.wordsRead += 1;
    return x;
  }

  /** A uniform integer in [0, n), 1 <= n <= 2^32, by rejection sampling. */
  below(n) {
    if (!Number.isInteger(n) || n < 1 || n > 2 ** 32) throw new Error(`bound ${n} outside 1..2^32`);
    const limit = 2 ** 32 - (2 ** 32 % n);
    for (;;) {
      const x = this.nextWord();
      if (x < limit) return x % n;
    }
  }
}

/** Step 5: Fisher-Yates (Durstenfeld) over the canonical order, drawing j in [0, i + 1). */
export function shuffleWith(draws, size) {
  const order = Array.from({ length: size }, (_, i) => i);
  for (let i = size - 1; i >= 1; i -= 1) {
    const j = draws.below(i + 1);
    [order[i], order[j]] = [order[j], order[i]];
  }
  return order;
}

/** The deck order (canonical indices, position 0 dealt first) of one stream of a deal. */
export function deckOrder(serverSeed, clientSeed, deckType, stream) {
  const key = streamKey(serverSeed, clientSeed, deckType, stream);
  return shuffleWith(new UniformDraws(key), DECK_SIZES[deckType]);
}

export function deckCards(serverSeed, clientSeed, deckType, stream) {
  return deckOrder(serverSeed, clientSeed, deckType, stream).map((i) => cardText(deckType, i));
}

// ---- section 3.6: reserve-poker's "random" version -------------------------------------

export function randomVersion(serverSeed, clientSeed) {
  const draws = new UniformDraws(streamKey(serverSeed, clientSeed, 'joker-53', 'version'));
  return 1 + draws.below(6);
}

// ---- section 3.7: cardproof-points-v1 --------------------------------------------------

/** Categories high card to royal flush (protocol.md 3.7), then five of a kind. */
export const CATEGORIES = [
  'high-card', 'one-pair', 'two-pair', 'three-of-a-kind', 'straight', 'flush',
  'full-house', 'four-of-a-kind', 'straight-flush', 'royal-flush',
];
export const ALL_CATEGORIES = [...CATEGORIES, 'five-of-a-kind'];

/** rules.md section 1, "Point tables"; a "-" there scores 0. */
export const NAMED_TABLES = {
  american: {
    'high-card': 0, 'one-pair': 2, 'two-pair': 5, 'three-of-a-kind': 10, straight: 15, flush: 20,
    'full-house': 25, 'four-of-a-kind': 50, 'straight-flush': 75, 'royal-flush': 100, 'five-of-a-kind': 0,
  },
  british: {
    'high-card': 0, 'one-pair': 1, 'two-pair': 3, 'three-of-a-kind': 6, straight: 12, flush: 5,
    'full-house': 10, 'four-of-a-kind': 16, 'straight-flush': 30, 'royal-flush': 30, 'five-of-a-kind': 0,
  },
  repeat: {
    'high-card': 0, 'one-pair': 20, 'two-pair': 50, 'three-of-a-kind': 100, straight: 150, flush: 200,
    'full-house': 250, 'four-of-a-kind': 500, 'straight-flush': 750, 'royal-flush': 1000, 'five-of-a-kind': 0,
  },
  reserve: {
    'high-card': 0, 'one-pair': 2, 'two-pair': 4, 'three-of-a-kind': 8, straight: 10, flush: 14,
    'full-house': 18, 'four-of-a-kind': 20, 'straight-flush': 24, 'royal-flush': 30, 'five-of-a-kind': 28,
  },
};

export const SYSTEMS = ['ameritish', 'random', 'hypercorner', 'single-hand'];

/** floor(p / q) and ceil(p / q) for integers p >= 0, q > 0, exactly. */
function floorQ(p, q) { return (p - (p % q)) / q; }
function ceilQ(p, q) { return p % q === 0 ? p / q : floorQ(p, q) + 1; }

/**
 * The table a point system draws from the seeds: stream `points-v1`, deck type standard-52
 * (steps 2 to 4 of cardproof-shuffle-v1). Returns all eleven categories, five of a kind 0.
 */
export function drawTable(serverSeed, clientSeed, system) {
  const draws = new UniformDraws(streamKey(serverSeed, clientSeed, 'standard-52', 'points-v1'));
  const draw = (n) => draws.below(n);
  const table = {};
  if (system === 'ameritish') {
    const R = 30 + draw(71);
    for (const c of CATEGORIES.slice(0, 9)) {
      // a = american[c] * R / 100, b = british[c] * R / 30, exact rationals: compare
      // a = pa / 300 and b = pb / 300 over one denominator.
      const pa = NAMED_TABLES.american[c] * R * 3;
      const pb = NAMED_TABLES.british[c] * R * 10;
      const lo = floorQ(Math.min(pa, pb), 300);
      const hi = ceilQ(Math.max(pa, pb), 300);
      table[c] = lo + draw(hi - lo + 1);
    }
    table['royal-flush'] = R;
  } else if (system === 'random') {
    for (const c of CATEGORIES) table[c] = draw(256) - 128;
  } else if (system === 'hypercorner') {
    for (const c of CATEGORIES) table[c] = 2 * draw(2) - 1;
  } else if (system === 'single-hand') {
    const k = draw(10);
    CATEGORIES.forEach((c, i) => { table[c] = i === k ? 1 : 0; });
  } else {
    throw new Error(`unknown point system ${system}`);
  }
  table['five-of-a-kind'] = 0;
  const ordered = {};
  for (const c of ALL_CATEGORIES) ordered[c] = table[c];
  return ordered;
}

// ---- section 4.2: RFC 7638 thumbprints -------------------------------------------------

/** base64url(SHA-256('{"crv":"Ed25519","kty":"OKP","x":"<x>"}')). */
export function jwkThumbprint(x) {
  const publicKey = b64urlDecode(x);
  if (publicKey.length !== 32) throw new Error('an Ed25519 public key is 32 bytes');
  const canonical = `{"crv":"Ed25519","kty":"OKP","x":"${x}"}`;
  return b64urlEncode(sha256(Buffer.from(canonical, 'utf8')));
}

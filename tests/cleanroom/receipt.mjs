// Clean-room receipt checker (docs/protocol.md section 4, "What a verifier checks" 4.5),
// written from the documents alone with node:crypto. `verifyReceipt` runs the checks in the
// documented order and throws a ReceiptError whose `code` names the first that fails.
import { createHash, createPublicKey, verify as cryptoVerify } from 'node:crypto';
import {
  ALGORITHM, ALL_CATEGORIES, DECK_SIZES, b64urlDecode, deckCards, drawTable, randomVersion,
} from './derive.mjs';
import {
  ANY_TABLE, ANY_VERSION, GRID_VARIANTS, MOVE_READERS, ReplayError, VARIANTS, canonicalLog,
  isOpen, readOptions, replayPokerPatience, replayPokerSquares, replayRepeatPoker,
  replayReservePoker, replaySerpentPatience, replaySolodrez, splitLog, v3LineName,
} from './games.mjs';
import { isJsonInt, parseJson, sameJson } from './json.mjs';
import { isStrictPublicKey } from './edwards.mjs';

export class ReceiptError extends Error {
  constructor(code, message) {
    super(`${code}: ${message}`);
    this.code = code;
  }
}

const fail = (code, message) => { throw new ReceiptError(code, message); };
/** Step 2: seconds a receipt's date may run ahead of the verifier's clock. */
const CLOCK_LEEWAY = 300;
const now = () => Math.floor(Date.now() / 1000);

export const COMMITTED_KINDS = ['committed-blind', 'committed-open', 'tournament'];
export const KINDS = [...COMMITTED_KINDS, 'casual', 'practice'];


/** Section 4.1: the header's `typ`, compared exactly; `JOSE` is what older receipts carry. */
export const TYPES = ['cardproof-receipt+jwt', 'JOSE'];

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const has = (o, k) => Object.prototype.hasOwnProperty.call(o, k);
/** An optional member (section 4.3.1): absent and null read the same. */
const opt = (o, k) => (has(o, k) ? o[k] : null);

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Whether a JSON value holds an integer beyond 2^53 - 1 (protocol.md 4.3.1, I-JSON): the strict
 * reader gives such integers as BigInt.
 */
function hasBigInteger(v) {
  if (typeof v === 'bigint') return true;
  if (Array.isArray(v)) return v.some(hasBigInteger);
  if (isObject(v)) return Object.values(v).some(hasBigInteger);
  return false;
}

/** Step 1 (section 4.3.1): the whole part strict UTF-8 (no BOM), JSON, integers within 2^53 - 1. */
function decodeJson(part, what) {
  let bytes;
  try { bytes = b64urlDecode(part); } catch (e) { fail('malformed', `${what}: ${e.message}`); }
  let value;
  try { value = parseJson(utf8.decode(bytes)); } catch (e) { fail('malformed', `${what} is not UTF-8 JSON: ${e.message}`); }
  if (!isObject(value)) fail('malformed', `${what} is not a JSON object`);
  if (hasBigInteger(value)) fail('malformed', `${what} holds an integer beyond 2^53 - 1`);
  return value;
}

const CATEGORY_SET = new Set(ALL_CATEGORIES);
const isStringList = (v) => Array.isArray(v) && v.every((x) => typeof x === 'string');

/**
 * Section 4.3.1: the payload's members and types (`malformed` otherwise). Unknown members are
 * ignored; patterns (hex, seed length, the log) are left to step 8. The optional members of
 * `score` and of a hand are typed when present; a `null` there is refused (not said, NOTES.md).
 */
export function checkPayloadTypes(p) {
  const bad = (f, why = 'has the wrong type') => fail('malformed', `payload ${f} ${why}`);
  const required = {
    version: isJsonInt, variant: (v) => typeof v === 'string', options: isObject,
    deal_id: (v) => v === null || typeof v === 'string', algorithm: (v) => typeof v === 'string',
    server_seed_hash: (v) => typeof v === 'string', server_seed: (v) => v === null || typeof v === 'string',
    client_seed: (v) => typeof v === 'string', moves: (v) => typeof v === 'string', score: isObject,
    blind: (v) => typeof v === 'boolean', committed_before_client_seed: (v) => typeof v === 'boolean',
    issued_at: isJsonInt,
  };
  for (const [f, ok] of Object.entries(required)) {
    if (!has(p, f)) bad(f, 'is missing');
    if (!ok(p[f])) bad(f);
  }
  if (p.issued_at < 0) bad('issued_at', 'is negative');
  const optional = {
    kind: (v) => typeof v === 'string', player: (v) => typeof v === 'string',
    tournament: (v) => typeof v === 'string', auto_placed: (v) => Array.isArray(v) && v.every(isJsonInt),
    iss: (v) => typeof v === 'string', iat: isJsonInt,
  };
  for (const [f, ok] of Object.entries(optional)) {
    const v = opt(p, f);
    if (v !== null && !ok(v)) bad(f);
  }
  if (opt(p, 'iat') !== null && p.iat < 0) bad('iat', 'is negative');
  if (opt(p, 'kind') !== null && !KINDS.includes(p.kind)) bad('kind', `${JSON.stringify(p.kind)} is no kind`);
  const s = p.score;
  if (!has(s, 'total') || !isJsonInt(s.total)) bad('score.total');
  if (!has(s, 'hands') || !Array.isArray(s.hands)) bad('score.hands');
  if (has(s, 'levels') && !(Array.isArray(s.levels) && s.levels.every(isJsonInt))) bad('score.levels');
  if (has(s, 'won') && typeof s.won !== 'boolean') bad('score.won');
  if (has(s, 'series_removed') && !isJsonInt(s.series_removed)) bad('score.series_removed');
  s.hands.forEach((h, i) => {
    const f = `score.hands[${i}]`;
    if (!isObject(h)) bad(f);
    if (typeof h.line !== 'string') bad(`${f}.line`);
    if (!isStringList(h.cards)) bad(`${f}.cards`);
    if (typeof h.category !== 'string' || !CATEGORY_SET.has(h.category)) bad(`${f}.category`);
    if (!isJsonInt(h.points)) bad(`${f}.points`);
    if (has(h, 'level') && !isJsonInt(h.level)) bad(`${f}.level`);
    if (has(h, 'removed') && !isStringList(h.removed)) bad(`${f}.removed`);
  });
}

/** Step 1: the token, its three strict base64url parts, the header and the typed payload. */
export function splitToken(token) {
  if (typeof token !== 'string') fail('malformed', 'a token is text');
  // White space around the token: JSON's four only (protocol.md 4.1), not trim()'s U+FEFF, U+00A0.
  const parts = token.replace(/^[ \t\n\r]+|[ \t\n\r]+$/g, '').split('.');
  if (parts.length !== 3) fail('malformed', `a compact JWS has 3 parts, not ${parts.length}`);
  const header = decodeJson(parts[0], 'header');
  const payload = decodeJson(parts[1], 'payload');
  let signature;
  try { signature = b64urlDecode(parts[2]); } catch (e) { fail('malformed', `signature: ${e.message}`); }
  checkPayloadTypes(payload);
  return {
    header, payload, signature, signingInput: Buffer.from(`${parts[0]}.${parts[1]}`, 'ascii'),
  };
}

/**
 * Section 4.2, "Finding the key": the key set must be `{"keys": [...]}` of objects with a
 * `kty`, each `nbf`/`exp` a JSON integer (`bad-jwks`); other members are ignored. A text is
 * read with the strict reader (so `"exp": 1.0` is not an integer).
 */
export function readKeySet(jwks) {
  let set = jwks;
  if (typeof jwks === 'string') {
    try { set = parseJson(jwks); } catch (e) { fail('bad-jwks', `the key set is not JSON: ${e.message}`); }
  }
  if (!isObject(set) || !Array.isArray(set.keys)) fail('bad-jwks', 'a key set is {"keys": [...]}');
  if (hasBigInteger(set)) fail('bad-jwks', 'the key set holds an integer beyond 2^53 - 1');
  for (const key of set.keys) {
    if (!isObject(key) || !has(key, 'kty')) fail('bad-jwks', 'a key is an object with a kty');
    for (const name of ['kty', 'kid', 'crv', 'x', 'use', 'alg']) {
      if (has(key, name) && typeof key[name] !== 'string') fail('bad-jwks', `a key's ${name} is not a string`);
    }
    for (const bound of ['nbf', 'exp']) {
      if (has(key, bound) && !(isJsonInt(key[bound]) && key[bound] >= 0)) {
        fail('bad-jwks', `a key's ${bound} is not a JSON integer from 0`);
      }
    }
  }
  return set;
}

/** The first key whose `kid` is the header's (string equality); the kid is not recomputed. */
export function findKey(set, kid) {
  const key = set.keys.find((k) => typeof kid === 'string' && k.kid === kid);
  if (key === undefined) fail('unknown-key', `no key ${JSON.stringify(kid)} in the key set`);
  if (!has(key, 'x') || key.kty !== 'OKP' || key.crv !== 'Ed25519') fail('unknown-key', 'not an OKP Ed25519 key with an x');
  return key;
}

function publicKeyOf(key) {
  let raw;
  try { raw = b64urlDecode(key.x); } catch (e) { fail('unknown-key', `the key's x: ${e.message}`); }
  if (raw.length !== 32) fail('unknown-key', 'an Ed25519 public key is 32 bytes');
  if (!isStrictPublicKey(raw)) fail('unknown-key', 'the key is no canonical point of the prime-order group, or the identity');
  try {
    return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: key.x }, format: 'jwk' });
  } catch (e) {
    return fail('unknown-key', `the key's x is no Ed25519 public key: ${e.message}`);
  }
}

/**
 * Section 4.4's second table: all a verifier checks of a kind (step 4, `kind-mismatch`). The
 * flags; `tournament` and `player` both null or both set (any string, the empty one included),
 * set exactly for the `tournament` kind; a `committed-blind` receipt of a hidden variant with
 * its options. Options that do not read (and, not said, an unknown variant) are left to the
 * replay (`replay-failed`).
 */
function checkKindFlags(p) {
  const ccs = p.committed_before_client_seed;
  const mismatch = (why) => fail('kind-mismatch', `${p.kind}: ${why}`);
  if (p.kind === 'committed-blind' && (ccs !== true || p.blind !== true)) mismatch('needs committed_before_client_seed and blind');
  if (p.kind === 'committed-open' && ccs !== true) mismatch('needs committed_before_client_seed');
  if (p.kind === 'tournament' && ccs !== true) mismatch('needs committed_before_client_seed');
  const tournament = opt(p, 'tournament') !== null;
  const player = opt(p, 'player') !== null;
  if (tournament !== player) mismatch('tournament and player are both null or both set');
  if (tournament !== (p.kind === 'tournament')) mismatch(`tournament and player are set exactly for the tournament kind`);
  if (p.kind === 'committed-blind') {
    let options;
    try { options = readOptions(p.variant, p.options); } catch { return; } // left to the replay
    if (isOpen(p.variant, options)) mismatch(`${p.variant} with these options is an open variant`);
  }
}

/** Step 6's options comparison (section 4.5, step 6). `p.server_seed` is the seed known, or null. */
function checkExpectedOptions(p, asked) {
  const draw = p.server_seed === null
    ? { table: () => ANY_TABLE, version: () => ANY_VERSION }
    : {
      table: (system) => drawTable(seedBytes(p.server_seed), p.client_seed, system),
      version: () => randomVersion(seedBytes(p.server_seed), p.client_seed),
    };
  let want; let got;
  try { got = readOptions(p.variant, p.options); } catch (e) { fail('mismatch', `the receipt's options do not read: ${e.message}`); }
  try { want = readOptions(p.variant, asked, draw); } catch (e) { fail('mismatch', `the options asked do not read: ${e.message}`); }
  for (const k of Object.keys(want)) {
    const w = want[k];
    const same = w === ANY_TABLE ? isObject(got[k]) : w === ANY_VERSION ? isJsonInt(got[k]) : sameJson(w, got[k]);
    if (!same) fail('mismatch', `options.${k} differs from the one asked`);
  }
}

/** Step 6: the fields the caller knows, in the documented order. */
function checkExpected(p, expect) {
  const given = (f) => expect[f] !== undefined && expect[f] !== null;
  for (const field of ['deal_id', 'server_seed_hash', 'client_seed', 'variant', 'tournament', 'player']) {
    if (given(field) && expect[field] !== opt(p, field)) fail('mismatch', `${field} differs`);
  }
  if (given('issuer') && expect.issuer !== opt(p, 'iss')) fail('mismatch', `issuer ${opt(p, 'iss') ?? '(none)'}`);
  if (given('options')) checkExpectedOptions(p, expect.options);
  if (given('moves')) {
    let log;
    try { log = canonicalLog(p.variant, expect.moves); } catch (e) { fail('mismatch', `the moves asked do not read: ${e.message}`); }
    if (log !== p.moves) fail('mismatch', 'moves differ');
  }
}

/**
 * A server seed as bytes: hex digits in either case (a seed the caller gives, step 5; the seed
 * step 6 draws from, before step 8 checks its spelling), or the bytes given.
 */
function seedBytes(seed) {
  if (typeof seed !== 'string') return Buffer.from(seed);
  if (!/^(?:[0-9a-fA-F]{2})*$/.test(seed)) throw new Error('not hex digits');
  return Buffer.from(seed, 'hex');
}

/** Step 8 (sections 1, 4.3.1): the seed's one spelling, 64 lower-case hex digits. */
const SEED_SPELLING = /^[0-9a-f]{64}$/;

/** The decks a receipt's variant deals, by stream (protocol.md 3.5). */
export function decksOf(p, options) {
  const spec = VARIANTS[p.variant];
  if (!spec) throw new ReplayError(`unknown variant ${p.variant}`);
  const seed = seedBytes(p.server_seed);
  const decks = { deal: deckCards(seed, p.client_seed, spec.deckType, 'deal') };
  if (p.variant === 'repeat-poker' && options.levels === 5) {
    for (let k = 2; k <= 5; k += 1) decks[`level-${k}`] = deckCards(seed, p.client_seed, 'standard-52', `level-${k}`);
  }
  return decks;
}

/** Replays the log on the decks and returns the score the rules give (version 3 names). */
export function replay(p, decks, o) {
  const deal = decks.deal;
  switch (p.variant) {
    case 'poker-squares': return replayPokerSquares(deal, p.moves, o);
    case 'poker-patience': return replayPokerPatience(deal, p.moves, o);
    case 'serpent-patience': return replaySerpentPatience(deal, p.moves, o);
    case 'reserve-poker': {
      const { total, hands } = replayReservePoker(deal, p.moves, o);
      return { total, hands };
    }
    case 'repeat-poker': {
      const list = [deal, ...[2, 3, 4, 5].slice(0, o.levels - 1).map((k) => decks[`level-${k}`])];
      return replayRepeatPoker(list, p.moves, o);
    }
    case 'solodrez': return replaySolodrez(deal, p.moves);
    default: throw new ReplayError(`unknown variant ${p.variant}`);
  }
}

const SCORE_MEMBERS = ['total', 'hands', 'levels', 'won', 'series_removed'];
const HAND_MEMBERS = ['line', 'cards', 'category', 'points', 'level', 'removed'];

/**
 * Step 8's score comparison (sections 4.3.3, 4.3.4): every known member and every hand in
 * order, a version 2 receipt's line names renamed first, unknown members ignored.
 */
export function compareScore(p, expected) {
  const got = p.score;
  const mismatch = (why) => fail('score-mismatch', why);
  for (const k of SCORE_MEMBERS) {
    if (k === 'hands') continue;
    if (has(got, k) !== has(expected, k)) mismatch(`score.${k} ${has(got, k) ? 'is not' : 'is'} in the score the rules give`);
    if (has(got, k) && !sameJson(got[k], expected[k])) mismatch(`score.${k} is ${JSON.stringify(String(got[k]))}, the rules give ${JSON.stringify(expected[k])}`);
  }
  if (got.hands.length !== expected.hands.length) mismatch(`${got.hands.length} hands, the rules give ${expected.hands.length}`);
  expected.hands.forEach((want, i) => {
    const hand = { ...got.hands[i] };
    if (p.version === 2) hand.line = v3LineName(hand.line);
    for (const k of HAND_MEMBERS) {
      if (has(hand, k) !== has(want, k)) mismatch(`hand ${i}: ${k} ${has(hand, k) ? 'is not' : 'is'} in the rules' hand`);
      if (has(hand, k) && !sameJson(hand[k], want[k])) {
        mismatch(`hand ${i} (${want.line}): ${k} ${JSON.stringify(hand[k])}, the rules give ${JSON.stringify(want[k])}`);
      }
    }
  });
}

/**
 * verify_receipt(token, jwks, ...) of protocol.md 4.5, steps 1 to 8.
 * opts: allow (kinds beyond the committed ones), expect ({deal_id, server_seed_hash,
 * client_seed, variant, tournament, player, issuer, options, moves}), serverSeed (a seed the
 * caller holds: hex in any case, or 32 bytes), signatureOnly.
 */
export function verifyReceipt(token, jwks, opts = {}) {
  const {
    allow = [], expect = {}, serverSeed = null, signatureOnly = false,
  } = opts;
  // 1.
  const { header, payload: p, signature, signingInput } = splitToken(token);
  // 2.
  if (header.alg !== 'Ed25519') fail('unsupported-alg', `alg ${JSON.stringify(header.alg)}`);
  if (!TYPES.includes(header.typ)) fail('unsupported-typ', `typ ${JSON.stringify(header.typ)}`);
  if (has(header, 'crit')) fail('malformed', 'a crit header member: no extension is understood');
  if (typeof header.kid !== 'string') fail('malformed', 'the header\'s kid is not a string');
  const key = findKey(readKeySet(jwks), header.kid);
  if (signature.length !== 64) fail('malformed', 'an Ed25519 signature is 64 bytes');
  const publicKey = publicKeyOf(key);
  if (!cryptoVerify(null, signingInput, publicKey, signature)) fail('bad-signature', 'the signature does not verify');
  const iat = opt(p, 'iat');
  if (iat !== null && iat !== p.issued_at) fail('malformed', 'iat is not issued_at');
  const date = iat ?? p.issued_at;
  if ((has(key, 'nbf') && date < key.nbf) || (has(key, 'exp') && date >= key.exp)) {
    fail('key-not-valid', `dated ${date}, outside its key's period [${key.nbf ?? '-inf'}, ${key.exp ?? 'inf'})`);
  }
  if (date > now() + CLOCK_LEEWAY) fail('key-not-valid', `dated ${date}, more than ${CLOCK_LEEWAY} s ahead of this clock`);
  // 3.
  if ((p.version !== 2 && p.version !== 3) || opt(p, 'kind') === null) fail('bad-version', `version ${p.version}, kind ${opt(p, 'kind')}`);
  // 4.
  if (!COMMITTED_KINDS.includes(p.kind) && !allow.includes(p.kind)) fail('kind-not-allowed', p.kind);
  checkKindFlags(p);
  // 5.
  let givenHex = null;
  if (serverSeed !== null) {
    let bytes;
    try { bytes = seedBytes(serverSeed); } catch (e) { fail('seed-mismatch', `the seed given is not hex: ${e.message}`); }
    givenHex = bytes.toString('hex');
    if (p.server_seed !== null && p.server_seed.toLowerCase() !== givenHex) fail('seed-mismatch', 'the given seed is not the receipt\'s');
    if (createHash('sha256').update(bytes).digest('hex') !== p.server_seed_hash) {
      fail('seed-mismatch', 'the given seed does not hash to server_seed_hash');
    }
  }
  const seed = p.server_seed ?? givenHex;
  const withSeed = { ...p, server_seed: seed };
  // 6.
  checkExpected(withSeed, expect);
  // 7.
  if (seed === null) {
    if (signatureOnly) return { payload: p, header, replayed: false };
    fail('seed-not-revealed', 'the receipt carries no server seed');
  }
  // 8.
  if (p.version !== 2 && p.version !== 3) fail('bad-version', `version ${p.version}`);
  if (p.algorithm !== ALGORITHM) fail('unknown-algorithm', p.algorithm);
  if (typeof seed !== 'string' || !SEED_SPELLING.test(seed)) fail('seed-mismatch', 'the server seed is not 64 lower-case hex digits');
  const seedRaw = Buffer.from(seed, 'hex');
  if (createHash('sha256').update(seedRaw).digest('hex') !== p.server_seed_hash) {
    fail('seed-mismatch', 'SHA-256(server_seed) is not server_seed_hash');
  }
  let decks; let expected; let count;
  try {
    if (!(p.variant in VARIANTS)) throw new ReplayError(`unknown variant ${p.variant}`);
    const o = readOptions(p.variant, p.options);
    decks = decksOf({ ...withSeed, server_seed: seedRaw }, o);
    expected = replay(p, decks, o);
    count = splitLog(p.moves, MOVE_READERS[p.variant]).length;
    if (canonicalLog(p.variant, p.moves) !== p.moves) throw new ReplayError('the log is not in canonical text form');
  } catch (e) {
    if (e instanceof ReceiptError) throw e;
    fail('replay-failed', e.message);
  }
  compareScore(p, expected);
  const auto = opt(p, 'auto_placed');
  if (auto !== null) {
    auto.forEach((m, i) => {
      if (m < 0 || m >= count) fail('bad-auto-placed', `${m} is not a move of the log`);
      if (i > 0 && m <= auto[i - 1]) fail('bad-auto-placed', 'not strictly ascending');
    });
  }
  return { payload: p, header, replayed: true, decks, score: expected };
}

/**
 * `cardproof verify RECEIPT [--url URL] [--jwks FILE]` (section 4.6, `iss-mismatch`): the base
 * URL is --url, else $CARDPROOF_URL (`env`), else the SDK's default, never the receipt's `iss`,
 * with every trailing `/` removed (an empty --url or $CARDPROOF_URL is taken as not given: not
 * said, NOTES.md). `fetchJwks(url)` stands for the HTTP fetch of `URL + "/.well-known/jwks.json"`;
 * `jwks` for --jwks. After verify_receipt (signature_only) succeeds, keys fetched from the URL
 * and a receipt with `iss` need `iss` (its trailing `/`s removed) to equal the URL as a string.
 */
export function cliVerify(token, {
  url = null, env = process.env, jwks = null, fetchJwks = null, defaultUrl = 'http://127.0.0.1:8000', ...opts
} = {}) {
  const given = (v) => (typeof v === 'string' && v !== '' ? v : null);
  const base = (given(url) ?? given(env.CARDPROOF_URL) ?? defaultUrl).replace(/\/+$/, '');
  const fetched = jwks === null;
  const keys = fetched ? fetchJwks(`${base}/.well-known/jwks.json`) : jwks;
  const result = verifyReceipt(token, keys, { ...opts, signatureOnly: true });
  const iss = opt(result.payload, 'iss');
  if (fetched && iss !== null && iss.replace(/\/+$/, '') !== base) {
    fail('iss-mismatch', `keys from ${base}, the receipt names ${iss}`);
  }
  return result;
}

export { DECK_SIZES, GRID_VARIANTS };

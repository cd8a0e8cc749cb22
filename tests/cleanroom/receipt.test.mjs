// The receipt checker against every vector of tests/vectors/receipts.json, and against receipts
// forged here (signed with a key made for the test) to reach each check of protocol.md 4.5.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { generateKeyPairSync, sign as cryptoSign } from 'node:crypto';
import {
  NAMED_TABLES, deckCards, jwkThumbprint, pythonFromHex, randomVersion, serverSeedHash,
} from './derive.mjs';
import { replayRepeatPoker, reserveSeen } from './games.mjs';
import { parseJson } from './json.mjs';
import {
  ReceiptError, cliVerify, splitToken, verifyReceipt,
} from './receipt.mjs';

// receipts.json, then receipts-solodrez.json (protocol.md 6.4): R0..R10, then S0..S2 as 11..13.
const receipts = ['receipts.json', 'receipts-solodrez.json']
  .flatMap((name) => parseJson(readFileSync(new URL(`../vectors/${name}`, import.meta.url), 'utf8')));

/** How a vector is to be checked: the kinds it needs allowed and what its player knew. */
function optionsFor(r) {
  const expect = { server_seed_hash: r.server_seed_hash, client_seed: r.client_seed };
  if (r.system !== undefined) expect.options = { scoring: r.system };
  return { allow: r.kind ? [r.kind] : [], expect };
}

function refuses(fn, code) {
  assert.throws(fn, (e) => {
    assert.ok(e instanceof ReceiptError, `not a ReceiptError: ${e}`);
    assert.equal(e.code, code, e.message);
    return true;
  });
}

const payloadOf = (r) => splitToken(r.receipt).payload;
const indexWhere = (pred) => receipts.findIndex((r) => pred(payloadOf(r), r));

test('receipts.json holds version 2 and 3 receipts, a practice one, drawn tables, lies, a ladder', () => {
  const versions = new Set(receipts.map((r) => payloadOf(r).version));
  assert.ok(versions.has(2) && versions.has(3));
  assert.ok(receipts.some((r) => r.kind === 'practice'));
  assert.ok(receipts.some((r) => r.system !== undefined && r.lie === undefined));
  assert.deepEqual(receipts.filter((r) => r.lie).map((r) => r.lie).sort(), ['key-period', 'table']);
  assert.ok(indexWhere((p) => p.variant === 'repeat-poker' && p.options.levels === 5) >= 0);
});

/** Which streams a variant deals, in order (protocol.md 3.5). */
function streamsOf(p) {
  if (p.variant === 'repeat-poker' && p.options.levels === 5) return ['deal', 'level-2', 'level-3', 'level-4', 'level-5'];
  return ['deal'];
}

/**
 * The cards a player was shown, as (stream, index) (protocol.md 3.5): poker-squares,
 * poker-patience and repeat-poker card i (counting across the levels' decks) once i moves
 * were played, up to the last card placed; serpent-patience the first 25 from the start;
 * reserve-poker by its version; nothing for a practice receipt.
 */
function expectedSeen(p) {
  if (p.kind === 'practice') return [];
  // solodrez is open: all 56 cards show from the deal (rules.md 7, protocol.md 3.5).
  if (p.variant === 'solodrez') return Array.from({ length: 56 }, (_, index) => ({ stream: 'deal', index }));
  const moves = p.moves.trim().split(/\s+/).length;
  if (p.variant === 'reserve-poker') {
    return reserveSeen(53, p.moves, p.options.version).map((index) => ({ stream: 'deal', index }));
  }
  const size = p.variant === 'repeat-poker' ? 52 : 25;
  const streams = streamsOf(p);
  const count = p.variant === 'serpent-patience' ? 25 : moves;
  return Array.from({ length: count }, (_, g) => ({ stream: streams[Math.floor(g / size)], index: g % size }));
}

const key = (s) => `${s.stream}/${s.index}`;

receipts.forEach((r, n) => {
  const payload = payloadOf(r);
  const label = `receipt vector ${n}: v${payload.version} ${payload.variant} ${payload.kind}`
    + `${r.system ? ` ${r.system}` : ''}${r.lie ? ` lie=${r.lie}` : ''}`;

  if (r.lie !== undefined) {
    test(`${label} is refused`, () => {
      // What each lie is refused with (protocol.md 6.4): step 6, or step 2.
      const code = { table: 'mismatch', 'key-period': 'key-not-valid' }[r.lie];
      assert.ok(code, `a lie the documents do not describe: ${r.lie}`);
      refuses(() => verifyReceipt(r.receipt, r.jwks, optionsFor(r)), code);
      if (r.lie === 'table') {
        // Its signature, seeds, cards and score hold: without expect it is accepted.
        assert.equal(verifyReceipt(r.receipt, r.jwks, { ...optionsFor(r), expect: {} }).replayed, true);
      }
      if (r.lie === 'key-period') {
        const { payload: p } = splitToken(r.receipt);
        assert.equal(r.jwks.keys[0].exp, p.iat, 'the key expires at the receipt\'s iat');
        // The same token verifies with R8's key set (the receipt it was taken from).
        const r8 = receipts.find((x) => x.receipt === r.receipt && x.lie === undefined);
        if (r8) assert.equal(verifyReceipt(r.receipt, r8.jwks, optionsFor(r8)).replayed, true);
        const keys = r.jwks.keys.map(({ nbf: _n, exp: _e, ...k }) => k);
        assert.equal(verifyReceipt(r.receipt, { keys }, optionsFor(r)).replayed, true);
      }
    });
    return;
  }

  test(`${label} verifies and replays`, () => {
    const result = verifyReceipt(r.receipt, r.jwks, optionsFor(r));
    assert.equal(result.replayed, true);
    assert.equal(result.payload.server_seed_hash, r.server_seed_hash);
    assert.equal(result.payload.client_seed, r.client_seed);
    assert.equal(result.payload.score.total, result.score.total);
    if (r.kind === undefined) assert.ok(['committed-blind', 'committed-open'].includes(payload.kind));
    else assert.equal(payload.kind, r.kind);
  });

  test(`${label}: the cards shown were the ones dealt`, () => {
    const deckType = { 'reserve-poker': 'joker-53', solodrez: 'pokerdrez-56' }[payload.variant] ?? 'standard-52';
    const decks = {};
    for (const s of r.seen) {
      decks[s.stream] ??= deckCards(payload.server_seed, payload.client_seed, deckType, s.stream);
      assert.equal(decks[s.stream][s.index], s.card, key(s));
    }
    assert.deepEqual(r.seen.map(key).sort(), expectedSeen(payload).map(key).sort());
  });

  test(`${label}: the key set and the named tables`, () => {
    for (const k of r.jwks.keys) assert.equal(k.kid, jwkThumbprint(k.x)); // protocol.md 4.2: what the service issues
    assert.deepEqual(r.tables, NAMED_TABLES);
  });
});

// ---- the repeat-poker ladder (R10) ------------------------------------------------------

const ladderIndex = indexWhere((p) => p.variant === 'repeat-poker' && p.options.levels === 5);
const ladder = receipts[ladderIndex];

test('the ladder: five decks, 260 moves, rows 5..1, hands in row order (rules.md 5, protocol.md 4.3.3)', () => {
  const p = payloadOf(ladder);
  assert.deepEqual(p.options, { rows: 5, levels: 5 });
  const moves = p.moves.split(' ');
  assert.equal(moves.length, 260);
  const decks = streamsOf(p).map((s) => deckCards(p.server_seed, p.client_seed, 'standard-52', s));
  // Level k has 6 - k rows: its moves name no row above that.
  for (let level = 1; level <= 5; level += 1) {
    const rows = moves.slice((level - 1) * 52, level * 52).map((m) => Number(m[1]));
    assert.ok(Math.max(...rows) <= 6 - level, `level ${level}`);
  }
  // The first hand is row 1 of level 1: the cards placed into it, in the order placed.
  const firstRow = moves.map((m, i) => [m, i]).filter(([m, i]) => m === 'r1' && i < 52).slice(0, 5).map(([, i]) => decks[0][i]);
  assert.deepEqual(p.score.hands[0].cards, firstRow);
  assert.equal(p.score.levels.length, 5);
  assert.equal(p.score.levels.reduce((a, b) => a + b, 0), p.score.total);
  const levels = p.score.hands.map((h) => h.level);
  assert.deepEqual(levels, [...levels].sort((a, b) => a - b), 'hands in move order, level after level');
  for (const h of p.score.hands) {
    assert.match(h.line, /^row [1-5]$/);
    assert.ok(Number(h.line[4]) <= 6 - h.level, `${h.line} at level ${h.level}`);
    // removed: a sub-list of the cards, in row order.
    const positions = h.removed.map((c) => h.cards.indexOf(c));
    assert.ok(positions.every((x, i) => x >= 0 && (i === 0 || x > positions[i - 1])), `${h.line}: ${h.removed}`);
  }
  // The level totals are the replay's: every hand's points summed per level.
  const perLevel = [0, 0, 0, 0, 0];
  for (const h of p.score.hands) perLevel[h.level - 1] += h.points;
  assert.deepEqual(perLevel, p.score.levels);
});

test('the ladder: options compared as the variant reads them (protocol.md 4.3.2, 4.5 step 6)', () => {
  const ok = (options) => assert.equal(verifyReceipt(ladder.receipt, ladder.jwks, { expect: { options } }).replayed, true);
  ok({ levels: 5 });
  ok({ levels: 5, rows: 5 });
  ok({ levels: 5, high_card: 'drop-top' });
  for (const options of [{}, { levels: 1 }, { levels: 5, high_card: 'clear-row' }, { levels: 5, rows: 4 }, { levels: 5, diagonals: true }]) {
    refuses(() => verifyReceipt(ladder.receipt, ladder.jwks, { expect: { options } }), 'mismatch');
  }
  const p = payloadOf(ladder);
  const rows = p.moves.split(' ').map((m) => ({ row: Number(m[1]) - 1 }));
  assert.equal(verifyReceipt(ladder.receipt, ladder.jwks, { expect: { moves: rows } }).replayed, true);
  refuses(() => verifyReceipt(ladder.receipt, ladder.jwks, { expect: { moves: p.moves.replace('r2', 'r1') } }), 'mismatch');
});

// ---- tokens re-spelled or tampered with ------------------------------------------------

const genuineIndex = receipts.findIndex((x) => !x.kind && !x.lie);
const genuine = receipts[genuineIndex];
const [h0, p0, s0] = genuine.receipt.split('.');

test('re-spelled and broken tokens are malformed', () => {
  const last = s0[s0.length - 1];
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  // 64 bytes encode to 86 characters: the last carries 2 unused bits.
  const stray = alphabet[alphabet.indexOf(last) ^ 1];
  const spellings = [
    `${h0}.${p0}`, `${h0}.${p0}.${s0}.`, `${h0}.${p0}.${s0}==`, `${h0}=.${p0}.${s0}`,
    `${h0}.${p0}.${s0.slice(0, -1)}${stray}`, `${h0}.${p0.replace(/_/g, '/').replace(/-/g, '+')}.${s0}`,
    `${h0}.${p0} .${s0}`, 'a.b.c', `bm90IGpzb24.${p0}.${s0}`,
  ];
  for (const t of spellings) {
    if (t === genuine.receipt) continue;
    refuses(() => verifyReceipt(t, genuine.jwks), 'malformed');
  }
  // White space around the whole token is stripped (protocol.md 4.1).
  assert.equal(verifyReceipt(` \n${genuine.receipt}\t`, genuine.jwks).replayed, true);
});

test('a flipped signature bit is a bad signature; a short one is malformed (4.5 step 2)', () => {
  const sig = Buffer.from(s0, 'base64url');
  sig[10] ^= 1;
  refuses(() => verifyReceipt(`${h0}.${p0}.${sig.toString('base64url')}`, genuine.jwks), 'bad-signature');
  refuses(() => verifyReceipt(`${h0}.${p0}.${sig.subarray(0, 63).toString('base64url')}`, genuine.jwks), 'malformed');
  // The key is looked up before the signature's length is checked.
  refuses(() => verifyReceipt(`${h0}.${p0}.${sig.subarray(0, 63).toString('base64url')}`, { keys: [] }), 'unknown-key');
});

test('finding the key (protocol.md 4.2): the first with the kid, the kid not recomputed', () => {
  const k = genuine.jwks.keys[0];
  refuses(() => verifyReceipt(genuine.receipt, { keys: [] }), 'unknown-key');
  refuses(() => verifyReceipt(genuine.receipt, { keys: [{ ...k, crv: 'X25519' }] }), 'unknown-key');
  refuses(() => verifyReceipt(genuine.receipt, { keys: [{ ...k, kty: 'EC' }] }), 'unknown-key');
  const { x: _x, ...noX } = k;
  refuses(() => verifyReceipt(genuine.receipt, { keys: [noX] }), 'unknown-key');
  refuses(() => verifyReceipt(genuine.receipt, { keys: [{ ...k, x: `${k.x}A` }] }), 'unknown-key');
  refuses(() => verifyReceipt(genuine.receipt, { keys: [{ ...k, x: 'AAAA' }] }), 'unknown-key');
  // The right kid on another key: not refused as a key, the signature gives it away.
  const other = generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' }).x;
  refuses(() => verifyReceipt(genuine.receipt, { keys: [{ ...k, x: other }] }), 'bad-signature');
  refuses(() => verifyReceipt(genuine.receipt, { keys: [{ ...k, x: other }, k] }), 'bad-signature');
  assert.equal(verifyReceipt(genuine.receipt, { keys: [k, { ...k, x: other }] }).replayed, true);
  // use and alg are not read; other members are ignored.
  assert.equal(verifyReceipt(genuine.receipt, { keys: [{ ...k, use: 'enc', alg: 'RS256', extra: 1 }], other: true }).replayed, true);
});

test('a key set that is not {"keys": [...]} is bad-jwks (protocol.md 4.2)', () => {
  const k = genuine.jwks.keys[0];
  for (const jwks of [{}, { keys: {} }, [], null, { keys: [k, 'x'] }, { keys: [k, { kid: 'x' }] },
    { keys: [{ ...k, exp: '99999999999' }] }, { keys: [{ ...k, nbf: null }] },
    `{"keys":[${JSON.stringify({ ...k, exp: 1 }).replace('"exp":1', '"exp":9999999999.0')}]}`, '{"keys":']) {
    refuses(() => verifyReceipt(genuine.receipt, jwks), 'bad-jwks');
  }
  assert.equal(verifyReceipt(genuine.receipt, JSON.stringify(genuine.jwks)).replayed, true);
});

// ---- receipts forged with a key made here ----------------------------------------------

const { privateKey, publicKey } = generateKeyPairSync('ed25519');
const x = publicKey.export({ format: 'jwk' }).x;
const kid = jwkThumbprint(x);
const jwks = { keys: [{ kty: 'OKP', kid, crv: 'Ed25519', x, use: 'sig', alg: 'Ed25519' }, ...genuine.jwks.keys] };
const b64 = (text) => Buffer.from(text, 'utf8').toString('base64url');

function forgeText(headerText, payloadText) {
  const input = `${b64(headerText)}.${b64(payloadText)}`;
  return `${input}.${cryptoSign(null, Buffer.from(input, 'ascii'), privateKey).toString('base64url')}`;
}
const forge = (payload, header = { alg: 'Ed25519', kid, typ: 'JOSE' }) => forgeText(JSON.stringify(header), JSON.stringify(payload));

const base = (n) => structuredClone(payloadOf(receipts[n]));
const squares = indexWhere((p, r) => !r.kind && !r.lie && p.variant === 'poker-squares' && p.version === 2);
const serpentIndex = indexWhere((p) => p.variant === 'serpent-patience');

test('every vector re-signed with another key in the set verifies (the forging path is sound)', () => {
  receipts.forEach((r) => {
    const res = verifyReceipt(forge(payloadOf(r)), jwks, { allow: ['practice'] });
    assert.equal(res.replayed, true);
  });
});

test('alg other than Ed25519 is refused before typ, the key and the signature', () => {
  for (const alg of ['EdDSA', 'ed25519', 'none', undefined]) {
    refuses(() => verifyReceipt(forge(base(squares), { alg, kid, typ: 'JWT' }), { keys: [] }), 'unsupported-alg');
  }
});

test('version 1, no kind, an unknown version, an unknown kind', () => {
  const p = base(squares);
  refuses(() => verifyReceipt(forge({ ...p, version: 1 }), jwks), 'bad-version');
  refuses(() => verifyReceipt(forge({ ...p, version: 4 }), jwks), 'bad-version');
  const { kind: _kind, ...noKind } = p;
  refuses(() => verifyReceipt(forge(noKind), jwks), 'bad-version');
  refuses(() => verifyReceipt(forge({ ...p, kind: null }), jwks), 'bad-version');
  // An unknown kind string is malformed at step 1 (protocol.md 4.3.1), before the signature.
  refuses(() => verifyReceipt(forge({ ...p, kind: 'committed' }), { keys: [] }), 'malformed');
  refuses(() => verifyReceipt(forge({ ...p, kind: 7 }), jwks), 'malformed');
});

test("kinds: allowed or not, and only the second table's flags (protocol.md 4.4)", () => {
  const p = base(squares);
  const casual = { ...p, kind: 'casual', committed_before_client_seed: false };
  refuses(() => verifyReceipt(forge(casual), jwks), 'kind-not-allowed');
  assert.equal(verifyReceipt(forge(casual), jwks, { allow: ['casual'] }).replayed, true);
  refuses(() => verifyReceipt(forge({ ...p, blind: false }), jwks), 'kind-mismatch');
  refuses(() => verifyReceipt(forge({ ...p, committed_before_client_seed: false }), jwks), 'kind-mismatch');
  refuses(() => verifyReceipt(forge({ ...p, kind: 'committed-open', committed_before_client_seed: false }), jwks), 'kind-mismatch');
  refuses(() => verifyReceipt(forge({ ...p, kind: 'tournament', tournament: 't_x', player: 'Ann', committed_before_client_seed: false }), jwks), 'kind-mismatch');
  // Nothing else of the first table is checked:
  const accepted = [
    [{ ...casual, committed_before_client_seed: true }, ['casual']],
    [{ ...p, kind: 'practice' }, ['practice']], // a deal_id, blind: true
    [{ ...p, kind: 'committed-open' }, []], // a hidden variant
    [{ ...base(serpentIndex), kind: 'committed-open', blind: false }, []],
    [{ ...p, deal_id: null }, []],
    [{ ...p, kind: 'tournament', tournament: 't_x', player: 'Ann', blind: false, deal_id: null }, []],
    [{ ...p, kind: 'tournament', tournament: '', player: '' }, []], // set: not null, empty or not
  ];
  for (const [q, allow] of accepted) assert.equal(verifyReceipt(forge(q), jwks, { allow }).replayed, true, q.kind);
});

test('kinds: tournament and player both null or both set, set exactly for the tournament kind (4.4)', () => {
  const p = base(squares);
  assert.equal(p.tournament, null);
  assert.equal(p.player, null);
  const t = { ...p, kind: 'tournament', tournament: 't_x', player: 'Ann' };
  assert.equal(verifyReceipt(forge(t), jwks).replayed, true);
  const casual = { ...p, kind: 'casual', committed_before_client_seed: false };
  const practice = { ...p, kind: 'practice', committed_before_client_seed: false, blind: false, deal_id: null };
  const serpent = { ...base(serpentIndex), kind: 'committed-open' };
  const refused = [
    { ...t, player: null }, // a tournament without a player
    { ...t, tournament: null }, // a player without a tournament (and a tournament kind without one)
    (({ player: _x, ...q }) => q)(t), // absent reads as null (4.3.1)
    { ...p, player: 'Ann' }, // committed-blind with a player
    { ...p, tournament: 't_x' }, // committed-blind with a tournament
    { ...p, tournament: 't_x', player: 'Ann' }, // both set on another kind
    { ...serpent, tournament: 't_x', player: 'Ann' },
    { ...casual, tournament: 't_x', player: 'Ann' },
    { ...practice, player: 'Ann' },
  ];
  for (const q of refused) {
    refuses(() => verifyReceipt(forge(q), jwks, { allow: ['casual', 'practice'] }), 'kind-mismatch');
  }
  // Step 4 comes after the signature (step 2) and the version (step 3), before the seed (step 5).
  refuses(() => verifyReceipt(forge({ ...p, player: 'Ann' }), { keys: [] }), 'unknown-key');
  refuses(() => verifyReceipt(forge({ ...p, player: 'Ann', version: 1 }), jwks), 'bad-version');
  refuses(() => verifyReceipt(forge({ ...p, player: 'Ann', kind: 'casual' }), jwks), 'kind-not-allowed');
  refuses(() => verifyReceipt(forge({ ...p, player: 'Ann' }), jwks, { serverSeed: 'ff'.repeat(32) }), 'kind-mismatch');
  // Both null, absent or null, on every other kind: accepted.
  const { tournament: _t, player: _p, ...neither } = p;
  for (const q of [neither, { ...casual, tournament: null, player: null }, practice, serpent]) {
    assert.equal(verifyReceipt(forge(q), jwks, { allow: ['casual', 'practice'] }).replayed, true, q.kind);
  }
});

test('kinds: a committed-blind receipt is of a hidden variant with its options (4.4)', () => {
  const open = [
    { ...base(serpentIndex), kind: 'committed-blind', blind: true }, // R3 re-labelled
  ];
  const reserveIndex = indexWhere((q) => q.variant === 'reserve-poker');
  const reserve = base(reserveIndex);
  assert.equal(reserve.kind, 'committed-blind');
  assert.notEqual(reserve.options.version, 5);
  open.push({ ...reserve, options: { version: 5 } }); // reserve-poker version 5 is open
  const solodrez = {
    ...base(serpentIndex), kind: 'committed-blind', blind: true, variant: 'solodrez', options: {}, moves: 'stop',
    score: { total: 0, hands: [], won: false, series_removed: 0 },
  };
  open.push(solodrez);
  for (const q of open) refuses(() => verifyReceipt(forge(q), jwks), 'kind-mismatch');
  // Past step 4: verified, or refused by the replay only (another version is another game).
  const beyondStep4 = (q) => {
    try { verifyReceipt(forge(q), jwks); } catch (e) {
      assert.ok(['replay-failed', 'score-mismatch'].includes(e.code), `${JSON.stringify(q.options)}: ${e.message}`);
    }
  };
  // The same receipts as committed-open pass step 4.
  assert.equal(verifyReceipt(forge({ ...open[0], kind: 'committed-open' }), jwks).replayed, true);
  assert.equal(verifyReceipt(forge({ ...solodrez, kind: 'committed-open' }), jwks).replayed, true);
  beyondStep4({ ...open[1], kind: 'committed-open' });
  // Hidden variants pass: every reserve-poker version but 5, and the other three.
  assert.equal(verifyReceipt(forge(reserve), jwks).replayed, true);
  for (const version of [1, 2, 3, 4, 6]) beyondStep4({ ...reserve, options: { version } });
  for (const n of [squares, indexWhere((q) => q.variant === 'poker-patience'), ladderIndex]) {
    assert.equal(verifyReceipt(forge(base(n)), jwks).replayed, true, base(n).variant);
  }
  // Missing options are the defaults: reserve-poker version 1, hidden.
  beyondStep4({ ...reserve, options: {} });
  // Options that do not read, and (not said) an unknown variant, are left to the replay.
  for (const options of [{ version: 7 }, { version: '5' }, { version: 5, extra: 1 }, { version: 'random' }]) {
    refuses(() => verifyReceipt(forge({ ...reserve, options }), jwks), 'replay-failed');
  }
  refuses(() => verifyReceipt(forge({ ...reserve, variant: 'reserve-poker-2' }), jwks), 'replay-failed');
  // Not checked: a committed-open receipt of a hidden variant, or of reserve-poker 1..4, 6.
  assert.equal(verifyReceipt(forge({ ...reserve, kind: 'committed-open' }), jwks).replayed, true);
});

test('tournament receipts: seed withheld, then given by the caller (4.5 steps 5, 7)', () => {
  const p = { ...base(squares), kind: 'tournament', tournament: 't_abc', player: 'Ann' };
  const seed = p.server_seed;
  const hidden = forge({ ...p, server_seed: null });
  refuses(() => verifyReceipt(hidden, jwks), 'seed-not-revealed');
  assert.equal(verifyReceipt(hidden, jwks, { signatureOnly: true }).replayed, false);
  assert.equal(verifyReceipt(hidden, jwks, { serverSeed: seed }).replayed, true);
  assert.equal(verifyReceipt(hidden, jwks, { serverSeed: seed.toUpperCase() }).replayed, true);
  assert.equal(verifyReceipt(hidden, jwks, { serverSeed: Buffer.from(seed, 'hex') }).replayed, true);
  refuses(() => verifyReceipt(hidden, jwks, { serverSeed: '00'.repeat(32) }), 'seed-mismatch');
  refuses(() => verifyReceipt(hidden, jwks, { serverSeed: 'not hex' }), 'seed-mismatch');
  refuses(() => verifyReceipt(forge(p), jwks, { serverSeed: 'ff'.repeat(32) }), 'seed-mismatch');
  assert.equal(verifyReceipt(forge(p), jwks, { serverSeed: seed.toUpperCase() }).replayed, true);
  // The given seed stands in for the receipt's in step 6 too.
  refuses(() => verifyReceipt(hidden, jwks, { serverSeed: seed, expect: { moves: 'a1' } }), 'mismatch');
});

test('a drawn table asked of a receipt without its seed matches any table (4.5 step 6)', () => {
  const drawn = indexWhere((_p, r) => r.system !== undefined && !r.lie);
  const liar = indexWhere((_p, r) => r.lie === 'table');
  const system = receipts[drawn].system;
  for (const n of [drawn, liar]) {
    const p = { ...base(n), kind: 'tournament', tournament: 't_abc', player: 'Ann', server_seed: null };
    const res = verifyReceipt(forge(p), jwks, { signatureOnly: true, expect: { options: { scoring: system } } });
    assert.equal(res.replayed, false);
    refuses(() => verifyReceipt(forge(p), jwks, { signatureOnly: true, expect: { options: { scoring: 'american' } } }), 'mismatch');
    // With the seed given the draw is checked: only the honest table passes.
    const seed = base(n).server_seed;
    const ask = () => verifyReceipt(forge(p), jwks, { serverSeed: seed, expect: { options: { scoring: system } } });
    if (n === drawn) assert.equal(ask().replayed, true);
    else refuses(ask, 'mismatch');
  }
  // A receipt alone cannot tell its table was drawn: without expect the drawn one verifies,
  // and asking another system refuses it.
  const r = receipts[drawn];
  assert.equal(verifyReceipt(r.receipt, r.jwks).replayed, true);
  refuses(() => verifyReceipt(r.receipt, r.jwks, { expect: { options: { scoring: 'random' } } }), 'mismatch');
});

test('fields the caller knows (4.5 step 6)', () => {
  const r = receipts[squares];
  const p = base(squares);
  for (const [field, value] of [['client_seed', 'another'], ['deal_id', 'd_x'], ['variant', 'poker-patience'],
    ['server_seed_hash', '00'.repeat(32)], ['moves', 'a1'], ['tournament', 't_x'], ['player', 'Bob'],
    ['issuer', 'http://127.0.0.1:8000']]) {
    refuses(() => verifyReceipt(r.receipt, r.jwks, { expect: { [field]: value } }), 'mismatch');
  }
  refuses(() => verifyReceipt(r.receipt, r.jwks, { expect: { options: { scoring: 'british' } } }), 'mismatch');
  refuses(() => verifyReceipt(r.receipt, r.jwks, { expect: { options: { diagonals: true } } }), 'mismatch');
  refuses(() => verifyReceipt(r.receipt, r.jwks, { expect: { options: { bogus: 1 } } }), 'mismatch');
  // A named table is not a custom table with its points (4.5 step 6).
  refuses(() => verifyReceipt(r.receipt, r.jwks, { expect: { options: { scoring: NAMED_TABLES.american } } }), 'mismatch');
  const ok = (expect) => assert.equal(verifyReceipt(r.receipt, r.jwks, { expect }).replayed, true);
  ok({ options: p.options, moves: p.moves, deal_id: p.deal_id });
  ok({ options: {} }); // defaults filled in: american, no diagonals
  ok({ options: { scoring: 'american', diagonals: false } });
  // The caller's log is put in canonical text first.
  ok({ moves: `  ${p.moves.toUpperCase().split(' ').join('\n')} ` });
  ok({ moves: p.moves.split(' ').map((c) => ({ row: Number(c[1]) - 1, col: 'abcde'.indexOf(c[0]) })) });
  // Two custom tables are equal when their points are (a category left out is 0).
  const drawn = receipts[indexWhere((_p, x) => x.system !== undefined && !x.lie)];
  const table = payloadOf(drawn).options.scoring;
  const { 'five-of-a-kind': _five, 'high-card': _high, ...fewer } = table;
  assert.equal(table['high-card'], 0);
  assert.equal(verifyReceipt(drawn.receipt, drawn.jwks, { expect: { options: { scoring: fewer } } }).replayed, true);
  refuses(() => verifyReceipt(drawn.receipt, drawn.jwks, { expect: { options: { scoring: { ...fewer, flush: fewer.flush + 1 } } } }), 'mismatch');
});

test('a reserve-poker "random" version asked for must be the seeds\' roll (3.6)', () => {
  const n = indexWhere((p) => p.variant === 'reserve-poker');
  const r = receipts[n];
  const p = payloadOf(r);
  const roll = randomVersion(p.server_seed, p.client_seed);
  const ask = () => verifyReceipt(r.receipt, r.jwks, { expect: { options: { version: 'random' } } });
  if (roll === p.options.version) assert.equal(ask().replayed, true);
  else refuses(ask, 'mismatch');
  const q = base(n);
  q.options = { version: (roll % 6) + 1 };
  refuses(() => verifyReceipt(forge(q), jwks, { expect: { options: { version: 'random' } } }), 'mismatch');
  // "random" in a receipt's own options is refused: it carries the number rolled.
  refuses(() => verifyReceipt(forge({ ...base(n), options: { version: 'random' } }), jwks), 'replay-failed');
});

test('the algorithm, the seed and its hash (4.5 step 8)', () => {
  const p = base(squares);
  refuses(() => verifyReceipt(forge({ ...p, algorithm: 'cardproof-shuffle-v2' }), jwks), 'unknown-algorithm');
  refuses(() => verifyReceipt(forge({ ...p, server_seed: '00'.repeat(32) }), jwks), 'seed-mismatch');
  refuses(() => verifyReceipt(forge({ ...p, server_seed: 'zz'.repeat(32) }), jwks), 'seed-mismatch');
  refuses(() => verifyReceipt(forge({ ...p, server_seed_hash: p.server_seed_hash.toUpperCase() }), jwks), 'seed-mismatch');
  const other = '11'.repeat(32);
  refuses(() => verifyReceipt(forge({ ...p, server_seed: other, server_seed_hash: serverSeedHash(other) }), jwks), 'score-mismatch');
  // A client seed of 0 or more than 256 bytes is refused at step 8, not at step 1.
  refuses(() => verifyReceipt(forge({ ...p, client_seed: '' }), jwks), 'replay-failed');
  refuses(() => verifyReceipt(forge({ ...p, client_seed: 'x'.repeat(257) }), jwks), 'replay-failed');
});

test("a receipt's server_seed is exactly 64 lower-case hex digits (4.3.1, 4.5 step 8)", () => {
  const p = base(squares);
  const seed = p.server_seed;
  assert.match(seed, /^[0-9a-f]{64}$/);
  const withSeed = (server_seed) => forge({ ...p, server_seed });
  // Spellings of the right 32 bytes (Python's bytes.fromhex reads the first five): refused.
  const respelled = [
    seed.toUpperCase(), seed.replace(/[a-f]/, (d) => d.toUpperCase()), seed.match(/../g).join(' '),
    ` ${seed}`, `${seed}\n`, seed.match(/../g).join('\t'), `0x${seed}`, seed.replace(/[0-9]/, (d) => String.fromCharCode(0xff10 + Number(d))),
  ];
  respelled.slice(0, 5).forEach((s) => assert.equal(pythonFromHex(s).toString('hex'), seed, s));
  for (const s of respelled) {
    assert.notEqual(s, seed);
    refuses(() => verifyReceipt(withSeed(s), jwks), 'seed-mismatch');
  }
  // Another length, with its own hash: 31 and 33 bytes, none (the empty text), an odd digit.
  for (const s of ['11'.repeat(31), '11'.repeat(33), '', `${seed}0`, seed.slice(0, 63)]) {
    const hash = /^(?:[0-9a-f]{2})*$/.test(s) ? serverSeedHash(Buffer.from(s, 'hex')) : p.server_seed_hash;
    refuses(() => verifyReceipt(forge({ ...p, server_seed: s, server_seed_hash: hash }), jwks), 'seed-mismatch');
  }
  // Checked in step 8's order: after the version and the algorithm, before the options and log.
  const upper = { ...p, server_seed: seed.toUpperCase() };
  refuses(() => verifyReceipt(forge({ ...upper, algorithm: 'cardproof-shuffle-v2' }), jwks), 'unknown-algorithm');
  refuses(() => verifyReceipt(forge({ ...upper, options: { diagonals: 'yes' } }), jwks), 'seed-mismatch');
  refuses(() => verifyReceipt(forge({ ...upper, moves: 'a1' }), jwks), 'seed-mismatch');
  refuses(() => verifyReceipt(forge({ ...upper, auto_placed: [99] }), jwks), 'seed-mismatch');
  // Not a pattern of step 1: with signature_only a receipt still passes steps 1 to 7 ...
  const hidden = { ...p, kind: 'tournament', tournament: 't_x', player: 'Ann' };
  refuses(() => verifyReceipt(forge({ ...hidden, server_seed: seed.toUpperCase() }), jwks, { signatureOnly: true }), 'seed-mismatch');
  refuses(() => verifyReceipt(forge({ ...hidden, server_seed: seed.toUpperCase() }), { keys: [] }), 'unknown-key');
  // ... and a given seed equal to it as lower-case hex passes step 5, then step 8 refuses it.
  refuses(() => verifyReceipt(forge({ ...hidden, server_seed: seed.toUpperCase() }), jwks, { serverSeed: seed }), 'seed-mismatch');
  // A seed the caller gives may be hex in any case or bytes: it stands in as its lower-case hex.
  const withheld = forge({ ...hidden, server_seed: null });
  assert.equal(verifyReceipt(withheld, jwks, { serverSeed: seed.toUpperCase() }).replayed, true);
  // A given seed of another length that hashes to server_seed_hash still fails step 8.
  const short = '11'.repeat(31);
  const shortReceipt = forge({ ...hidden, server_seed: null, server_seed_hash: serverSeedHash(Buffer.from(short, 'hex')) });
  refuses(() => verifyReceipt(shortReceipt, jwks, { serverSeed: short }), 'seed-mismatch');
  refuses(() => verifyReceipt(shortReceipt, jwks, { serverSeed: Buffer.from(short, 'hex') }), 'seed-mismatch');
  // Every vector's seed has the one spelling.
  for (const r of receipts) {
    const q = payloadOf(r);
    if (q.server_seed !== null) assert.match(q.server_seed, /^[0-9a-f]{64}$/);
  }
});

test('logs: only the canonical text form is signed (4.5 step 8); illegal or short logs are refused', () => {
  const p = base(squares);
  const cells = p.moves.split(' ');
  // Read as input (rules.md 1), but not the one spelling a receipt carries.
  for (const moves of [p.moves.replace(' ', '  '), `\n${cells.join('\t')} `, p.moves.replace('a1', 'A1'),
    p.moves.replace(' ', '\u00a0'), cells.slice(0, 24).join(' '), [cells[0], ...cells.slice(0, 24)].join(' '),
    `${p.moves} a1`, p.moves.replace('a1', 'f1'), p.moves.replace('a1', 'a1,')]) {
    refuses(() => verifyReceipt(forge({ ...p, moves }), jwks), 'replay-failed');
  }
  const serpent = base(serpentIndex);
  const path = serpent.moves.split(' ');
  [path[0], path[1]] = [path[1], path[0]];
  [path[4], path[5]] = [path[5], path[4]];
  refuses(() => verifyReceipt(forge({ ...serpent, moves: path.join(' ') }), jwks), 'replay-failed');
  const patience = base(indexWhere((q) => q.variant === 'poker-patience'));
  refuses(() => verifyReceipt(forge({ ...patience, moves: patience.moves.replace('0,0 0,1', '0,1 0,0') }), jwks), 'replay-failed');
  refuses(() => verifyReceipt(forge({ ...patience, moves: patience.moves.replace('0,1 0,2 0,3', '0,2 0,1 0,3') }), jwks), 'replay-failed');
  // rules.md 3: `+1` and `-0` are read as input, but a receipt writes `1` and `0`.
  const signed = patience.moves.split(' ').map((m) => m.replace(/(^|,)([1-4])/g, '$1+$2').replace(/(^|,)0(?=,|$)/g, '$1-0')).join(' ');
  assert.notEqual(signed, patience.moves);
  refuses(() => verifyReceipt(forge({ ...patience, moves: signed }), jwks), 'replay-failed');
  assert.equal(verifyReceipt(forge({ ...patience, moves: patience.moves }), jwks).replayed, true);
  const reserve = base(indexWhere((q) => q.variant === 'reserve-poker'));
  refuses(() => verifyReceipt(forge({ ...reserve, moves: reserve.moves.replace(/>[0-4]/g, '>0') }), jwks), 'replay-failed');
});

test('scores the rules do not give (4.5 step 8, 4.3.3)', () => {
  const p = base(squares);
  const edits = [
    (s) => { s.total += 1; },
    (s) => { s.hands[0].points += 1; s.total += 1; },
    (s) => { s.hands[0].category = 'flush'; },
    (s) => { s.hands[0].line = 'row 2'; },
    (s) => { s.hands[0].cards = [...s.hands[0].cards].reverse(); },
    (s) => { s.hands.pop(); },
    (s) => { s.levels = [s.total]; },
    (s) => { s.won = false; },
    (s) => { s.hands[1].removed = []; },
    (s) => { s.hands[1].level = 1; },
    (s) => { s.hands[2].cards = ['AS', 'AS', 'AS', 'AS', 'AS']; },
    (s) => { s.hands[2].cards = s.hands[3].cards; },
  ];
  for (const edit of edits) {
    const q = structuredClone(p);
    edit(q.score);
    refuses(() => verifyReceipt(forge(q), jwks), 'score-mismatch');
  }
  // Unknown members are ignored (4.3.1), in the payload, the score and a hand.
  const extra = structuredClone(p);
  extra.score.note = 'x';
  extra.score.hands[0].note = 'y';
  extra.sub = 'z';
  assert.equal(verifyReceipt(forge(extra), jwks).replayed, true);
  // Types are step 1: a hand that is not an object, an unknown category.
  for (const edit of [(s) => { s.hands[2] = null; }, (s) => { s.hands[0].category = 'joker'; }, (s) => { s.levels = null; },
    (s) => { delete s.hands[2].line; }, (s) => { s.hands[1].cards = 'AS KS QS JS TS'; }, (s) => { delete s.total; }]) {
    const q = structuredClone(p);
    edit(q.score);
    refuses(() => verifyReceipt(forge(q), { keys: [] }), 'malformed');
  }
});

test('versions 2 and 3 (4.3.4): version 2 names renamed, version 3 names left as they are', () => {
  const v2 = base(indexWhere((q) => q.options.diagonals === true && q.version === 2));
  assert.equal(verifyReceipt(forge(v2), jwks).replayed, true);
  refuses(() => verifyReceipt(forge({ ...v2, version: 3 }), jwks), 'score-mismatch');
  const renamed = structuredClone(v2);
  for (const h of renamed.score.hands) {
    h.line = h.line.replace(/^col ([1-5])$/, (_m, d) => `col ${'abcde'[d - 1]}`)
      .replace('diagonal 1', 'diagonal \\').replace('diagonal 2', 'diagonal /');
  }
  assert.notDeepEqual(renamed.score, v2.score);
  assert.equal(verifyReceipt(forge(renamed), jwks).replayed, true); // version 2 with version 3 names
  assert.equal(verifyReceipt(forge({ ...renamed, version: 3 }), jwks).replayed, true);
  const v3 = base(indexWhere((q, r) => q.version === 3 && !r.lie && q.variant === 'poker-squares'));
  assert.equal(verifyReceipt(forge({ ...v3, version: 2 }), jwks).replayed, true);
});

test('a table edited after the game no longer scores it', () => {
  const p = base(indexWhere((_q, r) => r.system !== undefined && !r.lie));
  p.options.scoring['two-pair'] += 1;
  refuses(() => verifyReceipt(forge(p), jwks), 'score-mismatch');
});

test('auto_placed names moves of the log, each once, ascending', () => {
  const p = base(squares);
  for (const auto of [[0, 7, 24], [], null]) {
    assert.equal(verifyReceipt(forge({ ...p, auto_placed: auto }), jwks).replayed, true);
  }
  const { auto_placed: _a, ...none } = p;
  assert.equal(verifyReceipt(forge(none), jwks).replayed, true);
  for (const auto of [[3, 3], [7, 2], [25], [-1]]) {
    refuses(() => verifyReceipt(forge({ ...p, auto_placed: auto }), jwks), 'bad-auto-placed');
  }
  refuses(() => verifyReceipt(forge({ ...p, auto_placed: ['1'] }), jwks), 'malformed');
});

test('required and optional payload members (4.3.1)', () => {
  const p = base(squares);
  const optional = ['kind', 'player', 'tournament', 'auto_placed', 'iss', 'iat'];
  for (const field of Object.keys(p)) {
    const q = structuredClone(p);
    delete q[field];
    if (field === 'kind') refuses(() => verifyReceipt(forge(q), jwks), 'bad-version');
    else if (optional.includes(field)) assert.equal(verifyReceipt(forge(q), jwks).replayed, true, field);
    else refuses(() => verifyReceipt(forge(q), { keys: [] }), 'malformed'); // before the key
  }
  for (const [field, value] of [['deal_id', 7], ['server_seed', 5], ['blind', 'true'], ['options', []], ['moves', ['a1']],
    ['player', 1], ['issued_at', '1'], ['iat', true], ['version', '3'], ['client_seed', null]]) {
    refuses(() => verifyReceipt(forge({ ...p, [field]: value }), jwks), 'malformed');
  }
});

test('a JSON integer is an integer spelling; 3.0, 3e0 and true are not (4.3.1)', () => {
  const p = base(squares);
  const text = JSON.stringify(p);
  const header = JSON.stringify({ alg: 'Ed25519', kid, typ: 'JOSE' });
  assert.equal(verifyReceipt(forgeText(header, text), jwks).replayed, true);
  for (const spelled of [text.replace('"version":2', '"version":2.0'), text.replace('"version":2', '"version":2e0'),
    text.replace(`"issued_at":${p.issued_at}`, `"issued_at":${p.issued_at}.0`),
    text.replace(`"total":${p.score.total}`, `"total":${p.score.total}E0`)]) {
    assert.notEqual(spelled, text);
    refuses(() => verifyReceipt(forgeText(header, spelled), jwks), 'malformed');
  }
  // In options a non-integer is a value of the wrong type: replay-failed (4.3.2).
  const reserve = base(indexWhere((q) => q.variant === 'reserve-poker'));
  const rtext = JSON.stringify(reserve).replace(`"version":${reserve.options.version}}`, `"version":${reserve.options.version}.0}`);
  assert.notEqual(rtext, JSON.stringify(reserve));
  refuses(() => verifyReceipt(forgeText(header, rtext), jwks), 'replay-failed');
  // Not well-formed JSON: a lone surrogate escape, a byte order mark.
  refuses(() => verifyReceipt(forgeText(header, text.replace(`"client_seed":"`, '"client_seed":"\\ud800')), jwks), 'malformed');
  refuses(() => verifyReceipt(forgeText(header, `\ufeff${text}`), jwks), 'malformed');
});

test('a member named twice: the last occurrence is read (4.3.1)', () => {
  const p = base(squares);
  const header = JSON.stringify({ alg: 'Ed25519', kid, typ: 'JOSE' });
  const text = JSON.stringify(p);
  const lastCommitted = text.replace('"kind":"committed-blind"', '"kind":"practice","kind":"committed-blind"');
  assert.equal(verifyReceipt(forgeText(header, lastCommitted), jwks).replayed, true);
  const lastPractice = text.replace('"kind":"committed-blind"', '"kind":"committed-blind","kind":"practice"');
  refuses(() => verifyReceipt(forgeText(header, lastPractice), jwks), 'kind-not-allowed');
  assert.equal(verifyReceipt(forgeText(`{"alg":"EdDSA","alg":"Ed25519","kid":"${kid}","typ":"JOSE"}`, text), jwks).replayed, true);
  refuses(() => verifyReceipt(forgeText(`{"alg":"Ed25519","alg":"EdDSA","kid":"${kid}","typ":"JOSE"}`, text), jwks), 'unsupported-alg');
});

test('options a variant does not take, or of the wrong type (4.3.2)', () => {
  const patience = base(indexWhere((q) => q.variant === 'poker-patience'));
  refuses(() => verifyReceipt(forge({ ...patience, options: { ...patience.options, diagonals: true } }), jwks), 'replay-failed');
  const p = base(squares);
  for (const options of [{ ...p.options, diagonals: 'yes' }, { ...p.options, diagonals: 1 }, { ...p.options, scoring: 'ameritish' },
    { ...p.options, scoring: 'hoyle' }, { ...p.options, scoring: { 'one-pair': 2, joker: 1 } },
    { ...p.options, scoring: { 'one-pair': 1001 } }, { ...p.options, scoring: { 'one-pair': '2' } }]) {
    refuses(() => verifyReceipt(forge({ ...p, options }), jwks), 'replay-failed');
  }
  refuses(() => verifyReceipt(forge({ ...base(serpentIndex), variant: 'solodrez', options: { scoring: 'british' } }), jwks), 'replay-failed');
  // A custom table with the named table's points scores the same game.
  const { 'high-card': _h, 'five-of-a-kind': _f, ...american } = NAMED_TABLES.american;
  assert.equal(verifyReceipt(forge({ ...p, options: { ...p.options, scoring: american } }), jwks).replayed, true);
  // Missing options are their defaults.
  assert.equal(verifyReceipt(forge({ ...p, options: {} }), jwks).replayed, true);
});

// ---- repeat-poker one level, and solodrez (whose rules are not replayed here) ------------

function repeatReceipt(levels, rows, highCard) {
  const p = base(squares);
  // A row never stays full (rules.md 5), so always playing the first row is legal.
  const moves = Array(52 * levels).fill('r1').join(' ');
  const options = levels === 5 ? { rows: 5, levels: 5 } : { rows, levels: 1 };
  if (highCard) options.high_card = highCard;
  const decks = [deckCards(p.server_seed, p.client_seed, 'standard-52', 'deal'),
    ...[2, 3, 4, 5].slice(0, levels - 1).map((k) => deckCards(p.server_seed, p.client_seed, 'standard-52', `level-${k}`))];
  const score = replayRepeatPoker(decks, moves, { levels, rows: rows ?? 5, high_card: highCard ?? 'drop-top' });
  return { ...p, variant: 'repeat-poker', options, moves, score };
}

test('repeat-poker receipts made here: one level, clear-row, and the plumbing', () => {
  for (const [levels, rows, highCard] of [[1, 3], [1, 5, 'clear-row'], [5, undefined]]) {
    const q = repeatReceipt(levels, rows, highCard);
    assert.equal(verifyReceipt(forge(q), jwks).replayed, true);
    assert.equal(q.score.levels.length, levels);
    const edited = structuredClone(q);
    edited.score.hands[0].removed = edited.score.hands[0].cards.slice(0, 4);
    refuses(() => verifyReceipt(forge(edited), jwks), 'score-mismatch');
    const reordered = structuredClone(q);
    reordered.score.hands[0].cards.reverse(); // row order is compared (4.3.3)
    refuses(() => verifyReceipt(forge(reordered), jwks), 'score-mismatch');
    const wrongLevel = structuredClone(q);
    wrongLevel.score.levels[0] += 1;
    refuses(() => verifyReceipt(forge(wrongLevel), jwks), 'score-mismatch');
    const noLevels = structuredClone(q);
    delete noLevels.score.levels;
    refuses(() => verifyReceipt(forge(noLevels), jwks), 'score-mismatch');
  }
  const one = repeatReceipt(1, 5);
  assert.equal(verifyReceipt(forge({ ...one, options: {} }), jwks).replayed, true);
  assert.equal(verifyReceipt(forge({ ...one, options: { levels: 1, high_card: 'drop-top' } }), jwks).replayed, true);
  refuses(() => verifyReceipt(forge({ ...one, options: { levels: 1, high_card: 'clear-row' } }), jwks), 'score-mismatch');
  refuses(() => verifyReceipt(forge({ ...one, options: { rows: 6 } }), jwks), 'replay-failed');
  const three = repeatReceipt(1, 3);
  refuses(() => verifyReceipt(forge({ ...three, moves: three.moves.replace('r1', 'r4') }), jwks), 'replay-failed');
});

test('solodrez receipts: the result agrees with the removals', () => {
  const p = base(serpentIndex);
  const q = { ...p, variant: 'solodrez', options: {}, moves: 'stop', score: { total: 0, hands: [], won: false, series_removed: 0 } };
  assert.equal(verifyReceipt(forge(q), jwks).replayed, true);
  refuses(() => verifyReceipt(forge({ ...q, score: { ...q.score, total: 1 } }), jwks), 'score-mismatch');
  refuses(() => verifyReceipt(forge({ ...q, score: { total: 0, hands: [] } }), jwks), 'score-mismatch');
});

// ---- typ, iss, iat, key periods and iss-mismatch (4.1, 4.2, 4.3.1, 4.5 step 2, 4.6) -----

const named = receipts.find((r) => 'iss' in payloadOf(r) && r.lie === undefined);

test('a receipt naming its issuer: typ, iss and iat', () => {
  const { header, payload } = splitToken(named.receipt);
  assert.equal(header.typ, 'cardproof-receipt+jwt');
  assert.equal(payload.iat, payload.issued_at);
  assert.deepEqual(Object.keys(payload).slice(-2), ['iss', 'iat'], 'iss and iat come last');
  assert.equal(verifyReceipt(named.receipt, named.jwks, { expect: { issuer: payload.iss } }).replayed, true);
  refuses(() => verifyReceipt(named.receipt, named.jwks, { expect: { issuer: `${payload.iss}/` } }), 'mismatch');
});

const typed = (typ) => ({ alg: 'Ed25519', kid, typ });
const claims = () => ({ ...base(squares), iss: 'https://cards.example', iat: base(squares).issued_at });

test('typ: the receipt type, or JOSE; compared exactly; other header members ignored', () => {
  assert.equal(verifyReceipt(forge(claims(), typed('cardproof-receipt+jwt')), jwks).replayed, true);
  assert.equal(verifyReceipt(forge(claims(), typed('JOSE')), jwks).replayed, true);
  assert.equal(verifyReceipt(forge(base(squares), typed('cardproof-receipt+jwt')), jwks).replayed, true);
  for (const typ of ['JWT', 'jose', 'application/cardproof-receipt+jwt', 'CARDPROOF-RECEIPT+JWT', '', undefined, 7]) {
    refuses(() => verifyReceipt(forge(claims(), typed(typ)), { keys: [] }), 'unsupported-typ');
  }
  refuses(() => verifyReceipt(forge(claims(), { alg: 'EdDSA', kid, typ: 'JWT' }), jwks), 'unsupported-alg');
  // jku, jwk, x5u, x5c are ignored (protocol.md 4.1): keys come only from the caller.
  const h = {
    ...typed('cardproof-receipt+jwt'), exp: 1, jku: 'https://evil.example/jwks', jwk: { kty: 'OKP', crv: 'Ed25519', x },
    x5u: 'https://evil.example/cert', x5c: ['AAAA'], b64: false, cty: 'JWT',
  };
  assert.equal(verifyReceipt(forge(claims(), h), jwks).replayed, true);
  refuses(() => verifyReceipt(forge(claims(), { ...typed('JOSE'), kid: undefined }), jwks), 'malformed'); // kid: a string (4.5 step 2)
});

test('a header with crit is malformed, after alg and typ, before the key (4.1, 4.5 step 2)', () => {
  const c = claims();
  for (const typ of ['cardproof-receipt+jwt', 'JOSE']) {
    for (const crit of [['exp'], ['b64'], [], 'exp', null, {}]) {
      const h = { ...typed(typ), crit, exp: 1, b64: true };
      refuses(() => verifyReceipt(forge(c, h), jwks), 'malformed'); // signed with a key of the set
      refuses(() => verifyReceipt(forge(c, h), { keys: [] }), 'malformed'); // before unknown-key
      refuses(() => verifyReceipt(forge(c, h), { keys: 'not a key set' }), 'malformed'); // before bad-jwks
    }
  }
  // alg and typ are checked first.
  refuses(() => verifyReceipt(forge(c, { alg: 'EdDSA', kid, typ: 'JOSE', crit: ['exp'] }), jwks), 'unsupported-alg');
  refuses(() => verifyReceipt(forge(c, { alg: 'Ed25519', kid, typ: 'JWT', crit: ['exp'] }), jwks), 'unsupported-typ');
  // Its signature is not what refuses it: a broken one is still malformed.
  const token = forge(c, { ...typed('JOSE'), crit: ['exp'] });
  const sig = Buffer.from(token.split('.')[2], 'base64url');
  sig[0] ^= 1;
  refuses(() => verifyReceipt(`${token.split('.').slice(0, 2).join('.')}.${sig.toString('base64url')}`, jwks), 'malformed');
  // Named twice, the member is there whichever comes last; a crit in the payload is an
  // unknown payload member, ignored (4.3.1).
  const text = JSON.stringify(c);
  refuses(() => verifyReceipt(forgeText(`{"alg":"Ed25519","crit":["exp"],"kid":"${kid}","typ":"JOSE","crit":[]}`, text), jwks), 'malformed');
  assert.equal(verifyReceipt(forge({ ...c, crit: ['exp'] }, typed('JOSE')), jwks).replayed, true);
  // A genuine vector's header, with crit added and signed again, is refused; without it, not.
  const { header } = splitToken(genuine.receipt);
  assert.ok(!('crit' in header));
  refuses(() => verifyReceipt(forge(payloadOf(genuine), { ...header, kid, crit: ['exp'] }), jwks), 'malformed');
  assert.equal(verifyReceipt(forge(payloadOf(genuine), { ...header, kid }), jwks).replayed, true);
});

test('iat equals issued_at; iss and iat are independent', () => {
  const c = claims();
  const t = typed('cardproof-receipt+jwt');
  refuses(() => verifyReceipt(forge({ ...c, iat: c.issued_at + 1 }, t), jwks), 'malformed');
  // iat is compared after the signature (step 2): a bad key is reported first.
  refuses(() => verifyReceipt(forge({ ...c, iat: c.issued_at + 1 }, t), { keys: [] }), 'unknown-key');
  const { iat: _iat, ...noIat } = c;
  const { iss: _iss, ...noIss } = c;
  for (const q of [noIat, noIss, { ...c, iss: '' }, { ...c, iss: null, iat: null }]) {
    assert.equal(verifyReceipt(forge(q, t), jwks).replayed, true);
  }
  refuses(() => verifyReceipt(forge({ ...c, iss: 7 }, t), jwks), 'malformed');
  refuses(() => verifyReceipt(forge(noIss, t), jwks, { expect: { issuer: 'https://cards.example' } }), 'mismatch');
});

test("a key's period: nbf <= date < exp, the date iat or else issued_at", () => {
  const c = claims();
  const t = c.iat;
  const withPeriod = (period) => ({ keys: [{ ...jwks.keys[0], ...period }] });
  const token = forge(c, typed('cardproof-receipt+jwt'));
  const older = forge(base(squares), typed('JOSE'));
  for (const tok of [token, older]) {
    assert.equal(verifyReceipt(tok, withPeriod({ nbf: t, exp: t + 1 })).replayed, true);
    assert.equal(verifyReceipt(tok, withPeriod({ nbf: t - 100 })).replayed, true);
    assert.equal(verifyReceipt(tok, withPeriod({ exp: t + 1 })).replayed, true);
    refuses(() => verifyReceipt(tok, withPeriod({ exp: t })), 'key-not-valid');
    refuses(() => verifyReceipt(tok, withPeriod({ nbf: t + 1 })), 'key-not-valid');
    refuses(() => verifyReceipt(tok, withPeriod({ nbf: t + 1, exp: t + 10 })), 'key-not-valid');
    refuses(() => verifyReceipt(tok, withPeriod({ exp: String(t + 10) })), 'bad-jwks');
  }
  const sig = Buffer.from(token.split('.')[2], 'base64url');
  sig[0] ^= 1;
  const broken = `${token.split('.').slice(0, 2).join('.')}.${sig.toString('base64url')}`;
  refuses(() => verifyReceipt(broken, withPeriod({ exp: t })), 'bad-signature');
});

test("cardproof verify's iss-mismatch (4.6): trailing slashes removed, no other normalization", () => {
  const { payload } = splitToken(named.receipt);
  const seen = [];
  const fetchJwks = (url) => { seen.push(url); return named.jwks; };
  const run = (o) => cliVerify(named.receipt, { fetchJwks, env: {}, ...o });
  assert.equal(run({ url: payload.iss }).replayed, true);
  assert.equal(seen.pop(), `${payload.iss}/.well-known/jwks.json`);
  assert.equal(run({ url: `${payload.iss}//` }).replayed, true);
  assert.equal(seen.pop(), `${payload.iss}/.well-known/jwks.json`);
  refuses(() => run({ url: payload.iss.replace('127.0.0.1', 'localhost') }), 'iss-mismatch');
  refuses(() => run({ url: payload.iss.toUpperCase() }), 'iss-mismatch');
  refuses(() => run({ url: `${payload.iss.replace(/:\d+$/, '')}:08000` }), 'iss-mismatch');
  // Keys from --jwks: not checked; a receipt without iss: not checked.
  assert.equal(run({ url: 'https://elsewhere.example', jwks: named.jwks }).replayed, true);
  assert.equal(cliVerify(genuine.receipt, { url: 'https://elsewhere.example', env: {}, fetchJwks: () => genuine.jwks }).replayed, true);
  // A receipt whose iss ends in "/" matches the URL without it.
  const q = forge({ ...claims(), iss: 'https://cards.example/' }, typed('cardproof-receipt+jwt'));
  assert.equal(cliVerify(q, { url: 'https://cards.example', env: {}, fetchJwks: () => jwks }).replayed, true);
  // An iss with a path: its key set is under the path.
  const pathed = forge({ ...claims(), iss: 'https://host.example/cards' }, typed('cardproof-receipt+jwt'));
  assert.equal(cliVerify(pathed, {
    url: 'https://host.example/cards/', env: {},
    fetchJwks: (u) => { assert.equal(u, 'https://host.example/cards/.well-known/jwks.json'); return jwks; },
  }).replayed, true);
  refuses(() => cliVerify(pathed, { url: 'https://host.example', env: {}, fetchJwks: () => jwks }), 'iss-mismatch');
});

test("cardproof verify's URL: --url, else $CARDPROOF_URL, else the default, never the receipt's iss (4.6)", () => {
  const iss = 'https://cards.example';
  const token = forge({ ...claims(), iss }, typed('cardproof-receipt+jwt'));
  const fetched = [];
  // The key set the receipt's own iss would name holds the forger's key; the trusted one not.
  const trusted = genuine.jwks;
  const fetchJwks = (u) => {
    fetched.push(u);
    return u === `${iss}/.well-known/jwks.json` ? jwks : trusted;
  };
  const run = (o) => cliVerify(token, { fetchJwks, ...o });
  // No --url, no $CARDPROOF_URL: the default, whose key set lacks the forger's key.
  refuses(() => run({ env: {} }), 'unknown-key');
  assert.equal(fetched.pop(), 'http://127.0.0.1:8000/.well-known/jwks.json');
  // The default's key set holding the key: the signature holds, the iss is another service.
  refuses(() => run({ env: {}, fetchJwks: (u) => { fetched.push(u); return jwks; } }), 'iss-mismatch');
  assert.equal(fetched.pop(), 'http://127.0.0.1:8000/.well-known/jwks.json');
  // $CARDPROOF_URL, its trailing slashes removed; --url before it.
  assert.equal(run({ env: { CARDPROOF_URL: `${iss}///` } }).replayed, true);
  assert.equal(fetched.pop(), `${iss}/.well-known/jwks.json`);
  refuses(() => run({ env: { CARDPROOF_URL: 'https://other.example' } }), 'unknown-key');
  assert.equal(fetched.pop(), 'https://other.example/.well-known/jwks.json');
  refuses(() => run({ url: 'https://other.example', env: { CARDPROOF_URL: iss } }), 'unknown-key');
  assert.equal(fetched.pop(), 'https://other.example/.well-known/jwks.json');
  assert.equal(run({ url: iss, env: { CARDPROOF_URL: 'https://other.example' } }).replayed, true);
  assert.equal(fetched.pop(), `${iss}/.well-known/jwks.json`);
  // A receipt naming the default is checked against it like any other.
  const local = forge({ ...claims(), iss: 'http://127.0.0.1:8000/' }, typed('cardproof-receipt+jwt'));
  assert.equal(cliVerify(local, { env: {}, fetchJwks: () => jwks }).replayed, true);
  refuses(() => cliVerify(local, { env: { CARDPROOF_URL: iss }, fetchJwks: () => jwks }), 'iss-mismatch');
  // --jwks: the keys are the file's, no URL is fetched and iss is not compared.
  assert.equal(cliVerify(token, { env: {}, jwks, fetchJwks: () => assert.fail('fetched') }).replayed, true);
  // A receipt that does not read is refused as verify_receipt refuses it, whatever its iss.
  refuses(() => cliVerify('a.b.c', { env: {}, fetchJwks: () => jwks }), 'malformed');
});

// ---- solodrez (rules.md 7), replayed column by column -----------------------------------

const solodrezIndexes = receipts.map((r, n) => n).filter((n) => payloadOf(receipts[n]).variant === 'solodrez');

test('solodrez: a won game, a stopped one, one with no move left, replayed; short, long, illegal logs and false results refused', () => {
  assert.equal(solodrezIndexes.length, 3);
  const results = [];
  for (const n of solodrezIndexes) {
    const p = base(n);
    const { score } = verifyReceipt(receipts[n].receipt, receipts[n].jwks);
    assert.deepEqual(score, p.score);
    results.push([p.score.won, p.moves.endsWith(' stop')]);
    const moves = p.moves.split(' ');
    // The log's last move ends the game: without it moves are left (incomplete); after it none is legal.
    refuses(() => verifyReceipt(forge({ ...p, moves: moves.slice(0, -1).join(' ') }), jwks), 'replay-failed');
    refuses(() => verifyReceipt(forge({ ...p, moves: `${p.moves} stop` }), jwks), 'replay-failed');
    // A removal of a column that holds no series, a run onto a card it does not fit.
    refuses(() => verifyReceipt(forge({ ...p, moves: `r0 ${p.moves}` }), jwks), 'replay-failed');
    const first = moves.findIndex((m) => m.includes(':'));
    const [from, rest] = moves[first].split(':');
    const to = rest.split('>')[1];
    const back = [...moves.slice(0, first), `${to}:${rest.split('>')[0]}>${from}`, ...moves.slice(first + 1)];
    refuses(() => verifyReceipt(forge({ ...p, moves: back.join(' ') }), jwks), 'replay-failed');
    // The result the log gives, not another.
    refuses(() => verifyReceipt(forge({ ...p, score: { ...p.score, won: !p.score.won } }), jwks), 'score-mismatch');
    const more = p.score.series_removed === 9 ? -1 : 1;
    refuses(() => verifyReceipt(forge({
      ...p, score: { ...p.score, total: p.score.total + more, series_removed: p.score.series_removed + more },
    }), jwks), 'score-mismatch');
    // Stopped at once: scored 0, not won.
    const stopped = { ...p, moves: 'stop', score: { total: 0, hands: [], won: false, series_removed: 0 } };
    assert.equal(verifyReceipt(forge(stopped), jwks).replayed, true);
  }
  assert.deepEqual(results.sort(), [[false, false], [false, true], [true, false]]);
});

test('a negative issued_at without iat (4.3.1), a caller\'s log with U+00A0 (4.5 step 6, rules.md 1)', () => {
  const p = base(squares);
  refuses(() => verifyReceipt(forge({ ...p, issued_at: -1 }), jwks), 'malformed');
  const cells = p.moves.split(' ');
  assert.equal(verifyReceipt(forge(p), jwks, { expect: { moves: cells.join('\t') } }).replayed, true);
  refuses(() => verifyReceipt(forge(p), jwks, { expect: { moves: cells.join('\u00a0') } }), 'mismatch');
});

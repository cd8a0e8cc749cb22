// The deck derivation and the drawn point tables against every vector of
// tests/vectors/shuffle-v1.json and points-v1.json (docs/protocol.md 3.4-3.7, 6).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import {
  ALGORITHM, DECK_SIZES, POINTS_ALGORITHM, UniformDraws, b64urlDecode, block, cardText, deckCards,
  deckOrder, drawTable, jwkThumbprint, serverSeedHash, streamKey,
} from './derive.mjs';

const vectors = (name) => JSON.parse(readFileSync(new URL(`../vectors/${name}`, import.meta.url), 'utf8'));
const shuffle = vectors('shuffle-v1.json');
const points = vectors('points-v1.json');

test('shuffle-v1.json names its algorithm and holds vectors', () => {
  assert.equal(shuffle.algorithm, ALGORITHM);
  assert.ok(shuffle.vectors.length >= 21);
  assert.ok(shuffle.below.length >= 5);
  const types = new Set(shuffle.vectors.map((v) => v.deck_type));
  assert.deepEqual([...types].sort(), Object.keys(DECK_SIZES).sort());
});

shuffle.vectors.forEach((v, n) => {
  const label = `shuffle vector ${n}: ${v.deck_type} ${v.stream} ${JSON.stringify(v.client_seed).slice(0, 24)}`;
  test(label, () => {
    assert.equal(v.algorithm, ALGORITHM);
    assert.equal(serverSeedHash(v.server_seed), v.server_seed_hash, 'server_seed_hash');
    const key = streamKey(v.server_seed, v.client_seed, v.deck_type, v.stream);
    assert.equal(key.toString('hex'), v.stream_key, 'stream_key (step 2)');
    assert.equal(block(key, 0).toString('hex'), v.first_block, 'first_block (step 3)');
    const order = deckOrder(v.server_seed, v.client_seed, v.deck_type, v.stream);
    assert.deepEqual(order, v.order, 'order');
    assert.deepEqual([...order].sort((a, b) => a - b), [...Array(DECK_SIZES[v.deck_type]).keys()], 'a permutation');
    assert.deepEqual(order.map((i) => cardText(v.deck_type, i)), v.cards, 'cards');
    assert.deepEqual(deckCards(v.server_seed, v.client_seed, v.deck_type, v.stream), v.cards);
    assert.ok(Buffer.byteLength(v.client_seed, 'utf8') <= 256);
  });
});

test('the first block is the first eight words of the stream', () => {
  const v = shuffle.vectors[0];
  const draws = new UniformDraws(Buffer.from(v.stream_key, 'hex'));
  const words = Array.from({ length: 8 }, () => draws.nextWord());
  const first = Buffer.from(v.first_block, 'hex');
  assert.deepEqual(words, Array.from({ length: 8 }, (_, k) => first.readUInt32BE(4 * k)));
});

shuffle.below.forEach((b, n) => {
  test(`below vector ${n}: ${b.values.length} draws in [0, ${b.n})`, () => {
    const draws = new UniformDraws(Buffer.from(b.stream_key, 'hex'));
    const got = b.values.map(() => draws.below(b.n));
    assert.deepEqual(got, b.values);
    for (const x of got) assert.ok(x >= 0 && x < b.n);
  });
});

test('some below vector really rejects words (step 4)', () => {
  const rejecting = shuffle.below.filter((b) => {
    const draws = new UniformDraws(Buffer.from(b.stream_key, 'hex'));
    b.values.forEach(() => draws.below(b.n));
    return draws.wordsRead > b.values.length;
  });
  assert.ok(rejecting.length >= 1);
});

test('canonical card indices (protocol.md section 2)', () => {
  assert.deepEqual([0, 12, 13, 51].map((i) => cardText('standard-52', i)), ['2C', 'AC', '2D', 'AS']);
  assert.equal(cardText('joker-53', 52), 'JK');
  assert.deepEqual([0, 5, 6, 53, 54, 55].map((i) => cardText('pokerdrez-56', i)), ['J1', 'P1', 'J2', 'P9', 'X1', 'X2']);
  assert.throws(() => cardText('standard-52', 52));
});

test('points-v1.json names its algorithm and stream', () => {
  assert.equal(points.algorithm, POINTS_ALGORITHM);
  assert.equal(points.stream, 'points-v1');
  assert.ok(points.vectors.length >= 20);
});

points.vectors.forEach((v, n) => {
  test(`points vector ${n}: ${v.system} ${JSON.stringify(v.client_seed).slice(0, 24)}`, () => {
    const table = drawTable(v.server_seed, v.client_seed, v.system);
    assert.equal(table['five-of-a-kind'], 0);
    const { 'five-of-a-kind': _five, ...rest } = table;
    assert.deepEqual(rest, v.points);
  });
});

test('drawn tables stay within their systems (protocol.md 3.7)', () => {
  for (const v of points.vectors) {
    const t = drawTable(v.server_seed, v.client_seed, v.system);
    const values = Object.values(t).slice(0, 10);
    if (v.system === 'random') values.forEach((x) => assert.ok(x >= -128 && x <= 127));
    if (v.system === 'hypercorner') values.forEach((x) => assert.ok(x === 1 || x === -1));
    if (v.system === 'single-hand') assert.equal(values.filter((x) => x === 1).length, 1);
    if (v.system === 'ameritish') assert.ok(t['royal-flush'] >= 30 && t['royal-flush'] <= 100);
  }
});

test('RFC 8037 example key thumbprint (protocol.md 4.2)', () => {
  assert.equal(jwkThumbprint('11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo'), 'kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k');
});

test('strict base64url (protocol.md section 1)', () => {
  assert.deepEqual([...b64urlDecode('AAE')], [0, 1]);
  assert.deepEqual([...b64urlDecode('-_8')], [0xfb, 0xff]);
  for (const bad of ['AAE=', 'AA+', 'AA/', 'AA E', 'AAF', 'A', 'AAE\n', 'AB']) {
    assert.throws(() => b64urlDecode(bad), undefined, bad);
  }
});

test('client seeds of 1 to 256 UTF-8 bytes, stream labels without NUL', () => {
  const seed = '00'.repeat(32);
  assert.throws(() => streamKey(seed, '', 'standard-52', 'deal'));
  assert.throws(() => streamKey(seed, 'ü'.repeat(129), 'standard-52', 'deal'));
  streamKey(seed, 'ü'.repeat(128), 'standard-52', 'deal');
  assert.throws(() => streamKey(seed, 'x', 'standard-52', 'de\0al'));
  assert.throws(() => streamKey(seed, 'x', 'standard-52', 'dé'));
  // protocol.md 3.4 step 1: the empty label is not refused (no variant uses it).
  assert.equal(streamKey(seed, 'x', 'standard-52', '').length, 32);
  assert.throws(() => streamKey(seed, 'x', 'standard-51', 'deal'));
  assert.throws(() => streamKey(seed, '\ud800', 'standard-52', 'deal'));
});

test("Python's bytes.fromhex, README's by-hand reading of a seed (not protocol.md 4.5 step 8's)", async () => {
  const { pythonFromHex } = await import('./derive.mjs');
  assert.equal(pythonFromHex('0aFf').toString('hex'), '0aff');
  assert.equal(pythonFromHex(' 0a ff\t\n').toString('hex'), '0aff');
  for (const bad of ['0', '0 a', 'zz', '0a\u00a0ff', '0x0a']) assert.throws(() => pythonFromHex(bad), undefined, bad);
});

test('the strict JSON reader (protocol.md 1, 4.3.1)', async () => {
  const { parseJson, JsonNumber, isJsonInt } = await import('./json.mjs');
  assert.deepEqual(parseJson('{"a":1,"a":2}'), { a: 2 }); // the last occurrence
  assert.ok(parseJson('3.0') instanceof JsonNumber);
  assert.ok(parseJson('3e0') instanceof JsonNumber);
  assert.ok(!isJsonInt(parseJson('3.0')));
  assert.equal(parseJson('18446744073709551615'), 18446744073709551615n);
  assert.equal(Object.getPrototypeOf(parseJson('{"__proto__":{"x":1}}')), Object.prototype);
  assert.equal(parseJson('"\\ud83c\\udca1"'), '🂡');
  for (const bad of ['"\\ud800"', '"\\udc00"', '"\\ud800x"', '{"a":1,}', '01', '\ufeff{}', "{'a':1}", '"a\tb"', 'NaN']) {
    assert.throws(() => parseJson(bad), undefined, bad);
  }
});

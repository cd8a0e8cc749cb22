// Commitment ids, server seeds, tournament round seeds and reserve-poker's "random" version
// against tests/vectors/commitments-v1.json (docs/protocol.md 3.1, 3.2, 3.6, 3.8, 6.3).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import {
  b64urlDecode, commitmentId, commitmentParts, readCommitmentId, randomVersion, roundCommitmentId,
  serverSeedFor, serverSeedHash,
} from './derive.mjs';
import { parseJson } from './json.mjs';

// Read with the strict reader: expires_at 2^64 - 1 is not a double (JSON.parse would round it).
const file = parseJson(readFileSync(new URL('../vectors/commitments-v1.json', import.meta.url), 'utf8'));
const master = file.master_key;

test('commitments-v1.json: the test master key and its sections (protocol.md 6.3)', () => {
  assert.equal(master, Buffer.from(Array.from({ length: 32 }, (_, i) => i)).toString('hex'));
  assert.ok(file.commitments.length >= 5);
  assert.ok(file.rounds.length >= 3);
  assert.equal(file.versions.deck_type, 'joker-53');
  assert.equal(file.versions.stream, 'version');
  assert.ok(file.versions.vectors.length >= 16);
  const expiries = file.commitments.map((c) => BigInt(c.expires_at));
  assert.ok(expiries.includes(0n) && expiries.includes(2n ** 64n - 1n), 'expires_at 0 and 2^64 - 1 among them');
});

file.commitments.forEach((c, n) => {
  test(`commitment vector ${n}: expires_at ${c.expires_at}`, () => {
    const { body, tag, commitmentId: id } = commitmentParts(master, c.nonce, c.expires_at);
    assert.equal(body.toString('hex'), c.body, 'body (3.1)');
    assert.equal(tag.toString('hex'), c.tag, 'tag (3.1)');
    assert.equal(id, c.commitment_id, 'commitment_id (3.1)');
    assert.equal(id.length, 50);
    assert.equal(commitmentId(master, Buffer.from(c.nonce, 'hex'), BigInt(c.expires_at)), c.commitment_id);
    const seed = serverSeedFor(master, c.commitment_id);
    assert.equal(seed.toString('hex'), c.server_seed, 'server_seed (3.2)');
    assert.equal(serverSeedHash(seed), c.server_seed_hash, 'server_seed_hash (3.2)');
    // Any replica reads the id back by recomputing its tag.
    const read = readCommitmentId(master, c.commitment_id);
    assert.equal(read.nonce.toString('hex'), c.nonce);
    assert.equal(read.expiresAt, BigInt(c.expires_at));
  });
});

test('an id that is not exactly the issued text is unknown-commitment (3.1)', () => {
  const id = file.commitments[1].commitment_id;
  const unknown = (text) => assert.throws(() => readCommitmentId(master, text), (e) => e.code === 'unknown-commitment', text);
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  for (let k = 2; k < id.length; k += 7) {
    const other = alphabet[(alphabet.indexOf(id[k]) + 1) % 64];
    unknown(`${id.slice(0, k)}${other}${id.slice(k + 1)}`); // a bit of the body or the tag changed
  }
  unknown(id.slice(0, -1));
  unknown(`${id}A`);
  unknown(`C_${id.slice(2)}`);
  unknown(`${id}=`);
  const dashed = file.commitments[2].commitment_id; // holds '-' and '_'
  unknown(`c_${Buffer.from(b64urlDecode(dashed.slice(2))).toString('base64')}`);
  unknown(` ${id}`);
  // Under another master key no issued id is known.
  assert.throws(() => readCommitmentId('ff'.repeat(32), id), (e) => e.code === 'unknown-commitment');
  // 48 characters of 36 bytes have no unused bits: an id has one spelling, hence one seed.
  assert.equal(Buffer.from(b64urlDecode(id.slice(2))).toString('base64url'), id.slice(2));
});

file.rounds.forEach((r, n) => {
  test(`round vector ${n}: ${r.commitment_id}`, () => {
    assert.equal(roundCommitmentId(r.tournament_id, r.round), r.commitment_id, 'id (3.8)');
    const seed = serverSeedFor(master, r.commitment_id);
    assert.equal(seed.toString('hex'), r.server_seed, 'server_seed (3.8)');
    assert.equal(serverSeedHash(seed), r.server_seed_hash, 'server_seed_hash (3.8)');
  });
});

test('round ids: decimal without leading zeros; a round id is not a c_ id', () => {
  assert.equal(roundCommitmentId('t_0123', 10), 't_0123:round-10');
  assert.throws(() => roundCommitmentId('t_0123', 0));
  assert.notEqual(serverSeedFor(master, 't_0123:round-01').toString('hex'), file.rounds[0].server_seed);
  assert.throws(() => readCommitmentId(master, file.rounds[0].commitment_id));
});

file.versions.vectors.forEach((v, n) => {
  test(`version vector ${n}: ${JSON.stringify(v.client_seed)} rolls ${v.version}`, () => {
    assert.equal(randomVersion(v.server_seed, v.client_seed), v.version);
  });
});

test('version rolls: every value 1..6, on the seeds of the commitments and rounds (3.6, 6.3)', () => {
  const rolled = new Set(file.versions.vectors.map((v) => v.version));
  assert.deepEqual([...rolled].sort(), [1, 2, 3, 4, 5, 6]);
  const seeds = new Set([...file.commitments, ...file.rounds].map((c) => c.server_seed));
  for (const v of file.versions.vectors) assert.ok(seeds.has(v.server_seed));
});

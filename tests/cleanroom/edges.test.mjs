// The receipts at the edges (tests/vectors/receipt-edges-v1.json, protocol.md 6.6): each case
// gives the code the documents say, or verifies. The Ed25519 cases also state what node's
// OpenSSL alone does with the signature, which this verifier's key check goes beyond.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createPublicKey, verify as cryptoVerify } from 'node:crypto';
import { parseJson } from './json.mjs';
import { ReceiptError, readKeySet, verifyReceipt } from './receipt.mjs';
import { decodePoint, isStrictPublicKey } from './edwards.mjs';

const edges = parseJson(readFileSync(new URL('../vectors/receipt-edges-v1.json', import.meta.url), 'utf8'));

function outcome(c) {
  try {
    verifyReceipt(c.receipt, c.jwks);
  } catch (e) {
    if (e instanceof ReceiptError) return e.code;
    throw e;
  }
  return null;
}

edges.cases.forEach((c, n) => {
  test(`edge vector ${n}: question ${c.question}, ${c.name}`, () => {
    assert.equal(outcome(c), c.code, c.about);
    if (c.openssl_accepts !== undefined) {
      const [head, body, signature] = c.receipt.split('.');
      const x = c.jwks.keys[c.jwks.keys.length - 1].x;
      const key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x }, format: 'jwk' });
      const accepted = cryptoVerify(null, Buffer.from(`${head}.${body}`, 'ascii'), key, Buffer.from(signature, 'base64url'));
      assert.equal(accepted, c.openssl_accepts);
    }
  });
});

test('edwards: encodings of no point, and small-order points (protocol.md 4.5 step 2)', () => {
  const le = (n) => Buffer.from(n.toString(16).padStart(64, '0'), 'hex').reverse();
  const p = 2n ** 255n - 19n;
  assert.equal(decodePoint(le(p + 1n)), null); // the identity spelt y = p + 1
  assert.equal(decodePoint(le(1n | (1n << 255n))), null); // x = 0 with the sign bit
  assert.equal(decodePoint(le(2n)), null); // y = 2: no x on the curve
  for (const small of [le(1n), le(0n), le(p - 1n)]) {
    assert.notEqual(decodePoint(small), null);
    assert.equal(isStrictPublicKey(small), false);
  }
  // RFC 8032 7.1, TEST 2
  assert.equal(isStrictPublicKey(Buffer.from('3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c', 'hex')), true);
});

test('key sets: a key member the documents name is of its type or absent (protocol.md 4.2)', () => {
  const key = edges.cases[0].jwks.keys[0];
  for (const [name, value] of [['kid', 5], ['use', 5], ['alg', null], ['crv', null], ['x', 7], ['kty', null]]) {
    assert.throws(() => readKeySet({ keys: [{ ...key, [name]: value }] }), (e) => e.code === 'bad-jwks', name);
  }
  assert.equal(readKeySet({ keys: [{ ...key, note: null }] }).keys.length, 1); // an unknown member
});

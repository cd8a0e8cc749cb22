/**
 * The page's verifier at the edges of docs/protocol.md section 4 (the ten answers of
 * section 6.6): every case of tests/vectors/receipt-edges-v1.json gets the SDK's verdict
 * here too, verified or refused with the SDK's code; and the strict reading's parts
 * (I-JSON, the key set, Ed25519 keys at the edges) on their own.
 */

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { type KeySet, cleanReceipt, verifyReceipt } from "../src/receipt";
import { decodePoint, isStrictPublicKey, readJson, readKeySet } from "../src/strict";

interface Edge {
  question: number;
  name: string;
  about: string;
  code: string | null;
  receipt: string;
  jwks: KeySet;
}

const root = new URL("../../../tests/vectors/", import.meta.url);
const edges = JSON.parse(readFileSync(new URL("receipt-edges-v1.json", root), "utf8")) as { cases: Edge[] };
const signed = JSON.parse(readFileSync(new URL("receipts.json", root), "utf8")) as Array<{ tables: Record<string, Record<string, number>> }>;
const tables = signed[0]?.tables ?? {};

test("the edge vectors cover the ten questions", () => {
  assert.ok(edges.cases.length >= 40);
  assert.deepEqual([...new Set(edges.cases.map((c) => c.question))].sort((a, b) => a - b), [1, 2, 3, 4, 5, 6, 8, 9, 10]);
});

for (const c of edges.cases) {
  test(`edge vector ${c.question} ${c.name}: ${c.code ?? "verifies"}`, async () => {
    const verdict = await verifyReceipt(c.receipt, c.jwks, { tables, allow: ["practice", "casual"] });
    assert.equal(verdict.code, c.code, `${c.about}: ${verdict.reasons.join("; ")}`);
    assert.equal(verdict.ok, c.code === null);
    if (c.code !== null) assert.ok(verdict.reasons.length === 1 && verdict.reasons[0] !== "", "a refusal says why");
  });
}

test("a token is stripped of JSON's four white space characters only", () => {
  assert.equal(cleanReceipt(" \t\r\na.b\r\n.c "), "a.b.c");
  assert.equal(cleanReceipt("\u00a0a.b.c"), "\u00a0a.b.c");
  assert.equal(cleanReceipt("\ufeffa.b.c"), "\ufeffa.b.c");
});

test("readJson: I-JSON integers, UTF-8 exactly, no byte order mark, no lone surrogate", () => {
  const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);
  assert.deepEqual(readJson(bytes('{"a": [1, -9007199254740991]}')), { a: [1, -9007199254740991] });
  assert.deepEqual(readJson(bytes('{"a": "\\ud83c\\udca1"}')), { a: "\u{1F0A1}" });
  for (const bad of ['{"a": 9007199254740992}', '{"a": -9007199254740992}', '{"a": [{"b": 18446744073709551616}]}', '{"a": "\\ud800"}', '{"\\udc00": 1}']) {
    assert.throws(() => readJson(bytes(bad)), bad);
  }
  for (const bad of [[0xef, 0xbb, 0xbf, 0x7b, 0x7d], [0x22, 0xff, 0x22], [0x22, 0xc0, 0xaf, 0x22], [0x22, 0xed, 0xa0, 0x80, 0x22], [0x22, 0xe2, 0x82, 0x22]]) {
    assert.throws(() => readJson(Uint8Array.from(bad)), String(bad));
  }
});

test("readKeySet: each key an object, its members of their type, nbf and exp from 0 to 2^53 - 1", () => {
  const key = edges.cases[0]?.jwks.keys[0] as unknown as Record<string, unknown>;
  assert.equal(readKeySet({ keys: [{ ...key, nbf: 0, exp: 9007199254740991, note: null }] }).length, 1);
  for (const [name, value] of [["kid", 5], ["x", 7], ["kty", null], ["nbf", null], ["exp", null], ["nbf", -1], ["exp", 1.5], ["exp", 2 ** 53]] as const) {
    assert.throws(() => readKeySet({ keys: [{ ...key, [name]: value }] }), (e: { code?: string }) => e.code === "bad-jwks", `${name} ${String(value)}`);
  }
  assert.throws(() => readKeySet({ keys: [5, key] }), (e: { code?: string }) => e.code === "bad-jwks");
  assert.throws(() => readKeySet({}), (e: { code?: string }) => e.code === "bad-jwks");
});

test("Ed25519 keys: encodings of no point, small-order points, a valid key (RFC 8032 7.1)", () => {
  const le = (n: bigint): Uint8Array => Uint8Array.from(Buffer.from(n.toString(16).padStart(64, "0"), "hex").reverse());
  const p = 2n ** 255n - 19n;
  assert.equal(decodePoint(le(p + 1n)), null); // the identity spelt y = p + 1
  assert.equal(decodePoint(le(1n | (1n << 255n))), null); // x = 0 with the sign bit
  assert.equal(decodePoint(le(2n)), null); // y = 2: no x on the curve
  for (const small of [le(1n), le(0n), le(p - 1n)]) {
    assert.notEqual(decodePoint(small), null);
    assert.equal(isStrictPublicKey(small), false);
  }
  assert.equal(isStrictPublicKey(Buffer.from("3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c", "hex")), true);
});

test("the log and options as the rules read them; a date not negative", async () => {
  const { keyPeriodProblem, logProblem } = await import("../src/receipt");
  type P = Parameters<typeof logProblem>[0];
  const ladder = { variant: "repeat-poker", options: { levels: 5, rows: 4 }, moves: "r1 r2 r3 r4" } as unknown as P;
  assert.match(logProblem(ladder) ?? "", /levels 5 has 5 rows, not 4/);
  assert.equal(logProblem({ ...ladder, options: { levels: 5 } } as P), null);
  assert.equal(logProblem({ ...ladder, options: { rows: 4 } } as P), null);
  assert.match(logProblem({ ...ladder, options: { rows: 3 } } as P) ?? "", /r4 is no row of 3/);
  assert.match(logProblem({ variant: "poker-patience", options: {}, moves: "0,-0" } as unknown as P) ?? "", /canonical/);
  assert.match(logProblem({ variant: "solodrez", options: {}, moves: "3:2>5 STOP" } as unknown as P) ?? "", /"STOP" is no solodrez move/);
  const dated = (issued: number): P => ({ issued_at: issued, iat: issued }) as unknown as P;
  assert.match(keyPeriodProblem(dated(-1), {}) ?? "", /^malformed: .* negative/);
  assert.equal(keyPeriodProblem(dated(0), {}), null);
  assert.match(keyPeriodProblem(dated(Math.floor(Date.now() / 1000) + 3600), {}) ?? "", /in the future/);
  const { isCanonicalS } = await import("../src/strict");
  const signature = new Uint8Array(64);
  assert.equal(isCanonicalS(signature), true);
  signature[63] = 0x20; // S = 2^253, above L
  assert.equal(isCanonicalS(signature), false);
});

/**
 * The page's deck derivation and receipt checks against the Python reference: every
 * vector of tests/vectors/shuffle-v1.json (all three decks), and receipts the service
 * signed (tests/vectors/receipts.json, written by tests/vectors/make_receipts.py).
 */

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import type { DeckType } from "../src/cards";
import { cardText } from "../src/cards";
import { bestCategory, classify } from "../src/hands";
import { drawTable, isPointSystem, POINT_SYSTEMS, sameTable } from "../src/points";
import { b64urlDecode, offTable, verifyReceipt, type KeySet } from "../src/receipt";
import { UniformDraws, deckCards, fromHex, seedHash, shuffle, streamKey, toHex } from "../src/shuffle";

interface Vector {
  deck_type: DeckType;
  server_seed: string;
  server_seed_hash: string;
  client_seed: string;
  stream: string;
  stream_key: string;
  first_block: string;
  order: number[];
  cards: string[];
}

const root = new URL("../../../tests/vectors/", import.meta.url);
const vectors = JSON.parse(readFileSync(new URL("shuffle-v1.json", root), "utf8")) as {
  vectors: Vector[];
  below: Array<{ stream_key: string; n: number; values: number[] }>;
};

test("every deck type has vectors", () => {
  const decks = new Set(vectors.vectors.map((v) => v.deck_type));
  assert.deepEqual([...decks].sort(), ["joker-53", "pokerdrez-56", "standard-52"]);
});

for (const [i, v] of vectors.vectors.entries()) {
  test(`vector ${i}: ${v.deck_type} ${v.stream} ${JSON.stringify(v.client_seed)}`, async () => {
    const seed = fromHex(v.server_seed);
    assert.equal(await seedHash(seed), v.server_seed_hash);
    assert.equal(toHex(await streamKey(seed, v.client_seed, v.deck_type, v.stream)), v.stream_key);
    assert.deepEqual(await shuffle(v.deck_type, seed, v.client_seed, v.stream), v.order);
    assert.deepEqual(await deckCards(v.deck_type, seed, v.client_seed, v.stream), v.cards);
    assert.deepEqual(
      v.order.map((index) => cardText(v.deck_type, index)),
      v.cards,
    );
  });
}

test("draws below n reject the biased tail, as the reference does", async () => {
  assert.ok(vectors.below.length > 0);
  for (const case_ of vectors.below) {
    const draws = new UniformDraws(fromHex(case_.stream_key));
    const values = [];
    for (let k = 0; k < case_.values.length; k++) values.push(await draws.below(case_.n));
    assert.deepEqual(values, case_.values);
  }
});

test("bad seeds are refused", async () => {
  await assert.rejects(streamKey(new Uint8Array(31), "x", "standard-52", "deal"), /32 bytes/);
  await assert.rejects(streamKey(new Uint8Array(32), "", "standard-52", "deal"), /client seed/);
  await assert.rejects(streamKey(new Uint8Array(32), "x".repeat(257), "standard-52", "deal"), /client seed/);
  assert.throws(() => fromHex("0g"), /not hex/);
});

test("hands are classified as cardproof.hands does", () => {
  assert.equal(classify(["AH", "KH", "QH", "JH", "TH"]), "royal-flush");
  assert.equal(classify(["5D", "4C", "3S", "2H", "AD"]), "straight");
  assert.equal(classify(["QS", "KS", "AS", "2S", "3H"]), "high-card");
  assert.equal(classify(["9C", "9D", "9H", "4S", "4C"]), "full-house");
  assert.equal(classify(["7C", "7D", "2H", "2S", "9C"]), "two-pair");
  assert.equal(classify(["KD", "8D", "5D", "3D", "2D"]), "flush");
  const reserve = { "five-of-a-kind": 40, "royal-flush": 30, "straight-flush": 25, "four-of-a-kind": 20 };
  assert.equal(bestCategory(["AH", "AD", "AC", "AS", "JK"], reserve), "five-of-a-kind");
  assert.equal(bestCategory(["KH", "QH", "JH", "TH", "JK"], reserve), "royal-flush");
});

test("base64url is strict: one spelling per value", () => {
  assert.deepEqual([...b64urlDecode("_-8")], [0xff, 0xef]);
  for (const text of ["_-9", "/+8", "_-8=", "_-8\n", "_ -8"]) assert.throws(() => b64urlDecode(text));
});

interface SignedReceipt {
  receipt: string;
  jwks: KeySet;
  tables: Record<string, Record<string, number>>;
  seen: Array<{ stream: string; index: number; card: string }>;
  kind?: string;
  server_seed_hash: string;
  client_seed: string;
  system?: string;
  /** What a lying server changed before signing again (`table`). */
  lie?: string;
}

const signed = JSON.parse(readFileSync(new URL("receipts.json", root), "utf8")) as SignedReceipt[];

test("a receipt the service signed verifies, and every tampering is caught", async () => {
  assert.ok(signed.length > 0);
  for (const r of signed.filter((each) => each.kind === undefined && each.lie === undefined)) {
    const seen = r.seen;
    const expected = { serverSeedHash: r.server_seed_hash, clientSeed: r.client_seed, seen, tables: r.tables, system: r.system };
    const good = await verifyReceipt(r.receipt, r.jwks, expected);
    assert.equal(good.ok, true, good.reasons.join("; "));
    const wrapped = r.receipt.replace(/(.{60})/g, "$1\n  ");
    assert.equal((await verifyReceipt(wrapped, r.jwks, expected)).ok, true);
    const [head, body, sig] = r.receipt.split(".") as [string, string, string];
    const flipped = `${head}.${body}.${sig.slice(0, 10)}${sig[10] === "A" ? "B" : "A"}${sig.slice(11)}`;
    assert.match((await verifyReceipt(flipped, r.jwks, expected)).reasons.join(), /signature|not canonical/);
    const payload = JSON.parse(new TextDecoder().decode(b64urlDecode(body))) as Record<string, unknown>;
    const forged = Buffer.from(JSON.stringify({ ...payload, score: { total: 9999, hands: [] } })).toString("base64url");
    assert.match((await verifyReceipt(`${head}.${forged}.${sig}`, r.jwks, expected)).reasons.join(), /bad signature/);
    const otherSeed = await verifyReceipt(r.receipt, r.jwks, { ...expected, clientSeed: `${r.client_seed}!` });
    assert.match(otherSeed.reasons.join(), /client seed/);
    const otherHash = await verifyReceipt(r.receipt, r.jwks, { ...expected, serverSeedHash: "00".repeat(32) });
    assert.match(otherHash.reasons.join(), /committed/);
    const otherCard = await verifyReceipt(r.receipt, r.jwks, { ...expected, seen: [{ stream: "deal", index: 0, card: "XX" }, ...seen.slice(1)] });
    assert.match(otherCard.reasons.join(), /card 0 was shown as XX/);
    const level = await verifyReceipt(r.receipt, r.jwks, { ...expected, seen: [{ stream: "level-2", index: 3, card: "JK" }] });
    assert.match(level.reasons.join(), /card 3 of level-2 was shown as JK/);
    assert.match((await verifyReceipt("a.b", r.jwks)).reasons.join(), /malformed/);
    assert.match((await verifyReceipt(r.receipt, { keys: [] })).reasons.join(), /unknown key/);
  }
});

test("a seed revealed elsewhere (a closed tournament's) must be the receipt's own", async () => {
  const r = signed.find((each) => each.kind === undefined && each.lie === undefined) as SignedReceipt;
  const payload = JSON.parse(new TextDecoder().decode(b64urlDecode(r.receipt.split(".")[1] as string))) as { server_seed: string };
  const same = await verifyReceipt(r.receipt, r.jwks, { tables: r.tables, serverSeed: payload.server_seed.toUpperCase() });
  assert.equal(same.ok, true, same.reasons.join());
  const other = await verifyReceipt(r.receipt, r.jwks, { tables: r.tables, serverSeed: "00".repeat(32) });
  assert.equal(other.ok, false);
  assert.equal(other.code, "seed-mismatch");
  assert.match(other.reasons.join(), /not the one its tournament revealed/);
});

test("a practice receipt is refused unless allowed, and a receipt of another game is caught", async () => {
  const practice = signed.find((r) => r.kind === "practice");
  assert.ok(practice);
  const refused = await verifyReceipt(practice.receipt, practice.jwks, { tables: practice.tables });
  assert.equal(refused.ok, false);
  assert.match(refused.reasons.join(), /this is a practice receipt/);
  const allowed = await verifyReceipt(practice.receipt, practice.jwks, { tables: practice.tables, allow: ["practice"] });
  assert.equal(allowed.ok, true, allowed.reasons.join());
  const r = signed[0] as SignedReceipt;
  const payload = JSON.parse(new TextDecoder().decode(b64urlDecode(r.receipt.split(".")[1] as string))) as {
    deal_id: string; variant: string; options: unknown; moves: string; score: { total: number };
  };
  const game = { dealId: payload.deal_id, variant: payload.variant, options: payload.options, moves: payload.moves, total: payload.score.total, kinds: ["committed-blind"] };
  const same = await verifyReceipt(r.receipt, r.jwks, { tables: r.tables, game });
  assert.equal(same.ok, true, same.reasons.join());
  for (const [change, words] of [
    [{ moves: payload.moves.split(" ").reverse().join(" ") }, /the log differ/],
    [{ total: payload.score.total + 1 }, /the score/],
    [{ variant: "repeat-poker" }, /the variant/],
    [{ options: { scoring: "british" } }, /the options/],
    [{ dealId: "d_other" }, /the deal/],
    [{ kinds: ["tournament"] }, /the kind/],
  ] as const) {
    const other = await verifyReceipt(r.receipt, r.jwks, { tables: r.tables, game: { ...game, ...change } });
    assert.match(other.reasons.join(), words);
  }
});

test("a receipt dated outside its key's period is refused", async () => {
  const lie = signed.find((r) => r.lie === "key-period");
  assert.ok(lie);
  const refused = await verifyReceipt(lie.receipt, lie.jwks, { tables: lie.tables });
  assert.equal(refused.ok, false);
  assert.match(refused.reasons.join(), /key not valid: .* after key .* was retired/);
  const key = lie.jwks.keys[0] as (typeof lie.jwks.keys)[number];
  const widened = { keys: [{ ...key, exp: (key.exp ?? 0) + 1 }] };
  const accepted = await verifyReceipt(lie.receipt, widened, { tables: lie.tables });
  assert.equal(accepted.ok, true);
  assert.ok(accepted.checked.some((line) => /^issued by http:\/\/127\.0\.0\.1:8000 at 20\d\d-.*Z, while its key signed$/.test(line)), accepted.checked.join("; "));
  const [head, body, sig] = lie.receipt.split(".") as [string, string, string];
  const header = JSON.parse(new TextDecoder().decode(b64urlDecode(head))) as Record<string, unknown>;
  assert.equal(header["typ"], "cardproof-receipt+jwt");
  const jwt = Buffer.from(JSON.stringify({ ...header, typ: "JWT" })).toString("base64url");
  assert.match((await verifyReceipt(`${jwt}.${body}.${sig}`, widened)).reasons.join(), /unsupported typ "JWT"/);
  const { exp: _exp, ...open } = key; // no exp (a null one is refused: protocol.md 6.6, question 3)
  const early = { keys: [{ ...open, nbf: (key.exp ?? 0) + 1 }] };
  assert.match((await verifyReceipt(lie.receipt, early, { tables: lie.tables })).reasons.join(), /before key/);
  const nulled = await verifyReceipt(lie.receipt, { keys: [{ ...key, exp: null }] }, { tables: lie.tables });
  assert.equal(nulled.code, "bad-jwks");
});

const points = JSON.parse(readFileSync(new URL("points-v1.json", root), "utf8")) as {
  algorithm: string;
  stream: string;
  vectors: Array<{ server_seed: string; client_seed: string; system: string; points: Record<string, number> }>;
};

test("drawn point tables match every vector of tests/vectors/points-v1.json", async () => {
  assert.equal(points.algorithm, "cardproof-points-v1");
  assert.deepEqual([...new Set(points.vectors.map((v) => v.system))].sort(), [...POINT_SYSTEMS].sort());
  for (const v of points.vectors) {
    assert.ok(isPointSystem(v.system));
    const drawn = await drawTable(v.system, fromHex(v.server_seed), v.client_seed);
    assert.deepEqual(drawn, v.points, `${v.system} ${v.client_seed}`);
  }
  assert.equal(isPointSystem("american"), false);
  assert.equal(sameTable({ flush: 0 }, {}), true);
  assert.equal(sameTable({ flush: 1 }, {}), false);
});

test("a drawn table is checked against the seeds: another system's or a changed table is caught", async () => {
  const r = signed.find((each) => each.system === "ameritish" && each.lie === undefined);
  assert.ok(r);
  const expected = { serverSeedHash: r.server_seed_hash, clientSeed: r.client_seed, seen: r.seen, tables: r.tables };
  const asked = await verifyReceipt(r.receipt, r.jwks, { ...expected, system: "ameritish" });
  assert.equal(asked.ok, true, asked.reasons.join("; "));
  assert.ok(asked.checked.includes("the ameritish point table drawn by cardproof-points-v1"), asked.checked.join("; "));
  const pasted = await verifyReceipt(r.receipt, r.jwks, { tables: r.tables });
  assert.equal(pasted.ok, true, pasted.reasons.join("; "));
  assert.ok(pasted.checked.includes("its point table is the ameritish table its seeds draw (cardproof-points-v1)"));
  const other = await verifyReceipt(r.receipt, r.jwks, { ...expected, system: "random" });
  assert.equal(other.ok, false);
  assert.match(other.reasons.join(), /not the random table the seeds draw/);
  const lie = signed.find((each) => each.lie === "table") as SignedReceipt;
  const picked = await verifyReceipt(lie.receipt, lie.jwks, { ...expected, system: "ameritish" });
  assert.equal(picked.ok, false); // signed, seeds and cards good: the table is not the draw
  assert.match(picked.reasons.join(), /not the ameritish table the seeds draw/);
  const unasked = await verifyReceipt(lie.receipt, lie.jwks, { tables: lie.tables });
  assert.ok(!unasked.checked.some((line) => line.includes("table its seeds draw")), unasked.checked.join("; "));
  assert.ok(unasked.checked.some((line) => line.startsWith("its point table is not one its seeds draw")));
  // a tournament round's closed view: every game's receipt against the round's draw
  const seed = JSON.parse(new TextDecoder().decode(b64urlDecode(r.receipt.split(".")[1] as string))) as {
    server_seed: string;
  };
  const games = [
    { player: "Ada", receipt: r.receipt },
    { player: "Bea", receipt: lie.receipt },
    { player: "Cy", receipt: "not.a.receipt" },
  ];
  assert.deepEqual(await offTable("ameritish", fromHex(seed.server_seed), r.client_seed, games), ["Bea", "Cy"]);
  assert.deepEqual(await offTable("random", fromHex(seed.server_seed), r.client_seed, games.slice(0, 1)), ["Ada"]);
  const named = signed.find((each) => each.system === undefined && each.kind === undefined) as SignedReceipt;
  const plain = await verifyReceipt(named.receipt, named.jwks, { tables: named.tables, system: "ameritish" });
  assert.match(plain.reasons.join(), /does not carry the ameritish table/);
  const nonsense = await verifyReceipt(r.receipt, r.jwks, { ...expected, system: "american" });
  assert.match(nonsense.reasons.join(), /american is not a point system drawn from the seeds/);
});

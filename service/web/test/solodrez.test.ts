/**
 * SoloDrez replayed by the page (docs/rules.md section 7): the receipts the service signed
 * (tests/vectors/receipts-solodrez.json) verify with their columns and series, and a
 * receipt whose result or log was changed, then signed again, is refused.
 */

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { type KeySet, verifyReceipt } from "../src/receipt";
import { dealColumns, replaySolodrez } from "../src/solodrez";

interface Signed {
  receipt: string;
  jwks: KeySet;
  seen: Array<{ stream: string; index: number; card: string }>;
  server_seed_hash: string;
  client_seed: string;
}

const root = new URL("../../../tests/vectors/", import.meta.url);
const signed = JSON.parse(readFileSync(new URL("receipts-solodrez.json", root), "utf8")) as Signed[];
const payloadOf = (token: string): Record<string, unknown> =>
  JSON.parse(Buffer.from(token.split(".")[1] ?? "", "base64url").toString("utf8")) as Record<string, unknown>;

test("each signed solodrez receipt replays: its columns, its series, its result", async () => {
  assert.equal(signed.length, 3);
  const results = [];
  for (const r of signed) {
    const expected = { serverSeedHash: r.server_seed_hash, clientSeed: r.client_seed, seen: r.seen };
    const verdict = await verifyReceipt(r.receipt, r.jwks, expected);
    assert.equal(verdict.ok, true, verdict.reasons.join("; "));
    const solo = verdict.solodrez;
    assert.ok(solo && verdict.deck);
    const score = payloadOf(r.receipt)["score"] as { series_removed: number; won: boolean };
    assert.equal(solo.seriesRemoved, score.series_removed);
    assert.equal(solo.won, score.won);
    assert.equal(solo.series.length, score.series_removed);
    for (const each of solo.series) assert.deepEqual(each.cards.map((card) => card[0]).join(""), "JQTBNP");
    // dealt round-robin: column c's card at place i is the deck's 9 i + c (columns 0, 1 hold 7)
    assert.deepEqual(solo.dealt.map((column) => column.length), [7, 7, 6, 6, 6, 6, 6, 6, 6]);
    assert.equal(solo.dealt[4]?.[2], verdict.deck[9 * 2 + 4]);
    assert.ok(verdict.checked.some((line) => line.includes(`removes ${score.series_removed} of 9 series`)), verdict.checked.join("; "));
    results.push(`${solo.seriesRemoved}${solo.won ? " won" : ""}`);
  }
  assert.deepEqual(results, ["9 won", "3", "8"]);
});

test("a solodrez log that breaks the rules, or stops short, does not replay", async () => {
  const r = signed[1] as Signed;
  const verdict = await verifyReceipt(r.receipt, r.jwks);
  assert.ok(verdict.deck);
  const moves = (payloadOf(r.receipt)["moves"] as string).split(" ");
  const played = replaySolodrez(verdict.deck, moves);
  assert.ok(!("error" in played));
  assert.equal(played.seriesRemoved, 3);
  const incomplete = replaySolodrez(verdict.deck, moves.slice(0, -1)); // the stop left out
  assert.ok("error" in incomplete && /incomplete/.test(incomplete.error));
  const after = replaySolodrez(verdict.deck, [...moves, "stop"]);
  assert.ok("error" in after && /game-over/.test(after.error));
  const removal = moves.findIndex((move) => move.startsWith("r"));
  const early = replaySolodrez(verdict.deck, [...moves.slice(0, removal - 1), moves[removal] as string]);
  assert.ok("error" in early && /not-a-series/.test(early.error), JSON.stringify(early));
  const same = replaySolodrez(verdict.deck, ["0:1>0"]);
  assert.ok("error" in same && /same-column/.test(same.error));
  const tooMany = replaySolodrez(verdict.deck, ["2:7>3"]); // column 3 holds 6 cards
  assert.ok("error" in tooMany && /too-many-cards/.test(tooMany.error));
  assert.deepEqual(dealColumns(verdict.deck).flat().length, 56);
});

test("a solodrez receipt whose result was changed is refused (score-mismatch)", async () => {
  const { createPrivateKey, sign } = await import("node:crypto");
  // the vectors are signed with the Ed25519 seed of 32 zero bytes (make_receipts.py)
  const der = Buffer.concat([Buffer.from("302e020100300506032b657004220420", "hex"), Buffer.alloc(32)]);
  const key = createPrivateKey({ key: der, format: "der", type: "pkcs8" });
  const r = signed[1] as Signed;
  const [head] = r.receipt.split(".") as [string];
  const resign = (payload: Record<string, unknown>): string => {
    const body = Buffer.from(JSON.stringify(payload)).toString("base64url");
    return `${head}.${body}.${sign(null, Buffer.from(`${head}.${body}`), key).toString("base64url")}`;
  };
  const payload = payloadOf(r.receipt);
  assert.equal((await verifyReceipt(resign(payload), r.jwks)).ok, true); // the key is the vectors'
  const more = await verifyReceipt(resign({ ...payload, score: { total: 4, hands: [], won: false, series_removed: 4 } }), r.jwks);
  assert.equal(more.code, "score-mismatch");
  assert.match(more.reasons.join(), /the log removes 3 series, the receipt says 4/);
  const won = await verifyReceipt(resign({ ...payload, score: { total: 3, hands: [], won: true, series_removed: 3 } }), r.jwks);
  assert.equal(won.code, "score-mismatch");
  const cut = await verifyReceipt(resign({ ...payload, moves: (payload["moves"] as string).replace(/ stop$/, "") }), r.jwks);
  assert.equal(cut.code, "replay-failed");
  assert.match(cut.reasons.join(), /incomplete/);
});

/** A deck whose deal is `columns` (column c's card at place i is the deck's 9 i + c). */
function deckOf(columns: string[][]): string[] {
  const deck: string[] = [];
  columns.forEach((column, c) => column.forEach((card, i) => (deck[9 * i + c] = card)));
  return deck;
}

test("solodrez's moves by the rules: a run, one figure higher, neutrals, Jokers and Pawns", () => {
  const deck = deckOf([
    ["P2", "P3", "P4", "P5", "P6", "P7", "J1"], // column 1 ends in a Joker
    ["P8", "P9", "N1", "N2", "N3", "P1", "X1"], // column 2: a Pawn then a neutral
    ["N4", "N5", "N6", "N7", "N8", "Q1"],
    ["N9", "B1", "B2", "B3", "T1", "J2"], // column 4: a Tower then a Joker, no run
    ["B4", "B5", "B6", "B7", "B8", "X2"], // column 5 ends in a neutral
    ["T2", "T3", "T4", "T5", "T6", "T7"],
    ["T8", "T9", "Q2", "Q3", "Q4", "Q5"],
    ["Q6", "Q7", "Q8", "Q9", "J3", "J4"],
    ["J5", "J6", "J7", "J8", "J9", "P9"],
  ]);
  const refused = (moves: string[], code: RegExp): void => {
    const replayed = replaySolodrez(deck, moves);
    assert.ok("error" in replayed && code.test(replayed.error), `${moves.join(" ")}: ${JSON.stringify(replayed)}`);
  };
  refused(["3:2>0"], /not-a-run/); // T1 J2
  refused(["1:2>2"], /not-a-run/); // P1 X1: the neutral would stand below a Pawn
  refused(["2:1>5"], /not-one-higher/); // Q1 onto T7
  refused(["0:1>4"], /not-one-higher/); // a Joker onto a neutral: only into an empty column
  refused(["0:1>8"], /not-one-higher/); // onto a Pawn
  const played = replaySolodrez(deck, ["2:1>7", "1:1>2", "stop"]); // Q1 onto J4; X1 onto N8
  assert.ok(!("error" in played), JSON.stringify(played));
  assert.deepEqual(played.columns[7]?.slice(-2), ["J4", "Q1"]);
  assert.deepEqual(played.columns[2]?.slice(-2), ["N8", "X1"]);
  assert.equal(played.seriesRemoved, 0);
  assert.equal(played.won, false);
});

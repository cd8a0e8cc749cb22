/** The page's one numbering for people, and each variant's rules panel. */

import assert from "node:assert/strict";
import { test } from "node:test";

import { KINDS } from "../src/kinds";
import {
  adviseSoloMove,
  countMoves,
  describeReserveMove,
  describeSoloMove,
  parseSoloMove,
  reserveRefusal,
  soloRefusal,
} from "../src/moves";
import { RULES, hasSuits } from "../src/rules";

/** The API's 0-based move texts: `2>4`, `3:2>5`, and solodrez's `r4` (repeat-poker's
 * rows `r1`..`r5` are counted from 1: they are the people's numbering too). */
const WIRE = /\b\d>\d\b|\b\d:\d+>\d\b/;
const REMOVE = /\br\d\b/;

test("solodrez moves are said with columns 1 to 9, never the API's 0-based text", () => {
  assert.deepEqual(parseSoloMove("3:2>5"), { kind: "run", from: 3, count: 2, to: 5 });
  assert.deepEqual(parseSoloMove("r0"), { kind: "remove", column: 0 });
  assert.deepEqual(parseSoloMove("stop"), { kind: "stop" });
  assert.equal(parseSoloMove("9:1>0"), null);
  assert.equal(describeSoloMove("3:2>5"), "Moved 2 cards from column 4 to column 6");
  assert.equal(describeSoloMove("0:1>8"), "Moved 1 card from column 1 to column 9");
  assert.equal(describeSoloMove("r4"), "Removed the series in column 5");
  assert.equal(adviseSoloMove("8:2>0"), "move 2 cards from column 9 to column 1");
  assert.equal(adviseSoloMove("r0"), "remove the series in column 1");
  for (const move of ["3:2>5", "8:2>0", "r4", "r0", "0:6>1"]) {
    for (const said of [describeSoloMove(move), adviseSoloMove(move)]) {
      assert.doesNotMatch(said, WIRE, move);
      assert.doesNotMatch(said, REMOVE, move);
    }
  }
});

test("a refused move is explained in the page's numbering, not with the API's detail", () => {
  assert.equal(
    soloRefusal("3:2>5", "not-one-higher"),
    "Not moved: the last card of column 6 is not one figure above the run's first card.",
  );
  assert.equal(soloRefusal("0:1>8", "onto-pawn"), "Not moved: column 9 ends in a Pawn, and nothing goes on a Pawn.");
  assert.match(soloRefusal("r4", "not-a-series") ?? "", /^column 5 does not hold exactly one series/);
  assert.equal(soloRefusal("3:2>5", "game-over"), null); // the API's detail is said as it is
  assert.equal(reserveRefusal("3>4", "column-full"), "Not played: col e is full.");
  assert.equal(reserveRefusal("0>1", "reserve-empty"), "Not played: Reserve 1 is empty.");
  const codes = ["not-a-run", "not-one-higher", "onto-pawn", "joker-needs-empty", "empty-needs-joker", "same-column", "too-many-cards"];
  for (const code of codes) {
    const said = soloRefusal("8:3>0", code);
    assert.ok(said, code);
    assert.doesNotMatch(said, WIRE, code);
    assert.doesNotMatch(said, /column [08]\b/, code); // 1-based: column 9 and column 1
  }
});

test("reserve-poker moves are said as Reserve 1..4 to col a..e", () => {
  assert.equal(describeReserveMove("0>0"), "Played Reserve 1 to col a");
  assert.equal(describeReserveMove("3>4"), "Played Reserve 4 to col e");
  assert.equal(describeReserveMove("2>1"), "Played Reserve 3 to col b");
  for (let f = 0; f < 4; f++) for (let c = 0; c < 5; c++) assert.doesNotMatch(describeReserveMove(`${f}>${c}`), WIRE);
});

test("every variant the page plays has a short rules panel, in the page's numbering", () => {
  assert.deepEqual(Object.keys(RULES).sort(), Object.keys(KINDS).sort());
  for (const [variant, lines] of Object.entries(RULES)) {
    assert.ok(lines.length >= 2 && lines.length <= 4, `${variant}: ${lines.length} lines`);
    assert.ok(lines.join(" ").length <= 800, `${variant} is not short`);
    for (const line of lines) assert.doesNotMatch(line, WIRE, `${variant}: ${line}`);
  }
  const solodrez = (RULES["solodrez"] ?? []).join(" ");
  for (const figure of ["J Joker", "Q Queen", "T Tower", "B Bishop", "N Knight", "P Pawn"]) {
    assert.ok(solodrez.includes(figure), figure);
  }
  assert.doesNotMatch(solodrez, REMOVE);
  assert.match(solodrez, /colour from 1 to 9/);
  assert.match(solodrez, /X1 and X2 are neutrals/);
  assert.match(solodrez, /column 1 to column 9/);
  assert.match(RULES["reserve-poker"]?.join(" ") ?? "", /Reserve 1 to Reserve 4.*col a to col e/s);
});

test("suit colours are offered only where cards have suits", () => {
  assert.deepEqual(
    Object.keys(KINDS).filter((variant) => !hasSuits(variant)),
    ["solodrez"],
  );
});

test("a log's moves are counted as a person counts them: a solodrez stop moves no card", () => {
  assert.equal(countMoves("a1 b1 c1"), "3 moves");
  assert.equal(countMoves("a1"), "1 move");
  assert.equal(countMoves(""), "no move");
  assert.equal(countMoves("3:1>5 stop"), "1 move, then stop");
  assert.equal(countMoves("3:1>5 r4 stop"), "2 moves, then stop");
  assert.equal(countMoves("stop"), "no move, then stop");
});

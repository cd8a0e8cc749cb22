/** The grid variants' placement rules and line names, as `cardproof.play` has them. */

import assert from "node:assert/strict";
import { test } from "node:test";

import { deadEnd, key, moveCoord, moveText, playableCells, replayPlaced, scoredLines, window } from "../src/grid";

const cards = (cells: Array<[number, number]>): Map<string, string> =>
  new Map(cells.map((cell, i) => [key(cell), `${"23456789TJQKA"[i % 13]}C`]));

test("poker-patience: the first card at 0,0, then next to one laid, inside 5x5", () => {
  assert.deepEqual([...playableCells("poker-patience", new Map(), null)], ["0,0"]);
  const one = cards([[0, 0]]);
  assert.equal(playableCells("poker-patience", one, [0, 0]).size, 8);
  const row = cards([[0, 0], [0, 1], [0, 2], [0, 3], [0, 4]]);
  const open = playableCells("poker-patience", row, [0, 4]);
  assert.ok(!open.has("0,5") && !open.has("0,-1"), "a sixth column is refused");
  assert.ok(open.has("1,2") && open.has("-1,0"));
  assert.deepEqual(window("poker-patience", one), { rows: [-4, -3, -2, -1, 0, 1, 2, 3, 4], cols: [-4, -3, -2, -1, 0, 1, 2, 3, 4] });
  assert.deepEqual(window("poker-patience", row).cols, [0, 1, 2, 3, 4]);
});

test("serpent: each card next to the one before, and a dead end is seen coming", () => {
  const laid = cards([[0, 1], [0, 0]]);
  assert.deepEqual([...playableCells("serpent-patience", laid, [0, 0])], ["1,0"]);
  const corner = cards([[1, 0], [1, 1], [0, 1]]);
  assert.equal(deadEnd(corner, [0, 0], 21), true); // a1 boxed in with cards to come
  assert.equal(deadEnd(corner, [0, 2], 21), false);
  assert.equal(deadEnd(corner, [0, 0], 0), false); // the last card ends the path anyway
});

test("move texts read back, and are the cells' names", () => {
  assert.equal(moveText("poker-squares", [2, 2]), "c3");
  assert.deepEqual(moveCoord("poker-squares", "c3"), [2, 2]);
  assert.equal(moveText("poker-patience", [-1, 2]), "-1,2");
  assert.deepEqual(moveCoord("poker-patience", "-1,2"), [-1, 2]);
  assert.equal(moveCoord("poker-squares", "f1"), null);
  assert.equal(moveCoord("poker-patience", "5,0"), null);
});

test("line names are the cells' scheme: row 1..5, col a..e, diagonal \\ and /; poker-patience's by a first cell", () => {
  assert.deepEqual(
    scoredLines("poker-squares", new Map(), true).map(([name]) => name),
    ["row 1", "row 2", "row 3", "row 4", "row 5", "col a", "col b", "col c", "col d", "col e", "diagonal \\", "diagonal /"],
  );
  const wide = cards([[0, -1], [0, 0], [0, 1], [0, 2], [0, 3], [-1, 0]]);
  // the rows are complete lines, but which of rows 1..5 they are is not fixed yet
  assert.deepEqual(scoredLines("poker-patience", wide, false).map(([name]) => name), ["row from -1,-1", "row from 0,-1"]);
  const square = cards([[0, -1], [0, 0], [0, 1], [0, 2], [0, 3], [-1, 0], [1, 0], [2, 0], [3, 0]]);
  // the square fixed: still named by their first cells, as mid-game (one naming)
  assert.deepEqual(scoredLines("poker-patience", square, false).map(([name]) => name), [
    "row from -1,-1", "row from 0,-1", "row from 1,-1", "row from 2,-1", "row from 3,-1",
    "col from -1,-1", "col from -1,0", "col from -1,1", "col from -1,2", "col from -1,3",
  ]);
});

test("a replay refuses a cell used twice and a layout that is no square", () => {
  const deck = Array.from({ length: 25 }, (_, i) => `${i}`);
  const twice = replayPlaced("poker-squares", ["a1", "a1", ...Array(23).fill("b1")], deck);
  assert.ok("error" in twice && /second card/.test(twice.error));
  const line = Array.from({ length: 25 }, (_, i) => `0,${(i % 9) - 4}`);
  assert.ok("error" in replayPlaced("poker-patience", line, deck));
});

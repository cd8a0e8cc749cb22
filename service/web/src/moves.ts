/**
 * One numbering for people (README, "One numbering"): grid cells `a1`..`e5`, grid columns
 * `col a`..`col e`, rows `r1`..`r5`, and, on this page, reserve columns `Reserve 1`..`Reserve 4`
 * and solodrez columns `column 1`..`column 9`, all counted from 1. The API's move texts
 * (`2>4`, `3:2>5`, `r4`) count reserve and solodrez columns from 0: the boards write them
 * only to send them, and say every move in the people's words below.
 */

const LETTERS = "abcde";

/** A grid column by its letter, `col a`..`col e` (0-based index in). */
export const gridColumn = (c: number): string => `col ${LETTERS[c] ?? "?"}`;

/** A reserve column as the page names it, `Reserve 1`..`Reserve 4` (0-based index in). */
export const reserveName = (f: number): string => `Reserve ${f + 1}`;

/** A solodrez column as the page names it, `column 1`..`column 9` (0-based index in). */
export const soloColumn = (a: number): string => `column ${a + 1}`;

export type SoloMove =
  | { kind: "run"; from: number; count: number; to: number }
  | { kind: "remove"; column: number }
  | { kind: "stop" };

/** A solodrez move text of the API (`3:2>5`, `r4`, `stop`), or null. */
export function parseSoloMove(text: string): SoloMove | null {
  if (text === "stop") return { kind: "stop" };
  const remove = /^r([0-8])$/.exec(text);
  if (remove) return { kind: "remove", column: Number(remove[1]) };
  const run = /^([0-8]):([1-9][0-9]*)>([0-8])$/.exec(text);
  if (!run) return null;
  return { kind: "run", from: Number(run[1]), count: Number(run[2]), to: Number(run[3]) };
}

const cardsWord = (n: number): string => (n === 1 ? "1 card" : `${n} cards`);

/** A solodrez move played, in people's words: "Moved 2 cards from column 4 to column 6". */
export function describeSoloMove(text: string): string {
  const move = parseSoloMove(text);
  if (move === null) return `Played ${text}`;
  if (move.kind === "stop") return "Stopped";
  if (move.kind === "remove") return `Removed the series in ${soloColumn(move.column)}`;
  return `Moved ${cardsWord(move.count)} from ${soloColumn(move.from)} to ${soloColumn(move.to)}`;
}

/** A solodrez move advised, in people's words: "move 2 cards from column 4 to column 6". */
export function adviseSoloMove(text: string): string {
  const move = parseSoloMove(text);
  if (move === null) return text;
  if (move.kind === "stop") return "stop";
  if (move.kind === "remove") return `remove the series in ${soloColumn(move.column)}`;
  return `move ${cardsWord(move.count)} from ${soloColumn(move.from)} to ${soloColumn(move.to)}`;
}

/** A reserve-poker move played (`2>4`, the API's text) in people's words: "Played Reserve 3 to col e". */
export function describeReserveMove(text: string): string {
  const found = /^([0-3])>([0-4])$/.exec(text);
  if (!found) return `Played ${text}`;
  return `Played ${reserveName(Number(found[1]))} to ${gridColumn(Number(found[2]))}`;
}

/** Why the rules refuse a solodrez move, by the API's code, in the page's numbering (the
 * API's own detail counts columns from 0); null for a code not listed. */
export function soloRefusal(text: string, code: string): string | null {
  const move = parseSoloMove(text);
  if (move === null || move.kind === "stop") return null;
  if (move.kind === "remove") {
    return code === "not-a-series"
      ? `${soloColumn(move.column)} does not hold exactly one series, J Q T B N P with no neutral: nothing removed.`
      : null;
  }
  const from = soloColumn(move.from);
  const to = soloColumn(move.to);
  const why: Record<string, string> = {
    "not-a-run": `the cards taken from ${from} are not a run (each one figure below the one before)`,
    "not-one-higher": `the last card of ${to} is not one figure above the run's first card`,
    "onto-pawn": `${to} ends in a Pawn, and nothing goes on a Pawn`,
    "joker-needs-empty": `a run from a Joker goes only into an empty column, and ${to} is not empty`,
    "empty-needs-joker": `${to} is empty, and an empty column takes only a run from a Joker`,
    "same-column": "a run moves to another column",
    "too-many-cards": `${from} holds fewer cards than that`,
  };
  const reason = why[code];
  return reason === undefined ? null : `Not moved: ${reason}.`;
}

/** Why the rules refuse a reserve-poker move, by the API's code, in the page's numbering. */
export function reserveRefusal(text: string, code: string): string | null {
  const found = /^([0-3])>([0-4])$/.exec(text);
  if (!found) return null;
  const why: Record<string, string> = {
    "reserve-empty": `${reserveName(Number(found[1]))} is empty`,
    "column-full": `${gridColumn(Number(found[2]))} is full`,
  };
  const reason = why[code];
  return reason === undefined ? null : `Not played: ${reason}.`;
}

/** A log's moves as a person counts them: a solodrez `stop` ends the game but moves no
 * card, so it is said apart ("1 move, then stop"; "no move, then stop"); "25 moves". */
export function countMoves(log: string): string {
  const moves = log.split(" ").filter(Boolean);
  const stopped = moves[moves.length - 1] === "stop";
  const played = stopped ? moves.length - 1 : moves.length;
  const words = played === 0 ? "no move" : played === 1 ? "1 move" : `${played} moves`;
  return stopped ? `${words}, then stop` : words;
}

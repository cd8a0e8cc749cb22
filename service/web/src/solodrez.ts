/**
 * SoloDrez replayed in the browser (docs/rules.md section 7), for `/verify`: the 56 cards
 * dealt round-robin into nine columns (deck card i to column i mod 9), then the log's moves
 * (`3:2>5`, `r4`, `stop`: the API's texts, columns 0-based) played by the rules, to the
 * end the rules give. The result is the columns as they end, the series removed and
 * whether the game was won; or why the log does not replay (the rules' code).
 */

import { parseSoloMove } from "./moves";

/** Figures high to low: Joker 0, Queen 1, Tower 2, Bishop 3, Knight 4, Pawn 5. */
const FIGURES = "JQTBNP";
const PAWN = 5;
const COLUMNS = 9;
/** The verifier's bound on a log (rules.md 7, "the bound"). */
export const SOLODREZ_MAX_MOVES = 10000;

/** A card's figure 0..5, or null for a neutral (`X1`, `X2`). */
const figureOf = (card: string): number | null => (card[0] === "X" ? null : FIGURES.indexOf(card[0] ?? ""));

/** The figures a run's first card can stand for (neutrals are wild); empty: no run. */
function runStarts(cards: readonly string[]): number[] {
  let start: number | null = null;
  for (const [i, card] of cards.entries()) {
    const f = figureOf(card);
    if (f === null) continue;
    if (start === null) start = f - i;
    else if (f - i !== start) return [];
  }
  const starts = start === null ? [0, 1, 2, 3, 4, 5] : [start];
  return starts.filter((s) => s >= 0 && s + cards.length - 1 <= PAWN);
}

/** Whether the run may go onto the column `target` (its last card one figure above the
 * run's first; a neutral there stands for any; an empty column takes only a Joker's run). */
function fits(run: readonly string[], target: readonly string[]): boolean {
  const starts = runStarts(run);
  const last = target[target.length - 1];
  if (last === undefined) return starts.includes(0);
  const below = figureOf(last);
  if (below === null) return starts.some((s) => s >= 1);
  return starts.includes(below + 1);
}

/** Exactly one complete series, J Q T B N P first to last, no neutral, nothing else. */
const isSeries = (column: readonly string[]): boolean => column.length === 6 && column.every((c, i) => figureOf(c) === i);

/** Whether any move but `stop` is legal. */
function anyMoveLeft(columns: readonly string[][]): boolean {
  for (const [a, column] of columns.entries()) {
    if (isSeries(column)) return true;
    for (let n = 1; n <= Math.min(6, column.length); n++) {
      const run = column.slice(-n);
      if (runStarts(run).length === 0) break; // a longer tail holds this one: no run either
      if (columns.some((target, b) => b !== a && fits(run, target))) return true;
    }
  }
  return false;
}

export interface SoloResult {
  /** The nine columns as the game ended, first card first (the exposed card last). */
  columns: string[][];
  seriesRemoved: number;
  won: boolean;
  /** Each series removed: its column (0-based), the move that removed it (0-based), its cards. */
  series: { column: number; move: number; cards: string[] }[];
}

/** The deal: deck card i to column i mod 9. */
export function dealColumns(deck: readonly string[]): string[][] {
  const columns: string[][] = Array.from({ length: COLUMNS }, () => []);
  deck.forEach((card, i) => columns[i % COLUMNS]?.push(card));
  return columns;
}

/** Replays `moves` (the log's texts) on the deal of `deck`; the page counts columns from 1. */
export function replaySolodrez(deck: readonly string[], moves: readonly string[]): SoloResult | { error: string } {
  const columns = dealColumns(deck);
  let removed = 0;
  const series: SoloResult["series"] = [];
  let over = !anyMoveLeft(columns); // a deal may leave no move at all
  const refuse = (i: number, code: string): { error: string } => ({ error: `move ${i + 1} (${moves[i]}) is refused: ${code}` });
  for (const [i, text] of moves.entries()) {
    if (i >= SOLODREZ_MAX_MOVES) return refuse(i, "too-many-moves");
    if (over) return refuse(i, "game-over");
    const move = parseSoloMove(text);
    if (move === null) return refuse(i, "not a solodrez move");
    if (move.kind === "stop") {
      over = true;
      continue;
    }
    if (move.kind === "remove") {
      const column = columns[move.column] ?? [];
      if (!isSeries(column)) return refuse(i, "not-a-series");
      series.push({ column: move.column, move: i, cards: column });
      columns[move.column] = [];
      removed += 1;
    } else {
      const from = columns[move.from] ?? [];
      const to = columns[move.to] ?? [];
      if (move.from === move.to) return refuse(i, "same-column");
      if (move.count > from.length) return refuse(i, "too-many-cards");
      const run = from.slice(-move.count);
      if (runStarts(run).length === 0) return refuse(i, "not-a-run");
      if (!fits(run, to)) return refuse(i, "not-one-higher, onto-pawn, joker-needs-empty or empty-needs-joker");
      columns[move.from] = from.slice(0, -move.count);
      columns[move.to] = [...to, ...run];
    }
    over = removed === COLUMNS || i + 1 >= SOLODREZ_MAX_MOVES || !anyMoveLeft(columns);
  }
  if (!over) return { error: "the log stops while moves are left (incomplete: a game is ended with stop)" };
  return { columns, seriesRemoved: removed, won: removed === COLUMNS, series };
}

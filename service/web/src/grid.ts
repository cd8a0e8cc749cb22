/**
 * The three 5x5 grid variants' rules as the page needs them, mirroring `cardproof.play`:
 * where each placed card sits, which cells the next card may go to, how a cell's move is
 * written, and which lines are complete for the running score.
 *
 * Coordinates are `[row, col]`: absolute 0..4 for poker-squares and serpent-patience,
 * relative to the first card (-4..4) for poker-patience.
 */

import { type LineScore, type PointTable, scoreLine } from "./hands";

export const GRID_VARIANTS = ["poker-squares", "poker-patience", "serpent-patience"] as const;
export type GridVariant = (typeof GRID_VARIANTS)[number];
export type Coord = readonly [number, number];

const SIZE = 5;
const COLUMNS = "abcde";

export interface GridViewLike {
  layout: ReadonlyArray<ReadonlyArray<string | null>>;
  /** Where the layout's first cell sits, relative to the first card (two numbers). */
  origin?: readonly number[] | null;
}

export const key = ([r, c]: Coord): string => `${r},${c}`;

/** Every placed card by coordinate (poker-patience: relative to the first card). */
export function placedCards(view: GridViewLike): Map<string, string> {
  const top = view.origin?.[0] ?? 0;
  const left = view.origin?.[1] ?? 0;
  const placed = new Map<string, string>();
  view.layout.forEach((row, r) =>
    row.forEach((card, c) => {
      if (card !== null) placed.set(key([top + r, left + c]), card);
    }),
  );
  return placed;
}

const coordOf = (text: string): Coord => text.split(",").map(Number) as unknown as Coord;

/** A cell's move text, which is also its button's accessible name: `c3`, or `-1,2`. */
export function moveText(variant: GridVariant, [r, c]: Coord): string {
  return variant === "poker-patience" ? `${r},${c}` : `${COLUMNS[c]}${r + 1}`;
}

/** The coordinates of a move text (the inverse of `moveText`). */
export function moveCoord(variant: GridVariant, text: string): Coord | null {
  if (variant === "poker-patience") {
    const found = /^(-?[0-4]),(-?[0-4])$/.exec(text);
    return found ? [Number(found[1]), Number(found[2])] : null;
  }
  const found = /^([a-e])([1-5])$/.exec(text);
  return found ? [Number(found[2]) - 1, (found[1] as string).charCodeAt(0) - 97] : null;
}

/** The rows and columns the page draws: the 5x5 grid, or where the square may still go. */
export function window(variant: GridVariant, placed: Map<string, string>): { rows: number[]; cols: number[] } {
  const span = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);
  if (variant !== "poker-patience") return { rows: span(0, 4), cols: span(0, 4) };
  if (placed.size === 0) return { rows: [0], cols: [0] };
  const coords = [...placed.keys()].map(coordOf);
  const rows = coords.map(([r]) => r);
  const cols = coords.map(([, c]) => c);
  return {
    rows: span(Math.max(...rows) - (SIZE - 1), Math.min(...rows) + (SIZE - 1)),
    cols: span(Math.max(...cols) - (SIZE - 1), Math.min(...cols) + (SIZE - 1)),
  };
}

/** The cells the next card may go to, by the variant's rules (the server judges anyway). */
export function playableCells(variant: GridVariant, placed: Map<string, string>, last: Coord | null): Set<string> {
  const free = new Set<string>();
  if (variant === "poker-patience") {
    if (placed.size === 0) return new Set([key([0, 0])]);
    const coords = [...placed.keys()].map(coordOf);
    const rows = coords.map(([r]) => r);
    const cols = coords.map(([, c]) => c);
    for (const [r, c] of coords) {
      for (const dr of [-1, 0, 1]) {
        for (const dc of [-1, 0, 1]) {
          const cell: Coord = [r + dr, c + dc];
          const fits =
            Math.max(...rows, cell[0]) - Math.min(...rows, cell[0]) < SIZE &&
            Math.max(...cols, cell[1]) - Math.min(...cols, cell[1]) < SIZE;
          if (!placed.has(key(cell)) && fits) free.add(key(cell));
        }
      }
    }
    return free;
  }
  for (let r = 0; r < SIZE; r++) for (let c = 0; c < SIZE; c++) if (!placed.has(key([r, c]))) free.add(key([r, c]));
  if (variant === "serpent-patience" && last !== null) {
    const [r, c] = last;
    const next = new Set([key([r - 1, c]), key([r + 1, c]), key([r, c - 1]), key([r, c + 1])]);
    return new Set([...free].filter((cell) => next.has(cell)));
  }
  return free;
}

/**
 * Serpent: whether placing on `cell` leaves the path no way on before its end (the
 * game would stop there, unscored): no empty neighbour left and cards still to come.
 */
export function deadEnd(placed: Map<string, string>, cell: Coord, cardsLeftAfter: number): boolean {
  if (cardsLeftAfter === 0) return false;
  const after = new Map(placed);
  after.set(key(cell), "?");
  return playableCells("serpent-patience", after, cell).size === 0;
}

/** The lines that will be scored and whose cells are known now, by name (as the server). */
export function scoredLines(
  variant: GridVariant,
  placed: Map<string, string>,
  diagonals: boolean,
): Array<[string, Coord[]]> {
  const range = [0, 1, 2, 3, 4];
  if (variant !== "poker-patience") {
    const lines: Array<[string, Coord[]]> = [
      ...range.map((r): [string, Coord[]] => [`row ${r + 1}`, range.map((c): Coord => [r, c])]),
      ...range.map((c): [string, Coord[]] => [`col ${COLUMNS[c]}`, range.map((r): Coord => [r, c])]),
    ];
    if (diagonals) {
      lines.push(["diagonal \\", range.map((i): Coord => [i, i])]);
      lines.push(["diagonal /", range.map((i): Coord => [i, 4 - i])]);
    }
    return lines;
  }
  const coords = [...placed.keys()].map(coordOf);
  const rows = [...new Set(coords.map(([r]) => r))].sort((a, b) => a - b);
  const cols = [...new Set(coords.map(([, c]) => c))].sort((a, b) => a - b);
  const found: Array<[string, Coord[]]> = [];
  const first = (list: number[]): number => list[0] as number;
  const last = (list: number[]): number => list[list.length - 1] as number;
  const wide = cols.length > 0 && last(cols) - first(cols) === SIZE - 1;
  const tall = rows.length > 0 && last(rows) - first(rows) === SIZE - 1;
  // one naming, mid-game and at the end: by their first cell, as the board names a
  // poker-patience cell (its offset from the first card): "row from 0,-1", "col from -3,0"
  if (wide) {
    for (const r of rows) found.push([`row from ${r},${first(cols)}`, range.map((i): Coord => [r, first(cols) + i])]);
  }
  if (tall) {
    for (const c of cols) found.push([`col from ${first(rows)},${c}`, range.map((i): Coord => [first(rows) + i, c])]);
  }
  return found;
}

/** The running score: every complete line, its category and points under `table`. */
export function completeLines(
  variant: GridVariant,
  placed: Map<string, string>,
  table: PointTable,
  diagonals: boolean,
): LineScore[] {
  const lines = scoredLines(variant, placed, diagonals);
  const complete = lines.filter(([, cells]) => cells.every((cell) => placed.has(key(cell))));
  return complete.map(([line, cells]) =>
    scoreLine(line, cells.map((cell) => placed.get(key(cell)) as string), table),
  );
}

/** The cards a whole log places on a deck (card i at move i), or why it cannot. */
export function replayPlaced(
  variant: GridVariant,
  moves: string[],
  deck: string[],
): { placed: Map<string, string> } | { error: string } {
  if (moves.length !== SIZE * SIZE) return { error: `the log has ${moves.length} moves, not 25` };
  const placed = new Map<string, string>();
  for (const [i, move] of moves.entries()) {
    const cell = moveCoord(variant, move);
    if (cell === null) return { error: `move ${i} (${move}) is not a cell of ${variant}` };
    if (placed.has(key(cell))) return { error: `move ${i} (${move}) places a second card in one cell` };
    placed.set(key(cell), deck[i] ?? "?");
  }
  const { rows, cols } = window(variant, placed);
  if (variant === "poker-patience" && (rows.length !== SIZE || cols.length !== SIZE)) {
    return { error: "the layout is not a 5x5 square" };
  }
  return { placed };
}

/**
 * Reserve-poker's whole log on a 53-card deck: the deck dealt round-robin into four
 * reserve columns (column f holds cards f, f + 4, ...; its last is taken first), each
 * move `f>c` dropping column f's last card to the lowest empty cell of grid column c.
 */
export function replayReserve(moves: string[], deck: string[]): { placed: Map<string, string> } | { error: string } {
  const columns: string[][] = [[], [], [], []];
  deck.forEach((card, i) => columns[i % 4]?.push(card));
  const placed = new Map<string, string>();
  for (const [i, move] of moves.entries()) {
    const found = /^([0-3])>([0-4])$/.exec(move);
    if (!found) return { error: `move ${i} (${move}) is not a reserve move f>c` };
    const card = columns[Number(found[1])]?.pop();
    const col = Number(found[2]);
    const row = [4, 3, 2, 1, 0].find((r) => !placed.has(key([r, col])));
    if (card === undefined || row === undefined) return { error: `move ${i} (${move}) cannot be played` };
    placed.set(key([row, col]), card);
  }
  if (placed.size !== SIZE * SIZE) return { error: `the log fills ${placed.size} cells, not 25` };
  return { placed };
}

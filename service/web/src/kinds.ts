/** The board of each variant the page plays, and its options form. */

import type { Board, BoardContext } from "./board";
import { ColumnsBoard } from "./boards/columns-board";
import { GridBoard } from "./boards/grid-board";
import { ReserveBoard } from "./boards/reserve-board";
import { RowsBoard } from "./boards/rows-board";
import type { GridVariant } from "./grid";

export interface Kind {
  /** A fresh board for one game. */
  board(area: HTMLElement, context: BoardContext): Board;
  /** The variant's options form (the board reads it when the game is dealt). */
  form(context: BoardContext): HTMLElement;
}

const grid = (variant: GridVariant): Kind => ({
  board: (area, context) => new GridBoard(variant, area, context),
  form: (context) => GridBoard.optionsForm(variant, context),
});

export const KINDS: Readonly<Record<string, Kind>> = {
  "poker-squares": grid("poker-squares"),
  "poker-patience": grid("poker-patience"),
  "serpent-patience": grid("serpent-patience"),
  "repeat-poker": { board: (area, context) => new RowsBoard(area, context), form: () => RowsBoard.optionsForm() },
  "reserve-poker": { board: (area, context) => new ReserveBoard(area, context), form: () => ReserveBoard.optionsForm() },
  solodrez: { board: (area, context) => new ColumnsBoard(area, context), form: () => ColumnsBoard.optionsForm() },
};

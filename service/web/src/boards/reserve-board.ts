/**
 * The reserve variant's board: four reserve columns (first-dealt at the top, face-down
 * cards counted) and a 5x5 grid filled by gravity. Choose a reserve column (`Reserve 1`..
 * `Reserve 4` on the page), then a grid column (`col a`..`col e`); the move sent is the
 * API's, 0-based (`2>4`). The deck is dealt round-robin, so reserve column f's card at
 * place i is the deck's card `4 i + f`.
 */

import { type Board, type BoardContext, type Seen, type View, buttonOf, cardFace, plural, textButton } from "../board";
import type { Schemas } from "../client";
import { completeLines, key } from "../grid";
import { describeReserveMove, gridColumn, reserveName, reserveRefusal } from "../moves";

type ReserveView = Schemas["ReserveView"];
const COLUMNS = 4;
const SIZE = 5;

export class ReserveBoard implements Board {
  private chosen: number | null = null;
  private pending: { index: number; to: number } | null = null;
  private view: ReserveView | null = null;
  private playing = false;

  constructor(
    private readonly area: HTMLElement,
    private readonly context: BoardContext,
  ) {
    area.replaceChildren();
  }

  /** The variant's options, as a form for the page's "New game" section. */
  static optionsForm(): HTMLElement {
    const form = document.createElement("div");
    form.className = "options";
    const label = document.createElement("label");
    label.htmlFor = "version";
    label.textContent = "Version";
    const select = document.createElement("select");
    select.id = "version";
    const names = ["1 card face up", "2 cards face up", "3 cards face up", "4 cards face up", "all face up", "all face down"];
    names.forEach((name, i) => select.append(new Option(`${i + 1}: ${name}`, String(i + 1))));
    select.append(new Option("a die roll (random)", "random"));
    form.append(label, select);
    return form;
  }

  options(): Record<string, unknown> {
    const version = (document.getElementById("version") as HTMLSelectElement).value;
    return { version: version === "random" ? "random" : Number(version) };
  }

  draw(view: View | null, playing: boolean): void {
    this.view = view as ReserveView | null;
    this.playing = playing;
    let board = this.area.querySelector<HTMLElement>("#reserve-board");
    if (!board) {
      board = document.createElement("div");
      board.id = "reserve-board";
      this.area.append(board);
    }
    const focused = board.contains(document.activeElement) ? (document.activeElement as HTMLElement).dataset["move"] : null;
    board.replaceChildren(this.reserveColumns(), this.grid());
    buttonOf(board, focused)?.focus();
  }

  describe(move: string): string {
    return describeReserveMove(move);
  }

  refused(move: string, code: string): string | null {
    return reserveRefusal(move, code);
  }

  private reserveColumns(): HTMLElement {
    const reserve = document.createElement("div");
    reserve.className = "reserve";
    reserve.setAttribute("role", "group");
    reserve.setAttribute("aria-label", "Reserve: choose a column, its bottom card is taken");
    const four = this.context.fourColours();
    (this.view?.reserve ?? [[], [], [], []]).forEach((column, f) => {
      const open = this.playing && column.length > 0;
      const name = document.createElement("span");
      name.className = "row-name";
      name.textContent = reserveName(f);
      // named by what it shows: "Reserve 2 12 face down 7♣" (face-down cards as one count)
      const parts: HTMLElement[] = [name];
      let down = 0;
      const flush = (): void => {
        if (down === 0) return;
        const backs = document.createElement("span");
        backs.className = "card back";
        backs.textContent = `${down} face down`;
        parts.push(backs);
        down = 0;
      };
      for (const card of column) {
        if (card === null) down += 1;
        else {
          flush();
          parts.push(cardFace(card, four));
        }
      }
      flush();
      if (column.length === 0 && this.view) {
        const empty = document.createElement("span");
        empty.className = "empty";
        empty.textContent = "empty";
        parts.push(empty);
      }
      const button = textButton("reserve-column", `reserve ${f}`, ...parts);
      button.setAttribute("aria-pressed", this.chosen === f ? "true" : "false");
      button.setAttribute("aria-disabled", open ? "false" : "true");
      button.addEventListener("click", () => {
        if (!open) return;
        this.chosen = f;
        this.context.say(`${reserveName(f)} chosen: now a grid column, ${gridColumn(0)} to ${gridColumn(SIZE - 1)}.`);
        this.draw(this.view, this.playing);
      });
      reserve.append(button);
    });
    return reserve;
  }

  private grid(): HTMLElement {
    const wrap = document.createElement("div");
    wrap.className = "gravity";
    const drops = document.createElement("div");
    drops.className = "drops";
    drops.setAttribute("role", "group");
    drops.setAttribute("aria-label", "Drop into a grid column");
    const grid = this.view?.grid ?? Array.from({ length: SIZE }, () => Array<string | null>(SIZE).fill(null));
    for (let c = 0; c < SIZE; c++) {
      const full = grid.every((row) => row[c] !== null);
      const from = this.chosen;
      const button = textButton("drop", `drop ${c}`, gridColumn(c)); // "col a": an arrow drawn before it
      button.title = from === null ? "choose a reserve column first" : `drop ${reserveName(from)}'s bottom card into ${gridColumn(c)}`;
      button.setAttribute("aria-disabled", this.playing && from !== null && !full ? "false" : "true");
      button.addEventListener("click", () => {
        if (!this.playing || from === null || full || !this.view) return;
        const column = this.view.reserve[from] ?? [];
        this.pending = { index: (column.length - 1) * COLUMNS + from, to: c };
        this.chosen = null;
        this.context.play(`${from}>${c}`); // the API's move text, 0-based
      });
      drops.append(button);
    }
    const cells = document.createElement("div");
    cells.className = "cells";
    cells.setAttribute("role", "table");
    cells.setAttribute("aria-label", "Grid, row 1 on top: cards fall to the lowest empty cell");
    const four = this.context.fourColours();
    grid.forEach((row, r) => {
      const line = document.createElement("div");
      line.className = "grid-row";
      line.setAttribute("role", "row");
      row.forEach((card, c) => {
        const cell = document.createElement("div");
        cell.className = card === null ? "cell-box" : "cell-box filled";
        cell.setAttribute("role", "cell");
        const label = document.createElement("span");
        label.className = "cell-name";
        label.textContent = `${"abcde"[c]}${r + 1}`;
        cell.append(label, ...(card === null ? [] : [" "]), cardFace(card, four)); // named by what it shows: "a5 10♦"
        line.append(cell);
      });
      cells.append(line);
    });
    wrap.append(drops, cells);
    return wrap;
  }

  progress(view: View, nextIndex: number): string {
    const reserve = view as ReserveView;
    return `Card ${nextIndex + 1} of 25 (version ${reserve.version})`;
  }

  next(_view: View): string | null {
    return null;
  }

  score(view: View): { summary: string; lines: string[] } {
    const placed = new Map<string, string>();
    (view as ReserveView).grid.forEach((row, r) =>
      row.forEach((card, c) => {
        if (card !== null) placed.set(key([r, c]), card);
      }),
    );
    const table = this.context.tables["reserve"];
    if (!table) return { summary: "", lines: [] };
    const lines = completeLines("poker-squares", placed, table, true);
    const total = lines.reduce((n, line) => n + line.points, 0);
    return {
      summary: `Score of complete lines: ${total} (${plural(lines.length, "line")} complete)`,
      lines: lines.map((line) => `${line.line}: ${line.category}, ${plural(line.points, "point")}`),
    };
  }

  seen(view: View, _nextIndex: number): Seen[] {
    const reserve = view as ReserveView;
    const found: Seen[] = [];
    reserve.reserve.forEach((column, f) =>
      column.forEach((card, i) => {
        if (card !== null) found.push({ stream: "deal", index: i * COLUMNS + f, card });
      }),
    );
    if (this.pending) {  // the card just placed: the top card of its grid column
      const { index, to } = this.pending;
      const card = reserve.grid.map((row) => row[to]).find((cell) => cell !== null && cell !== undefined);
      if (card) found.push({ stream: "deal", index, card });
      this.pending = null;
    }
    return found;
  }
}

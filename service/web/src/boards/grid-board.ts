/**
 * The grid variants' board: poker-squares (cells `a1`..`e5`), poker-patience (the square
 * floats: cells named by their offset from the first card) and serpent-patience (every
 * card shown; a move that leaves the path no way on asks to be chosen twice; par at the
 * end). Arrow keys move between cells, Enter places the card.
 */

import { type Board, type BoardContext, type Seen, type View, cardFace, plural, textButton } from "../board";
import { call, type Schemas } from "../client";
import {
  type Coord,
  type GridVariant,
  completeLines,
  deadEnd,
  key,
  moveCoord,
  moveText,
  placedCards,
  playableCells,
  window,
} from "../grid";
import type { PointTable } from "../hands";

type GridView = Schemas["GridView"];
const TOTAL = 25;
/** Tables the API lists for every grid variant but named for another variant's game
 * (repeat-poker's, reserve-poker's): the scoring menu leaves them out. */
const OTHER_VARIANTS_TABLES = new Set(["repeat", "reserve"]);

export class GridBoard implements Board {
  private focus: Coord = [0, 0];
  private last: Coord | null = null;
  private warned: string | null = null;
  private view: GridView | null = null;
  private playing = false;
  private adopted: Record<string, unknown> | null = null;

  constructor(
    private readonly variant: GridVariant,
    private readonly area: HTMLElement,
    private readonly context: BoardContext,
  ) {
    area.replaceChildren();
  }

  /** The variant's options, as a form for the page's "New game" section. */
  static optionsForm(variant: GridVariant, context: BoardContext): HTMLElement {
    const form = document.createElement("div");
    form.className = "options";
    const label = document.createElement("label");
    label.htmlFor = "scoring";
    label.textContent = "Scoring";
    const select = document.createElement("select");
    select.id = "scoring";
    // the grid's own tables: `repeat` and `reserve` are repeat-poker's and reserve-poker's
    for (const name of Object.keys(context.tables).filter((name) => !OTHER_VARIANTS_TABLES.has(name))) {
      select.append(new Option(name, name));
    }
    for (const name of context.pointSystems ?? []) {
      select.append(new Option(`${name} (drawn from the deal's seeds)`, name));
    }
    select.value = variant === "poker-squares" ? "american" : "british";
    form.append(label, select);
    if (variant === "poker-squares") {
      const check = document.createElement("label");
      check.className = "check";
      const box = document.createElement("input");
      box.type = "checkbox";
      box.id = "diagonals";
      check.append(box, " Score the two diagonals");
      form.append(check);
    }
    return form;
  }

  adopt(options: Record<string, unknown>): void {
    this.adopted = options;
  }

  options(): Record<string, unknown> {
    if (this.adopted) return this.adopted;
    const scoring = (document.getElementById("scoring") as HTMLSelectElement).value;
    const diagonals = document.getElementById("diagonals") as HTMLInputElement | null;
    return this.variant === "poker-squares" ? { scoring, diagonals: diagonals?.checked ?? false } : { scoring };
  }

  draw(view: View | null, playing: boolean): void {
    this.view = view as GridView | null;
    this.playing = playing;
    let grid = this.area.querySelector<HTMLElement>("#grid");
    if (!grid) {
      grid = document.createElement("div");
      grid.id = "grid";
      grid.setAttribute("role", "group");
      grid.setAttribute("aria-label", "Grid: each cell is named by its move, then its card");
      grid.addEventListener("keydown", (event) => this.onKey(event));
      grid.addEventListener("focusin", (event) => {
        const cell = (event.target as HTMLElement).dataset["cell"];
        if (cell !== undefined) this.focus = cell.split(",").map(Number) as unknown as Coord;
      });
      this.area.append(grid);
    }
    const hadFocus = grid.contains(document.activeElement);
    grid.replaceChildren();
    const placed = this.view ? placedCards(this.view) : new Map<string, string>();
    const open = playing ? playableCells(this.variant, placed, this.last) : new Set<string>();
    const { rows, cols } = window(this.variant, placed);
    grid.style.gridTemplateColumns = `repeat(${cols.length}, var(--cell))`;
    grid.classList.toggle("floating", this.variant === "poker-patience");
    if (!rows.includes(this.focus[0]) || !cols.includes(this.focus[1])) this.focus = [rows[0] ?? 0, cols[0] ?? 0];
    for (const row of rows) {
      for (const col of cols) {
        const cell: Coord = [row, col];
        const name = moveText(this.variant, cell);
        const card = placed.get(key(cell)) ?? null;
        const label = document.createElement("span");
        label.className = "cell-name";
        label.textContent = name;
        // named by what it shows: its move, then its card ("c3 10♦")
        const button = textButton("cell", name, label, cardFace(card, this.context.fourColours()));
        button.dataset["cell"] = key(cell);
        button.setAttribute("aria-disabled", open.has(key(cell)) ? "false" : "true");
        button.tabIndex = row === this.focus[0] && col === this.focus[1] ? 0 : -1;
        if (card !== null) button.classList.add("filled");
        if (this.warned === key(cell)) button.classList.add("warned");
        button.addEventListener("click", () => this.pick(cell));
        grid.append(button);
      }
    }
    if (hadFocus || (playing && placed.size === 0)) this.focusCell();
  }

  private pick(cell: Coord): void {
    const view = this.view;
    if (!view || !this.playing) return;
    const name = moveText(this.variant, cell);
    const placed = placedCards(view);
    if (!playableCells(this.variant, placed, this.last).has(key(cell))) {
      this.context.say(placed.has(key(cell)) ? `${name} is taken: choose an empty cell.` : `${name} is not open for this card.`);
      return;
    }
    if (this.variant === "serpent-patience" && this.warned !== key(cell)) {
      if (deadEnd(placed, cell, TOTAL - placed.size - 1)) {
        this.warned = key(cell);
        this.context.say(
          `Careful: a card on ${name} leaves no way on, and the game would end unscored. Choose ${name} again to place it anyway.`,
        );
        this.draw(view, this.playing);
        return;
      }
    }
    this.focus = cell;
    this.context.play(name);
  }

  placed(move: string): void {
    this.last = moveCoord(this.variant, move);
    this.warned = null;
  }

  private focusCell(): void {
    const grid = this.area.querySelector<HTMLElement>("#grid");
    const button = grid?.querySelector<HTMLButtonElement>(`button[data-cell='${key(this.focus)}']`);
    grid?.querySelectorAll<HTMLButtonElement>("button").forEach((b) => (b.tabIndex = -1));
    if (button) {
      button.tabIndex = 0;
      button.focus();
    }
  }

  private onKey(event: KeyboardEvent): void {
    const steps: Record<string, Coord> = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
    const step = steps[event.key];
    if (!step) return;
    event.preventDefault();
    const { rows, cols } = window(this.variant, this.view ? placedCards(this.view) : new Map());
    const clamp = (value: number, list: number[]): number =>
      Math.min(list[list.length - 1] as number, Math.max(list[0] as number, value));
    this.focus = [clamp(this.focus[0] + step[0], rows), clamp(this.focus[1] + step[1], cols)];
    this.focusCell();
  }

  progress(_view: View, nextIndex: number): string {
    return `Card ${nextIndex + 1} of ${TOTAL}`;
  }

  next(view: View): string | null {
    return (view as GridView).next;
  }

  score(view: View): { summary: string; lines: string[] } {
    const options = this.options();
    const scoring = options["scoring"] as string | PointTable;
    // a drawn system (or a custom table) comes back from the deal as the table itself
    const table: PointTable | undefined = typeof scoring === "string" ? this.context.tables[scoring] : scoring;
    if (!table) return { summary: "", lines: [] };
    const lines = completeLines(this.variant, placedCards(view as GridView), table, options["diagonals"] === true);
    const total = lines.reduce((n, line) => n + line.points, 0);
    return {
      summary: `Score of complete lines: ${total} (${plural(lines.length, "line")} complete)`,
      lines: lines.map((line) => `${line.line}: ${line.category}, ${plural(line.points, "point")}`),
    };
  }

  seen(view: View, nextIndex: number): Seen[] {
    const grid = view as GridView;
    const cards = grid.next ? [grid.next, ...(grid.later ?? [])] : [];
    return cards.map((card, i) => ({ stream: "deal", index: nextIndex + i, card }));
  }

  async finished(_view: View, cards: Seen[]): Promise<string> {
    if (this.variant !== "serpent-patience") return "";
    const deal = [...cards].filter((c) => c.stream === "deal").sort((a, b) => a.index - b.index).map((c) => c.card);
    const solved = (await call("post", "/v1/solve", {
      body: {
        variant: "serpent-patience",
        cards: deal,
        options: this.options() as Schemas["SolveRequest"]["options"],
      },
    })) as Schemas["SerpentSolution"];
    return `Par for this deal: ${solved.score.total}${solved.optimal ? " (the best possible)" : ""}.`;
  }
}

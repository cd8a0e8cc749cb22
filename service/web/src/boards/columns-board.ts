/**
 * SoloDrez's board: nine columns, everything face up. Choose a card to take the run from
 * it to the end of its column (the button is named by the run, `3:2`: column 3, 2 cards),
 * then a column to put it on (named by the move, `3:2>5`). A column holding exactly one
 * series has its removal open (`r4`); `hint` asks the service's solver for the next move
 * of a winning line from the position; `stop` ends the game (asked twice). The deal is
 * round-robin into the nine columns, so column c's card at place i is the deck's `9 i + c`.
 */

import { type Board, type BoardContext, type Seen, type View, cardFace, plural } from "../board";
import { ApiError, call, type Schemas } from "../client";

type ColumnsView = Schemas["SoloDrezView"];
const COLUMNS = 9;
const SERIES = "JQTBNP";
const HINT_SECONDS = 2;

/** Whether a column holds exactly one series, Joker to Pawn, with no neutral. */
export function isSeries(column: readonly string[]): boolean {
  return column.length === SERIES.length && column.every((card, i) => card[0] === SERIES[i]);
}

export class ColumnsBoard implements Board {
  private run: { from: number; count: number } | null = null;
  private stopAsked = false;
  private view: ColumnsView | null = null;
  private playing = false;

  constructor(
    private readonly area: HTMLElement,
    private readonly context: BoardContext,
  ) {
    area.replaceChildren();
  }

  /** SoloDrez takes no options. */
  static optionsForm(): HTMLElement {
    const note = document.createElement("p");
    note.className = "options-note";
    note.textContent = "SoloDrez has no options: all 56 cards are dealt face up into nine columns.";
    return note;
  }

  options(): Record<string, unknown> {
    return {};
  }

  draw(view: View | null, playing: boolean): void {
    this.view = view as ColumnsView | null;
    this.playing = playing;
    let board = this.area.querySelector<HTMLElement>("#columns");
    if (!board) {
      board = document.createElement("div");
      board.id = "columns";
      this.area.append(board);
    }
    const focused = board.contains(document.activeElement) ? document.activeElement?.getAttribute("aria-label") : null;
    board.replaceChildren(this.tools(), this.table());
    if (focused) board.querySelector<HTMLButtonElement>(`button[aria-label='${CSS.escape(focused)}']`)?.focus();
  }

  private tools(): HTMLElement {
    const tools = document.createElement("div");
    tools.className = "tools";
    const hint = document.createElement("button");
    hint.type = "button";
    hint.textContent = "hint";
    hint.setAttribute("aria-disabled", this.playing ? "false" : "true");
    hint.addEventListener("click", () => void this.hint());
    const stop = document.createElement("button");
    stop.type = "button";
    stop.textContent = "stop";
    stop.setAttribute("aria-disabled", this.playing ? "false" : "true");
    stop.addEventListener("click", () => this.stop());
    const removed = document.createElement("span");
    removed.textContent = `Series removed: ${this.view?.series_removed ?? 0} of 9`;
    tools.append(hint, stop, removed);
    return tools;
  }

  private table(): HTMLElement {
    const table = document.createElement("div");
    table.className = "solodrez";
    table.setAttribute("role", "group");
    table.setAttribute("aria-label", "Nine columns, first card at the top, the exposed card last");
    const columns = this.view?.columns ?? Array.from({ length: COLUMNS }, () => []);
    const four = this.context.fourColours();
    columns.forEach((column, a) => {
      const box = document.createElement("div");
      box.className = "column";
      const head = document.createElement("span");
      head.className = "row-name";
      head.textContent = `${a}`;
      box.append(head);
      column.forEach((card, i) => {
        const count = column.length - i;
        const name = `${a}:${count}`;
        const button = document.createElement("button");
        button.type = "button";
        button.className = "pick";
        button.setAttribute("aria-label", name);
        button.title = `${card}: take ${plural(count, "card")} from column ${a}`;
        button.setAttribute("aria-disabled", this.playing ? "false" : "true");
        const chosen = this.run && this.run.from === a && i >= column.length - this.run.count;
        button.setAttribute("aria-pressed", chosen ? "true" : "false");
        button.append(cardFace(card, four));
        button.addEventListener("click", () => {
          if (!this.playing) return;
          this.run = { from: a, count };
          this.context.say(`Run ${name} chosen (${plural(count, "card")} from column ${a}): now a column to put it on.`);
          this.draw(this.view, this.playing);
        });
        box.append(button);
      });
      const run = this.run;
      const drop = document.createElement("button");
      drop.type = "button";
      drop.className = "drop";
      const move = run ? `${run.from}:${run.count}>${a}` : `to column ${a}`;
      drop.setAttribute("aria-label", move);
      drop.textContent = `↓ ${a}`;
      drop.setAttribute("aria-disabled", this.playing && run && run.from !== a ? "false" : "true");
      drop.addEventListener("click", () => {
        if (!this.playing || !run || run.from === a) return;
        this.run = null;
        this.context.play(move);
      });
      const remove = document.createElement("button");
      remove.type = "button";
      remove.className = "remove";
      remove.setAttribute("aria-label", `r${a}`);
      remove.textContent = `r${a}`;
      remove.title = `remove the series in column ${a}`;
      const series = isSeries(column);
      remove.setAttribute("aria-disabled", this.playing && series ? "false" : "true");
      remove.addEventListener("click", () => {
        if (this.playing && series) this.context.play(`r${a}`);
      });
      box.append(drop, remove);
      table.append(box);
    });
    return table;
  }

  private stop(): void {
    if (!this.playing) return;
    if (!this.stopAsked) {
      this.stopAsked = true;
      const removed = this.view?.series_removed ?? 0;
      this.context.say(`Stop ends the game with ${removed} series removed, not won. Choose stop again to end it.`);
      return;
    }
    this.stopAsked = false;
    this.context.play("stop");
  }

  private async hint(): Promise<void> {
    if (!this.playing || !this.view) return;
    this.context.say("Looking for a winning line…");
    try {
      const found = (await call("post", "/v1/solve", {
        body: { variant: "solodrez", columns: this.view.columns.map((c) => [...c]), budget: HINT_SECONDS },
      })) as Schemas["SoloDrezSolution"];
      const first = found.log.split(" ").filter(Boolean)[0];
      const searched = `${found.states_searched.toLocaleString("en")} positions searched`;
      if (found.result === "won" && first) {
        this.context.say(`hint: ${first}; a win is ${plural(found.moves.length, "move")} away (${searched}).`);
      } else if (found.result === "lost") {
        this.context.say(`hint: this position cannot be won (${searched}); stop ends the game.`);
      } else {
        this.context.say(`hint: no win found within ${HINT_SECONDS} s (${searched}).`);
      }
    } catch (error) {
      this.context.say(`hint unavailable: ${error instanceof ApiError ? error.message : String(error)}`);
    }
  }

  placed(_move: string): void {
    this.run = null;
    this.stopAsked = false;
  }

  progress(_view: View, nextIndex: number): string {
    return `Move ${nextIndex + 1}`;
  }

  next(_view: View): string | null {
    return null;
  }

  score(view: View): { summary: string; lines: string[] } {
    const removed = (view as ColumnsView).series_removed;
    return { summary: `Series removed: ${removed} of 9`, lines: [] };
  }

  seen(view: View, nextIndex: number): Seen[] {
    if (nextIndex !== 0) return []; // after a move the places are no longer the deal's
    const found: Seen[] = [];
    (view as ColumnsView).columns.forEach((column, c) =>
      column.forEach((card, i) => found.push({ stream: "deal", index: i * COLUMNS + c, card })),
    );
    return found;
  }

  async finished(view: View): Promise<string> {
    const removed = (view as ColumnsView).series_removed;
    return removed === COLUMNS ? "Won: all nine series removed." : `Not won: ${removed} of 9 series removed.`;
  }
}

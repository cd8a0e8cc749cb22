/**
 * SoloDrez's board: nine columns, `column 1`..`column 9` on the page, everything face up.
 * Choose a card (a button named by its card, `T2`) to take the run from it to the end of
 * its column, then a column to put it on (`to 6`); the move sent is the API's, 0-based
 * (`3:2>5`). A column holding exactly one series offers its removal (`remove column 5`,
 * sent as `r4`); `hint` asks the service's solver for the next move of a winning line from
 * the position and marks it on the board; `stop` ends the game (asked twice). The deal is
 * round-robin into the nine columns, so column c's card at place i is the deck's `9 i + c`.
 */

import { type Board, type BoardContext, type Seen, type View, buttonOf, cardFace, plural, textButton } from "../board";
import { ApiError, call, type Schemas } from "../client";
import { type SoloMove, adviseSoloMove, describeSoloMove, parseSoloMove, soloColumn, soloRefusal } from "../moves";

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
  /** The solver's next move, drawn on the board until the position changes. */
  private hinted: SoloMove | null = null;

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

  describe(move: string): string {
    return describeSoloMove(move);
  }

  refused(move: string, code: string): string | null {
    return soloRefusal(move, code);
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
    const focused = board.contains(document.activeElement) ? (document.activeElement as HTMLElement).dataset["move"] : null;
    board.replaceChildren(this.tools(), this.table());
    buttonOf(board, focused)?.focus();
  }

  private tools(): HTMLElement {
    const tools = document.createElement("div");
    tools.className = "tools";
    const hint = textButton("", "hint", "hint");
    hint.setAttribute("aria-disabled", this.playing ? "false" : "true");
    hint.addEventListener("click", () => void this.hint());
    const stop = textButton("", "stop", "stop");
    stop.setAttribute("aria-disabled", this.playing ? "false" : "true");
    stop.addEventListener("click", () => this.stop());
    tools.append(hint, stop);
    // a removal is offered only where a column holds exactly one series
    (this.view?.columns ?? []).forEach((column, a) => {
      if (!this.playing || !isSeries(column)) return;
      const remove = textButton("remove", `r${a}`, `remove ${soloColumn(a)}`);
      remove.title = `remove the series J Q T B N P in ${soloColumn(a)}`;
      remove.classList.toggle("hinted", this.hinted?.kind === "remove" && this.hinted.column === a);
      remove.addEventListener("click", () => {
        if (this.playing) this.context.play(`r${a}`); // the API's move text, 0-based
      });
      tools.append(remove);
    });
    const removed = document.createElement("span");
    removed.textContent = `Series removed: ${this.view?.series_removed ?? 0} of 9`;
    tools.append(removed);
    return tools;
  }

  private table(): HTMLElement {
    const table = document.createElement("div");
    table.className = "solodrez";
    table.setAttribute("role", "group");
    table.setAttribute("aria-label", "Nine columns, first card at the top, the exposed card last");
    const columns = this.view?.columns ?? Array.from({ length: COLUMNS }, () => []);
    const four = this.context.fourColours();
    const hint = this.hinted;
    columns.forEach((column, a) => {
      const box = document.createElement("div");
      box.className = "column";
      box.setAttribute("role", "group");
      box.setAttribute("aria-label", soloColumn(a));
      const head = document.createElement("span");
      head.className = "row-name";
      head.textContent = `${a + 1}`;
      box.append(head);
      column.forEach((card, i) => {
        const count = column.length - i;
        // named by what it shows, its card ("T2"); the column is the group's name
        const button = textButton("pick", `${a}:${count}`, cardFace(card, four));
        button.title = `take ${plural(count, "card")} from ${soloColumn(a)}`;
        button.setAttribute("aria-disabled", this.playing ? "false" : "true");
        const chosen = this.run && this.run.from === a && i >= column.length - this.run.count;
        button.setAttribute("aria-pressed", chosen ? "true" : "false");
        const hinted =
          (hint?.kind === "run" && hint.from === a && i >= column.length - hint.count) ||
          (hint?.kind === "remove" && hint.column === a);
        button.classList.toggle("hinted", hinted);
        button.addEventListener("click", () => {
          if (!this.playing) return;
          this.run = { from: a, count };
          const run = column.slice(i).join(" ");
          this.context.say(`${run} chosen (${plural(count, "card")} from ${soloColumn(a)}): now a column to put them on.`);
          this.draw(this.view, this.playing);
        });
        box.append(button);
      });
      const run = this.run;
      const drop = textButton("drop", `to ${a}`, `to ${a + 1}`);
      drop.title = run ? `put the run from ${soloColumn(run.from)} on ${soloColumn(a)}` : "choose a card first";
      drop.setAttribute("aria-disabled", this.playing && run && run.from !== a ? "false" : "true");
      drop.classList.toggle("hinted", hint?.kind === "run" && hint.to === a);
      drop.addEventListener("click", () => {
        if (!this.playing || !run || run.from === a) return;
        this.run = null;
        this.context.play(`${run.from}:${run.count}>${a}`); // the API's move text, 0-based
      });
      box.append(drop);
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
    const asked = this.view;
    this.context.say("Looking for a winning line…");
    try {
      const found = (await call("post", "/v1/solve", {
        body: { variant: "solodrez", columns: asked.columns.map((c) => [...c]), budget: HINT_SECONDS },
      })) as Schemas["SoloDrezSolution"];
      if (this.view !== asked) return; // a move was made meanwhile: the hint is of another position
      const first = found.log.split(" ").filter(Boolean)[0];
      const searched = `${found.states_searched.toLocaleString("en")} positions searched`;
      if (found.result === "won" && first) {
        this.hinted = parseSoloMove(first);
        this.draw(this.view, this.playing);
        this.context.say(
          `hint: ${adviseSoloMove(first)}, marked on the board; a win is ${plural(found.moves.length, "move")} away (${searched}).`,
        );
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
    this.hinted = null;
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

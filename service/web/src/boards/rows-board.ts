/**
 * Repeat Poker's board: the level's rows (each a button named `r1`..`r5`, its move), the
 * card to place, the hands scored so far, and the ladder of levels (5, 4, 3, 2, 1 rows)
 * with each level's points. Each level is dealt from its own stream (`deal`, `level-2`...).
 */

import { type Board, type BoardContext, type Seen, type View, buttonOf, cardFace, handLines, plural, textButton } from "../board";
import type { Schemas } from "../client";

type RowsView = Schemas["RowsView"];
const DECK = 52;
const LADDER = [5, 4, 3, 2, 1];

export const levelStream = (level: number): string => (level === 1 ? "deal" : `level-${level}`);

export class RowsBoard implements Board {
  private levels = 1;

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
    label.htmlFor = "levels";
    label.textContent = "Levels";
    const select = document.createElement("select");
    select.id = "levels";
    select.append(new Option("1 level, 5 rows", "1"), new Option("the ladder: 5 levels, 5 to 1 rows", "5"));
    const highLabel = document.createElement("label");
    highLabel.htmlFor = "high-card";
    highLabel.textContent = "A row with no hand";
    const high = document.createElement("select");
    high.id = "high-card";
    high.append(
      new Option("loses its highest card", "drop-top"),
      new Option("loses all five cards", "clear-row"),
    );
    form.append(label, select, highLabel, high);
    return form;
  }

  adopt(options: Record<string, unknown>): void {
    this.levels = Number(options["levels"] ?? 1);
  }

  options(): Record<string, unknown> {
    this.levels = Number((document.getElementById("levels") as HTMLSelectElement).value);
    const high = (document.getElementById("high-card") as HTMLSelectElement | null)?.value ?? "drop-top";
    return high === "drop-top" ? { levels: this.levels } : { levels: this.levels, high_card: high };
  }

  draw(view: View | null, playing: boolean): void {
    const rows = view as RowsView | null;
    let board = this.area.querySelector<HTMLElement>("#rows");
    if (!board) {
      board = document.createElement("div");
      board.id = "rows";
      board.setAttribute("role", "group");
      board.setAttribute("aria-label", "Rows: each row is named by its move, then its cards");
      this.area.append(board);
    }
    const hadFocus = board.contains(document.activeElement);
    const focused = (document.activeElement as HTMLElement | null)?.dataset?.["move"];
    board.replaceChildren();
    const ladder = document.createElement("ol");
    ladder.className = "ladder";
    ladder.setAttribute("aria-label", "The ladder of levels");
    const totals = this.levelTotals(rows);
    LADDER.slice(0, this.levels === 5 ? 5 : 1).forEach((count, i) => {
      const item = document.createElement("li");
      const level = i + 1;
      const current = rows?.level === level;
      item.textContent = `Level ${level}: ${plural(this.levels === 5 ? count : (rows?.rows.length ?? 5), "row")}, ${plural(totals[i] ?? 0, "point")}`;
      if (current) item.setAttribute("aria-current", "step");
      ladder.append(item);
    });
    board.append(ladder);
    for (const [r, cards] of (rows?.rows ?? []).entries()) {
      const name = `r${r + 1}`;
      const label = document.createElement("span");
      label.className = "row-name";
      label.textContent = name;
      // named by what it shows: its move, then its cards ("r2 10♦ 4♣")
      const faces = cards.map((card) => cardFace(card, this.context.fourColours()));
      const button = textButton("row", name, label, ...faces);
      button.setAttribute("aria-disabled", playing ? "false" : "true");
      button.addEventListener("click", () => {
        if (playing) this.context.play(name);
      });
      board.append(button);
    }
    if (hadFocus && focused) buttonOf(board, focused)?.focus();
    else if (playing && rows && rows.cards_left === DECK && rows.level === 1) board.querySelector("button")?.focus();
  }

  private levelTotals(view: RowsView | null): number[] {
    const totals = [0, 0, 0, 0, 0];
    for (const hand of view?.scored ?? []) {
      const at = (hand.level ?? 1) - 1;
      totals[at] = (totals[at] ?? 0) + hand.points;
    }
    return totals;
  }

  progress(view: View, _nextIndex: number): string {
    const rows = view as RowsView;
    const levels = this.levels === 5 ? " of 5" : "";
    return `Level ${rows.level}${levels}, card ${DECK - rows.cards_left + 1} of ${DECK}`;
  }

  next(view: View): string | null {
    return (view as RowsView).next;
  }

  score(view: View): { summary: string; lines: string[] } {
    const scored = (view as RowsView).scored;
    const total = scored.reduce((n, hand) => n + hand.points, 0);
    return { summary: `Score so far: ${total} (${plural(scored.length, "hand")} scored)`, lines: handLines(scored) };
  }

  seen(view: View, _nextIndex: number): Seen[] {
    const rows = view as RowsView;
    if (!rows.next) return [];
    return [{ stream: levelStream(rows.level), index: DECK - rows.cards_left, card: rows.next }];
  }
}

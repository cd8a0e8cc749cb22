/** Drawing a session into the page's shared parts: the board, the card due, the score. */

import type { Board, View } from "./board";
import { cardLabel, colourClass } from "./cards";
import { $ } from "./session";

export function fourColours(): boolean {
  return $<HTMLInputElement>("four-colours").checked;
}

/** The board, the card to place, the cards to come (open variants) and the running score. */
export function drawGame(board: Board | null, view: View | null, next: number, playing: boolean): void {
  board?.draw(view, playing);
  const due = $("next-card");
  const card = playing && board && view ? board.next(view) : null;
  due.className = card ? `card ${colourClass(card, fourColours())}` : "card";
  due.textContent = card ? cardLabel(card) : "";
  $("next-label").textContent = view && board && (playing || card) ? board.progress(view, next) : "";
  const later = $("later");
  const upcoming = playing && view && "later" in view ? (view.later ?? []) : [];
  later.replaceChildren(
    ...upcoming.map((text) => {
      const item = document.createElement("li");
      item.className = `card ${colourClass(text, fourColours())}`;
      item.textContent = cardLabel(text);
      return item;
    }),
  );
  $("later-label").hidden = upcoming.length === 0;
  const score = view && board ? board.score(view) : { summary: "", lines: [] };
  $("running").textContent = score.summary;
  $("lines").replaceChildren(
    ...score.lines.map((line) => {
      const item = document.createElement("li");
      item.textContent = line;
      return item;
    }),
  );
}

/**
 * What `/play` asks of a variant's board: draw its view, turn a player's choice into a
 * move text, say how far the game is, score it as it goes, and name every card it was
 * shown by its place in the deal (so the page can check those cards against the deck the
 * receipt's seeds derive). One board per kind of view: grid, rows, reserve, columns.
 */

import { cardLabel, colourClass } from "./cards";
import type { Schemas } from "./client";
import type { PointTable } from "./hands";

export type View = Schemas["DealState"]["view"];

/** A card seen, by its place in the deal: position `index` of the deck of `stream`. */
export interface Seen {
  stream: string;
  index: number;
  card: string;
}

export interface BoardContext {
  /** Send a move (its text form). */
  play(move: string): void;
  /** Tell the player something (the page's live message line). */
  say(message: string): void;
  fourColours(): boolean;
  /** The variant's own point tables, by name. */
  tables: Record<string, PointTable>;
  /** The point systems a deal may draw from its seeds (`ameritish`...): the deal shows the table drawn. */
  pointSystems?: string[];
}

export interface Board {
  /** Draw the view (`null` before a deal) into the play area; `playing` while moves count. */
  draw(view: View | null, playing: boolean): void;
  /** How far the game is: "Card 3 of 25". */
  progress(view: View, nextIndex: number): string;
  /** The card to place now, if the variant has one. */
  next(view: View): string | null;
  /** The running score: a summary line and one line per hand scored. */
  score(view: View): { summary: string; lines: string[] };
  /** Every card the view shows, by its place in the deal. */
  seen(view: View, nextIndex: number): Seen[];
  /** The deal's options: as the form has them, or as adopted from the deal. */
  options(): Record<string, unknown>;
  /** Play by the deal's own options (a tournament's, or the canonical ones of a deal). */
  adopt?(options: Record<string, unknown>): void;
  /** A move played, in the page's own words ("Played Reserve 3 to col e"); "Played <move text>" if absent. */
  describe?(move: string): string;
  /** Why the rules refused `move` (the API's `code`) in the page's own words; null to say the API's detail. */
  refused?(move: string, code: string): string | null;
  /** A move was placed: remember what the board needs (serpent's last cell). */
  placed?(move: string): void;
  /** Extra words at the end (serpent's par, solodrez's result). */
  finished?(view: View, cards: Seen[]): Promise<string>;
}

/** A card face: its label and colour class (two or four colours). */
export function cardFace(card: string | null, fourColours: boolean, tag = "span"): HTMLElement {
  const element = document.createElement(tag);
  element.className = "card";
  if (card !== null) {
    element.classList.add(colourClass(card, fourColours));
    element.textContent = cardLabel(card);
  }
  return element;
}

/** A button whose accessible name is its visible text: `parts`, one space apart. The
 * player's choice (`data-move`) is kept apart from the name, for focus and for tests. */
export function textButton(className: string, move: string, ...parts: Array<string | HTMLElement>): HTMLButtonElement {
  const button = document.createElement("button");
  button.type = "button";
  button.className = className;
  button.dataset["move"] = move;
  const shown = (part: string | HTMLElement): boolean => (typeof part === "string" ? part : part.textContent) !== "";
  parts.forEach((part, i) => button.append(...(i > 0 && shown(part) ? [" "] : []), part));
  return button;
}

/** The button of `area` whose `data-move` is `move`, if any. */
export function buttonOf(area: ParentNode, move: string | null | undefined): HTMLButtonElement | null {
  return move ? area.querySelector<HTMLButtonElement>(`button[data-move='${CSS.escape(move)}']`) : null;
}

export const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? "" : "s"}`;

/** The score lines of hands as the server scored them. */
export function handLines(hands: ReadonlyArray<Schemas["HandScore"]>): string[] {
  return hands.map((hand) => {
    const level = hand.level ? ` (level ${hand.level})` : "";
    return `${hand.line}: ${hand.category}, ${plural(hand.points, "point")}${level}`;
  });
}

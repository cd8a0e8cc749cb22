/**
 * Each variant's rules in a few lines, as docs/rules.md states them (sections 2 to 7), in
 * the page's own numbering (./moves.ts). `/play` shows the chosen variant's in a panel
 * that opens and closes, and only the options that mean something for it.
 */

import { DECK_OF } from "./receipt";
import { $ } from "./session";

export const RULES: Readonly<Record<string, readonly string[]>> = {
  "poker-squares": [
    "25 cards are turned up one at a time. Put each in any empty cell of the 5×5 grid: a1 is the top left cell, e5 the bottom right. A card never moves.",
    "At the end each row (row 1 to row 5) and each column (col a to col e) is a poker hand, scored with the point table chosen; with the diagonals on, the two long diagonals score too.",
  ],
  "poker-patience": [
    "25 cards are turned up one at a time. The first goes anywhere: it is cell 0,0, and every other cell is named by its offset from it, row then column (-1,2 is one row up and two columns right).",
    "Each card must touch a card already laid (across, up, down or diagonally), and the layout must fit in a 5×5 square: only the cells the rules allow are open.",
    "The final square's 5 rows and 5 columns are scored as poker hands.",
  ],
  "serpent-patience": [
    "All 25 cards are shown from the start, in the order they are laid.",
    "The first card goes anywhere; each next card goes in an empty cell beside the one before (above, below, left or right), so the cards make one path through all 25 cells.",
    "A path with no way on ends the game unscored (the page warns first). The 5 rows and 5 columns are scored as poker hands; the deal's par, its best possible score, shows at the end.",
  ],
  "repeat-poker": [
    "All 52 cards are turned up one at a time: put each in a row, r1 to r5, of up to 5 cards.",
    "A row of 5 cards scores its poker hand at once, and the cards that make the hand leave (a pair its 2 cards, two pair 4; a straight, flush or full house all 5); the other cards stay.",
    "A row with no hand scores 0 and loses its highest card (or all 5, by the option). The ladder plays 5 levels of 5, 4, 3, 2 and 1 rows, each with a fresh deck.",
  ],
  "reserve-poker": [
    "53 cards, the 52 and a wild joker, are dealt into 4 reserve columns, Reserve 1 to Reserve 4. Only the bottom card of a reserve column can be taken.",
    "Choose a reserve column, then a grid column, col a to col e: the card falls to the lowest empty cell of that column (row 5 first).",
    "The version sets what you see: 1 to 4, that many bottom cards of each reserve column face up; 5, every card; 6, none. After 25 cards the 5 rows, 5 columns and 2 diagonals are scored.",
  ],
  solodrez: [
    "56 cards, all face up, in 9 columns, column 1 to column 9; the last card of a column is its exposed one.",
    "A card is a figure, then a colour from 1 to 9: J Joker, Q Queen, T Tower, B Bishop, N Knight, P Pawn, high to low (T2 is a Tower of colour 2). Colours never matter for play. X1 and X2 are neutrals, wild: each stands for the figure a run needs.",
    "Choose a card to take it with the cards after it, if they make a run (each one figure below the one before), then a column whose last card is one figure above the run's first. Nothing goes on a Pawn; an empty column takes only a run from a Joker.",
    "A column holding exactly J Q T B N P, no neutral among them, can be removed. Remove all nine series to win; stop ends the game. The score is the series removed.",
  ],
};

/** The rules panel of `variant` (its title and lines), or nothing for an unknown one. */
export function rulesOf(variant: string): readonly string[] {
  return RULES[variant] ?? [];
}

/** Whether suits mean something in `variant` (SoloDrez's cards have figures and colours). */
export const hasSuits = (variant: string): boolean => DECK_OF[variant] !== "pokerdrez-56";

/** The rules panel of `variant` (titled `title`), and the suit colours only where suits are. */
export function showRules(variant: string | null, title: string): void {
  const lines = variant ? rulesOf(variant) : [];
  $("rules").hidden = lines.length === 0;
  $("rules-title").textContent = title ? `How to play ${title}` : "How to play";
  $("rules-text").replaceChildren(
    ...lines.map((line) => {
      const item = document.createElement("li");
      item.textContent = line;
      return item;
    }),
  );
  const suits = variant === null || hasSuits(variant);
  $("four-colours-label").hidden = !suits;
  $("t-colours").hidden = !suits || document.body.dataset["tournament"] === undefined;
}

/**
 * Cards as the API writes them: canonical order per deck type (as cardproof.cards and
 * cardproof.pokerdrez define it), and the symbols the page shows.
 */

export type DeckType = "standard-52" | "joker-53" | "pokerdrez-56";

export const DECK_SIZES: Readonly<Record<DeckType, number>> = {
  "standard-52": 52,
  "joker-53": 53,
  "pokerdrez-56": 56,
};

const RANKS = "23456789TJQKA";
const SUITS = "CDHS";
const FIGURES = "JQTBNP";
const COLOURS = 9;

/** The card at canonical position `index` of a deck type: `"6D"`, `"JK"`, `"Q3"`, `"X1"`. */
export function cardText(deck: DeckType, index: number): string {
  if (!Number.isInteger(index) || index < 0 || index >= DECK_SIZES[deck]) {
    throw new RangeError(`no card ${index} in a ${deck} deck`);
  }
  if (deck === "pokerdrez-56") {
    const figures = FIGURES.length * COLOURS;
    if (index < figures) {
      return `${FIGURES[index % FIGURES.length]}${Math.floor(index / FIGURES.length) + 1}`;
    }
    return `X${index - figures + 1}`;
  }
  if (index === 52) return "JK";
  return `${RANKS[index % 13]}${SUITS[Math.floor(index / 13)]}`;
}

/** A card's rank (0 for a two .. 12 for an ace), or -1 for the joker. */
export function rankOf(card: string): number {
  return card === "JK" ? -1 : RANKS.indexOf(card[0] ?? "");
}

/** A card's suit letter (C D H S), or "" for the joker. */
export function suitOf(card: string): string {
  return card === "JK" ? "" : (card[1] ?? "");
}

const SYMBOLS: Readonly<Record<string, string>> = { C: "♣", D: "♦", H: "♥", S: "♠" };
const RANK_NAMES: Readonly<Record<string, string>> = { T: "10" };

/** How a card reads on the page: `"10♦"`, `"A♠"`, `"Joker"`. */
export function cardLabel(card: string): string {
  if (card === "JK") return "Joker";
  const rank = card[0] ?? "";
  const symbol = SYMBOLS[card[1] ?? ""];
  return symbol === undefined ? card : `${RANK_NAMES[rank] ?? rank}${symbol}`;
}

/** The colour class of a card: two colours (red, black) or four (one per suit). */
export function colourClass(card: string, fourColours: boolean): string {
  const suit = suitOf(card);
  if (!suit) return "card-joker";
  if (fourColours) return `card-${suit.toLowerCase()}`;
  return suit === "D" || suit === "H" ? "card-red" : "card-black";
}

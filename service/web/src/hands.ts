/**
 * Five-card hands for the page's running score: the categories of `cardproof.hands`, the
 * joker wild (it stands for whichever card scores most; among equal points the higher
 * category).
 */

import { rankOf, suitOf } from "./cards";

export const CATEGORIES = [
  "high-card",
  "one-pair",
  "two-pair",
  "three-of-a-kind",
  "straight",
  "flush",
  "full-house",
  "four-of-a-kind",
  "straight-flush",
  "royal-flush",
  "five-of-a-kind",
] as const;
export type Category = (typeof CATEGORIES)[number];
export type PointTable = Partial<Record<Category, number>>;

const STANDARD = Array.from({ length: 52 }, (_, i) => `${"23456789TJQKA"[i % 13]}${"CDHS"[Math.floor(i / 13)]}`);

/** The category of five cards, none of them a joker. */
export function classify(cards: readonly string[]): Category {
  if (cards.length !== 5) throw new RangeError(`a poker hand has 5 cards, not ${cards.length}`);
  const ranks = cards.map(rankOf).sort((a, b) => a - b);
  const counts = new Map<number, number>();
  for (const rank of ranks) counts.set(rank, (counts.get(rank) ?? 0) + 1);
  const shape = [...counts.values()].sort((a, b) => b - a);
  const flush = new Set(cards.map(suitOf)).size === 1;
  const distinct = counts.size === 5;
  const wheel = ranks.join() === "0,1,2,3,12";
  const straight = distinct && ((ranks[4] as number) - (ranks[0] as number) === 4 || wheel);
  if (shape[0] === 5) return "five-of-a-kind";
  if (straight && flush) return ranks[0] === 8 ? "royal-flush" : "straight-flush";
  if (shape[0] === 4) return "four-of-a-kind";
  if (shape[0] === 3 && shape[1] === 2) return "full-house";
  if (flush) return "flush";
  if (straight) return "straight";
  if (shape[0] === 3) return "three-of-a-kind";
  if (shape[0] === 2 && shape[1] === 2) return "two-pair";
  if (shape[0] === 2) return "one-pair";
  return "high-card";
}

const points = (table: PointTable, category: Category): number => table[category] ?? 0;

/** The category of five cards under `table`, a joker (at most one) wild. */
export function bestCategory(cards: readonly string[], table: PointTable): Category {
  const jokers = cards.filter((card) => card === "JK").length;
  if (jokers === 0) return classify(cards);
  if (jokers > 1) throw new RangeError("a hand may hold one joker at most");
  const rest = cards.filter((card) => card !== "JK");
  let best: Category = "high-card";
  for (const stand of STANDARD) {
    const category = classify([...rest, stand]);
    const better = points(table, category) - points(table, best);
    if (better > 0 || (better === 0 && CATEGORIES.indexOf(category) > CATEGORIES.indexOf(best))) {
      best = category;
    }
  }
  return best;
}

export interface LineScore {
  line: string;
  cards: string[];
  category: Category;
  points: number;
}

/** One line's hand: its category and points under `table`. */
export function scoreLine(line: string, cards: string[], table: PointTable): LineScore {
  const category = bestCategory(cards, table);
  return { line, cards, category, points: points(table, category) };
}

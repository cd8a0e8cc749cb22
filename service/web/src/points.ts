/**
 * Point systems drawn from a deal's seeds, `cardproof-points-v1`, byte for byte as the
 * module docstring of `cardproof.tables` describes it: the page draws a deal's table
 * again from its revealed seeds, so a server cannot pick the table after the player's
 * client seed.
 */

import { CATEGORIES, type Category, type PointTable } from "./hands";
import { type Bytes, UniformDraws, streamKey } from "./shuffle";

export const POINTS_ALGORITHM = "cardproof-points-v1";
const STREAM = "points-v1";
/** The systems drawn from the seeds (`cardproof.tables.GENERATED`). */
export const POINT_SYSTEMS = ["ameritish", "random", "hypercorner", "single-hand"] as const;
export type PointSystem = (typeof POINT_SYSTEMS)[number];

/** The categories drawn, high card first (step 2; five of a kind scores 0). */
const DRAWN: readonly Category[] = CATEGORIES.filter((category) => category !== "five-of-a-kind");
/** The American and British tables of docs/rules.md section 1, in the order of `DRAWN`: part of
 * the derivation itself, so never taken from a server's answer. */
const AMERICAN = [0, 2, 5, 10, 15, 20, 25, 50, 75, 100];
const BRITISH = [0, 1, 3, 6, 12, 5, 10, 16, 30, 30];

/** Whether `scoring` (an options value) names a system drawn from the seeds. */
export function isPointSystem(scoring: unknown): scoring is PointSystem {
  return typeof scoring === "string" && (POINT_SYSTEMS as readonly string[]).includes(scoring);
}

/** floor(p / q) and ceil(p / q) of non-negative integers, exactly. */
const floorDiv = (p: number, q: number): number => (p - (p % q)) / q;
const ceilDiv = (p: number, q: number): number => floorDiv(p + q - 1, q);

/** The table `system` draws from the seed pair (steps 3 to 6). */
export async function drawTable(system: PointSystem, serverSeed: Bytes, clientSeed: string): Promise<PointTable> {
  const draws = new UniformDraws(await streamKey(serverSeed, clientSeed, "standard-52", STREAM));
  const points = new Map<Category, number>(DRAWN.map((category) => [category, 0]));
  if (system === "ameritish") {
    const royal = 30 + (await draws.below(71));
    for (const [i, category] of DRAWN.slice(0, -1).entries()) {
      // a = american * R / 100 and b = british * R / 30, as exact fractions
      const a = (AMERICAN[i] as number) * royal;
      const b = (BRITISH[i] as number) * royal;
      const low = Math.min(floorDiv(a, 100), floorDiv(b, 30));
      const high = Math.max(ceilDiv(a, 100), ceilDiv(b, 30));
      points.set(category, low + (await draws.below(high - low + 1)));
    }
    points.set("royal-flush", royal);
  } else if (system === "random") {
    for (const category of DRAWN) points.set(category, (await draws.below(256)) - 128);
  } else if (system === "hypercorner") {
    for (const category of DRAWN) points.set(category, 2 * (await draws.below(2)) - 1);
  } else {
    points.set(DRAWN[await draws.below(DRAWN.length)] as Category, 1);
  }
  return Object.fromEntries(points) as PointTable;
}

/** Whether two tables give every category the same points (an absent one scores 0). */
export function sameTable(one: PointTable, other: PointTable): boolean {
  const categories = new Set([...Object.keys(one), ...Object.keys(other)]) as Set<Category>;
  return [...categories].every((category) => (one[category] ?? 0) === (other[category] ?? 0));
}

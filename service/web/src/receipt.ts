/**
 * Receipt verification in the browser (docs/protocol.md section 4), with WebCrypto only: the
 * compact JWS's Ed25519 signature against the key set, SHA-256 of the revealed server
 * seed against the committed hash, the deck re-derived by `cardproof-shuffle-v1`, and the
 * cards dealt checked against it. Each failed check is a reason, never an exception.
 */

import type { Seen } from "./board";
import type { DeckType } from "./cards";
import type { Schemas } from "./client";
import { completeLines, GRID_VARIANTS, type GridVariant, replayPlaced, replayReserve } from "./grid";
import type { PointTable } from "./hands";
import { POINT_SYSTEMS, type PointSystem, POINTS_ALGORITHM, drawTable, isPointSystem, sameTable } from "./points";
import { ALGORITHM, type Bytes, deckCards, fromHex, seedHash } from "./shuffle";
import { type SoloResult, dealColumns, replaySolodrez } from "./solodrez";
import { Refused, isCanonicalS, isStrictPublicKey, nullScoreMember, readJson, readKeySet, scoreMembersProblem } from "./strict";

export type Payload = Schemas["ReceiptPayload"];
export type KeySet = Schemas["JWKS"];

export interface Verification {
  ok: boolean;
  /** Why it is not verified (empty when it is). */
  reasons: string[];
  /** The refusal's code, as the SDK's (`malformed`, `bad-jwks`, `unknown-key`,
   * `bad-signature`, `key-not-valid`, `replay-failed`, `score-mismatch`...); null when verified. */
  code: string | null;
  /** What was checked, in words, in order. */
  checked: string[];
  payload: Payload | null;
  /** The deck re-derived from the revealed seeds (card texts), when there are seeds. */
  deck: string[] | null;
  /** Every check that could be made held, but the seed is not revealed yet (a tournament
   * still open): the rest is checked after the close. */
  pending: boolean;
  /** A solodrez game replayed on the deck: its columns as dealt and as it ended, its series. */
  solodrez: (SoloResult & { dealt: string[][] }) | null;
}

const decoder = new TextDecoder("utf-8", { fatal: true });
/** Seconds a receipt's date may run ahead of this clock (the SDK's CLOCK_LEEWAY). */
const CLOCK_LEEWAY = 300;
/** The JWS alg of every receipt (RFC 9864: Ed25519, fully specified). */
const ALG = "Ed25519";

/** Strict base64url (RFC 7515): no padding, no `+` `/`, no white space, canonical last bits. */
export function b64urlDecode(text: string): Bytes {
  if (!/^[A-Za-z0-9_-]*$/.test(text) || text.length % 4 === 1) throw new RangeError("not base64url");
  const base64 = text.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (text.length % 4)) % 4);
  const raw = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
  if (b64urlEncode(raw) !== text) throw new RangeError("not canonical base64url");
  return raw;
}

/** Base64url without padding. */
export function b64urlEncode(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** The deck type each variant deals from (as `GET /v1/variants` says). */
export const DECK_OF: Readonly<Record<string, DeckType>> = {
  "poker-squares": "standard-52",
  "poker-patience": "standard-52",
  "serpent-patience": "standard-52",
  "repeat-poker": "standard-52",
  "reserve-poker": "joker-53",
  solodrez: "pokerdrez-56",
};

/** A receipt as pasted: JSON's four white space characters (spaces, tabs, line breaks: a
 * wrapped terminal) dropped; no other (U+00A0, U+FEFF), as the SDK reads a token. */
export function cleanReceipt(text: string): string {
  return text.replace(/[ \t\n\r]+/g, "");
}

/** The receipt format this page reads (as `cardproof.receipts.RECEIPT_VERSION`). */
export const RECEIPT_VERSION = 3;
/** Versions this page reads: 2 named lines `col 1`, `diagonal 1`; only totals are compared here. */
const READ_VERSIONS: readonly number[] = [2, RECEIPT_VERSION];
/** Kinds that prove a fair deck: accepted unless the reader allows others knowingly. */
export const COMMITTED_KINDS: readonly string[] = ["committed-blind", "committed-open", "tournament"];
/** What a kind claims, checked against the payload's own flags. */
const KIND_HOLDS: Readonly<Record<string, (p: Payload) => boolean>> = {
  "committed-blind": (p) => p.committed_before_client_seed && p.blind,
  "committed-open": (p) => p.committed_before_client_seed,
  tournament: (p) => p.committed_before_client_seed && p.tournament !== null && p.tournament !== undefined,
};
/** Variants whose whole log the page replays and scores (the others: the signed score). */
const REPLAYED: readonly string[] = [...GRID_VARIANTS, "reserve-poker"];

/** A JSON value with its object keys sorted: two equal values give one text. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

export interface Expected {
  /** The hash committed before the deal. */
  serverSeedHash?: string;
  /** The client seed the page sent (a tournament's: its salt). */
  clientSeed?: string;
  /** The server seed revealed elsewhere, for a receipt signed before the reveal (a
   * tournament's, while it was open, carries none; the closed tournament shows each
   * round's seed): it must hash to the receipt's committed hash, and equal the
   * receipt's own seed if it shows one. */
  serverSeed?: string;
  /** The point system asked (`ameritish`...): the receipt's table must be the one its
   * seeds draw (`cardproof-points-v1`). */
  system?: string;
  /** Every card the page was shown, by its place in the deal. */
  seen?: Seen[];
  /** The named point tables (`GET /v1/variants`), to score a grid variant's log. */
  tables?: Record<string, PointTable>;
  /** The game the page played: the receipt must be of it, field by field. */
  game?: { dealId: string; variant: string; options: unknown; moves: string; total: number | null; kinds: readonly string[] };
  /** Kinds accepted beyond the committed ones (`practice`, `casual`), knowingly. */
  allow?: string[];
  /** The origin whose key set was read (the page's own): a receipt naming another
   * issuer (`iss`) was not issued here. */
  issuerOrigin?: string;
}

/** The header `typ` of receipts (explicit typing), then the one older receipts carry. */
export const TYPES: readonly string[] = ["cardproof-receipt+jwt", "JOSE"];

/**
 * Why a receipt falls outside its key's period (`nbf <= iat < exp`), or null: a retired
 * key signs nothing dated after its retirement (docs/protocol.md section 4.2).
 */
export function keyPeriodProblem(
  payload: Payload,
  key: { kid?: string | null; nbf?: number | null; exp?: number | null },
): string | null {
  if (!Number.isSafeInteger(payload.issued_at) || (payload.iat !== undefined && payload.iat !== null && !Number.isSafeInteger(payload.iat))) {
    return "malformed: iat and issued_at are whole seconds";
  }
  if (payload.issued_at < 0 || (payload.iat !== undefined && payload.iat !== null && payload.iat < 0)) {
    return "malformed: a receipt's date (issued_at, iat) is negative";
  }
  if (payload.iat !== undefined && payload.iat !== null && payload.iat !== payload.issued_at) {
    return `malformed: iat ${payload.iat} and issued_at ${payload.issued_at} differ`;
  }
  const issued = payload.iat ?? payload.issued_at;
  if (key.nbf !== undefined && key.nbf !== null && issued < key.nbf) {
    return `key not valid: the receipt was issued at ${issued}, before key ${String(key.kid)} signed (nbf ${key.nbf})`;
  }
  if (issued > Date.now() / 1000 + CLOCK_LEEWAY) {
    return `key not valid: the receipt is dated ${issued}, in the future: no key signed it yet`;
  }
  if (key.exp !== undefined && key.exp !== null && issued >= key.exp) {
    return `key not valid: the receipt was issued at ${issued}, after key ${String(key.kid)} was retired (exp ${key.exp})`;
  }
  return null;
}

/**
 * Verify a receipt with nothing but the browser. `expected` is what its player was
 * promised or saw: the committed hash, the client seed, and every card shown, each at
 * its place in the deal (the page's own game); each must match.
 */
export async function verifyReceipt(token: string, keys: KeySet, expected: Expected = {}): Promise<Verification> {
  const result: Verification = { ok: false, reasons: [], code: null, checked: [], payload: null, deck: null, pending: false, solodrez: null };
  const fail = (reason: string, code: string): Verification => {
    result.reasons.push(reason);
    result.code = code;
    return result;
  };
  const parts = cleanReceipt(token).split(".");
  if (parts.length !== 3) return fail("malformed: a receipt is a compact JWS, three base64url parts", "malformed");
  const [head, body, signature] = parts as [string, string, string];
  let header: Record<string, unknown>;
  let payload: Payload;
  let signatureBytes: Bytes;
  try {
    // each part valid UTF-8, no byte order mark, no lone surrogate, integers within 2^53 - 1
    header = readJson(b64urlDecode(head)) as Record<string, unknown>;
    payload = readJson(b64urlDecode(body)) as Payload;
    signatureBytes = b64urlDecode(signature);
  } catch (error) {
    return fail(`malformed: the receipt cannot be read (${error instanceof Error ? error.message : String(error)})`, "malformed");
  }
  if (typeof header !== "object" || header === null || Array.isArray(header) || typeof payload !== "object" || payload === null || Array.isArray(payload)) {
    return fail("malformed: the header and payload must be JSON objects", "malformed");
  }
  const nullMember = nullScoreMember(payload as unknown as Record<string, unknown>);
  if (nullMember) return fail(`malformed: ${nullMember}`, "malformed");
  if (header["alg"] !== ALG) return fail(`unsupported alg ${JSON.stringify(header["alg"])}: not ${ALG}`, "unsupported-alg");
  if (!TYPES.includes(header["typ"] as string)) {
    return fail(`unsupported typ ${JSON.stringify(header["typ"])}: not ${TYPES[0]}`, "unsupported-typ");
  }
  if ("crit" in header) return fail("malformed: a critical header extension (crit) is not understood here", "malformed");
  const kid = header["kid"];
  if (typeof kid !== "string") return fail(`malformed: the header's kid ${JSON.stringify(kid)} is not a string`, "malformed");
  let strictKeys;
  try {
    strictKeys = readKeySet(keys);
  } catch (error) {
    if (error instanceof Refused) return fail(`the key set cannot be read: ${error.message}`, error.code);
    throw error;
  }
  const key = strictKeys.find((k) => k.kid === kid);
  if (!key || key.kty !== "OKP" || key.crv !== "Ed25519" || !key.x) {
    return fail(`unknown key ${JSON.stringify(kid)}: not an Ed25519 key of the key set`, "unknown-key");
  }
  let keyBytes: Bytes;
  try {
    keyBytes = b64urlDecode(key.x);
  } catch {
    return fail(`unknown key ${JSON.stringify(kid)}: its x is not base64url`, "unknown-key");
  }
  if (!isStrictPublicKey(keyBytes)) {
    // WebCrypto takes any point: the identity or a small-order one would "verify" forgeries
    return fail(`unknown key ${JSON.stringify(kid)}: not a valid Ed25519 key (a canonical point of the prime-order group)`, "unknown-key");
  }
  if (signatureBytes.length !== 64) return fail(`malformed: an Ed25519 signature is 64 bytes, not ${signatureBytes.length}`, "malformed");
  if (!isCanonicalS(signatureBytes)) return fail("bad signature: its S is not below the group order (a second spelling)", "bad-signature");
  let valid = false;
  try {
    const publicKey = await crypto.subtle.importKey(
      "jwk",
      { kty: "OKP", crv: "Ed25519", x: key.x },
      { name: "Ed25519" },
      false,
      ["verify"],
    );
    valid = await crypto.subtle.verify(
      { name: "Ed25519" },
      publicKey,
      signatureBytes,
      new TextEncoder().encode(`${head}.${body}`),
    );
  } catch (error) {
    return fail(`the signature cannot be checked here (${String(error)})`, "unsupported-alg");
  }
  if (!valid) return fail("bad signature: the signature does not match the receipt", "bad-signature");
  result.payload = payload; // only a signed payload is shown
  result.checked.push(`Ed25519 signature by key ${kid}`);
  const period = keyPeriodProblem(payload, key);
  if (period) return fail(period, period.startsWith("malformed") ? "malformed" : "key-not-valid");
  const origin = expected.issuerOrigin;
  if (origin !== undefined && typeof payload.iss === "string" && payload.iss !== origin && !payload.iss.startsWith(`${origin}/`)) {
    return fail(`issued by ${payload.iss}, not by this service (${origin}), whose key set was read`, "wrong-issuer");
  }
  const issued = new Date((payload.iat ?? payload.issued_at) * 1000).toISOString().replace(".000Z", "Z");
  result.checked.push(`issued${payload.iss ? ` by ${payload.iss}` : ""} at ${issued}, while its key signed`);
  const kind = typeof payload.kind === "string" ? payload.kind : null;
  if (!READ_VERSIONS.includes(payload.version) || kind === null) {
    return fail(`receipt version ${String(payload.version)} is not read here (version ${RECEIPT_VERSION} says what kind of game it proves)`, "bad-version");
  }
  if (![...COMMITTED_KINDS, ...(expected.allow ?? [])].includes(kind)) {
    return fail(
      `this is a ${kind} receipt: it proves the score of a log on a deck, not that the deck was fixed before the player chose (accept it only knowingly)`,
      "kind-not-accepted",
    );
  }
  if (KIND_HOLDS[kind] && !KIND_HOLDS[kind](payload)) return fail(`the receipt says ${kind} but its flags do not`, "kind-mismatch");
  result.checked.push(`kind ${kind}`);
  const game = expected.game;
  if (game !== undefined) {
    const differs = [
      payload.deal_id !== game.dealId && `the deal (${String(payload.deal_id)}, not ${game.dealId})`,
      payload.variant !== game.variant && `the variant (${payload.variant}, not ${game.variant})`,
      canonical(payload.options) !== canonical(game.options) && "the options",
      payload.moves !== game.moves && "the log",
      game.total !== null && payload.score.total !== game.total && `the score (${payload.score.total}, not ${game.total})`,
      !game.kinds.includes(kind) && `the kind (${kind})`,
    ].filter(Boolean);
    if (differs.length) return fail(`the receipt is not of the game played here: ${differs.join(", ")} differ`, "not-this-game");
    result.checked.push("the receipt is of the game played here (deal, variant, options, log, score)");
  }
  if (expected.serverSeedHash !== undefined && payload.server_seed_hash !== expected.serverSeedHash) {
    return fail("the receipt's server_seed_hash is not the hash committed before the deal", "seed-mismatch");
  }
  if (expected.clientSeed !== undefined && payload.client_seed !== expected.clientSeed) {
    return fail("the receipt's client_seed is not the client seed this page sent", "seed-mismatch");
  }
  const given = expected.serverSeed?.toLowerCase();
  const own = payload.server_seed ?? null;
  if (given !== undefined && own !== null && own.toLowerCase() !== given) {
    return fail("the receipt's server seed is not the one its tournament revealed", "seed-mismatch");
  }
  const revealed = own ?? given ?? null;
  if (revealed === null) {
    result.pending = true; // everything before held: only what needs the seed is left
    return fail("the server seed is not revealed yet (a tournament still open): only the signature was checked", "seed-not-revealed");
  }
  if (payload.algorithm !== ALGORITHM) return fail(`unknown deck derivation ${payload.algorithm}`, "unknown-algorithm");
  let seed: Bytes;
  try {
    seed = fromHex(revealed);
  } catch {
    return fail("the server seed is not hex", "seed-mismatch");
  }
  if ((await seedHash(seed)) !== payload.server_seed_hash) {
    return fail(
      own === null ? "SHA-256 of the seed the tournament revealed is not the receipt's committed server_seed_hash" : "SHA-256 of the server seed is not the committed server_seed_hash",
      "seed-mismatch",
    );
  }
  result.checked.push(own === null ? "SHA-256(server seed revealed by the closed tournament) equals the receipt's committed hash" : "SHA-256(server seed) equals the committed hash");
  const deckType = DECK_OF[payload.variant];
  if (deckType === undefined) return fail(`unknown variant ${payload.variant}`, "replay-failed");
  try {
    result.deck = await deckCards(deckType, seed, payload.client_seed);
  } catch (error) {
    return fail(`the deck cannot be derived: ${String(error)}`, "replay-failed");
  }
  result.checked.push(`the ${deckType} deck re-derived by ${ALGORITHM}`);
  const reason = await checkDrawnTable(payload, seed, expected.system, result.checked);
  if (reason) return fail(reason, "table-mismatch");
  if (expected.seen !== undefined) {
    const decks = new Map<string, string[]>([["deal", result.deck]]);
    for (const { stream, index, card } of [...expected.seen].sort((a, b) => a.index - b.index)) {
      let deck = decks.get(stream);
      if (deck === undefined) {
        deck = await deckCards(deckType, seed, payload.client_seed, stream);
        decks.set(stream, deck);
      }
      if (deck[index] !== card) {
        const where = stream === "deal" ? `card ${index}` : `card ${index} of ${stream}`;
        return fail(`${where} was shown as ${card}, the deck's is ${deck[index] ?? "none"}`, "not-this-game");
      }
    }
    result.checked.push(`the ${expected.seen.length} cards shown are the deck's, each in its place`);
  }
  const logReason = logProblem(payload);
  if (logReason) return fail(`the log does not replay: ${logReason}`, "replay-failed");
  const members = scoreMembersProblem(payload.variant, payload.score as unknown as Record<string, unknown>);
  if (members) return fail(`the receipt's score is not its variant's: ${members}`, "score-mismatch");
  if (REPLAYED.includes(payload.variant)) {
    const reason = checkGridScore(payload, result.deck, expected.tables ?? {});
    if (reason) return fail(reason, reason.startsWith("the log scores") ? "score-mismatch" : "replay-failed");
    result.checked.push("the deck's cards on the log's cells score the receipt's total");
  } else if (payload.variant === "solodrez") {
    const replayed = replaySolodrez(result.deck, payload.moves.split(" ").filter(Boolean));
    if ("error" in replayed) return fail(`the log does not replay: ${replayed.error}`, "replay-failed");
    const score = payload.score as { total: number; won?: boolean; series_removed?: number };
    if (score.total !== replayed.seriesRemoved || score.series_removed !== replayed.seriesRemoved || score.won !== replayed.won) {
      return fail(
        `the log removes ${replayed.seriesRemoved} series${replayed.won ? " (won)" : ""}, the receipt says ${String(score.series_removed)} (total ${score.total}${score.won ? ", won" : ""})`,
        "score-mismatch",
      );
    }
    result.solodrez = { ...replayed, dealt: dealColumns(result.deck) };
    result.checked.push(`the log replayed on the deck's nine columns removes ${replayed.seriesRemoved} of 9 series (${replayed.won ? "won" : "not won"}), as the receipt says`);
  } else {
    result.checked.push(`the ${payload.variant} log is not replayed in the page (the score is as signed; cardproof verify replays it)`);
  }
  result.ok = true;
  return result;
}

/**
 * The point table against the seeds: the system asked must be the table they draw; a
 * receipt checked without one (pasted) is told which system's draw its table is, if any.
 */
async function checkDrawnTable(
  payload: Payload,
  seed: Bytes,
  system: string | undefined,
  checked: string[],
): Promise<string | null> {
  const scoring = (payload.options as { scoring?: unknown } | null)?.scoring;
  const table = typeof scoring === "object" && scoring !== null ? (scoring as PointTable) : null;
  if (system !== undefined) {
    if (!isPointSystem(system)) return `${system} is not a point system drawn from the seeds`;
    if (table === null) return `the receipt does not carry the ${system} table its seeds draw`;
    if (!sameTable(table, await drawTable(system, seed, payload.client_seed))) {
      return `the point table is not the ${system} table the seeds draw (${POINTS_ALGORITHM})`;
    }
    checked.push(`the ${system} point table drawn by ${POINTS_ALGORITHM}`);
    return null;
  }
  if (table === null || !DRAWS_TABLES.includes(payload.variant)) return null;
  for (const each of POINT_SYSTEMS) {
    if (sameTable(table, await drawTable(each, seed, payload.client_seed))) {
      checked.push(`its point table is the ${each} table its seeds draw (${POINTS_ALGORITHM})`);
      return null;
    }
  }
  checked.push(`its point table is not one its seeds draw (${POINTS_ALGORITHM}): a custom table, or one picked for the deal`);
  return null;
}

/**
 * The players of `games` whose receipt was not scored with the table `system` draws from
 * the seeds (a tournament round's: every game has the same seeds). The signatures are
 * not checked here: this tells a table chosen late from the drawn one.
 */
export async function offTable(
  system: PointSystem,
  serverSeed: Bytes,
  clientSeed: string,
  games: ReadonlyArray<{ player: string; receipt: string }>,
): Promise<string[]> {
  const drawn = await drawTable(system, serverSeed, clientSeed);
  return games
    .filter(({ receipt }) => {
      try {
        const payload = JSON.parse(decoder.decode(b64urlDecode(receipt.split(".")[1] ?? ""))) as Payload;
        const table = (payload.options as { scoring?: unknown } | null)?.scoring;
        return typeof table !== "object" || table === null || !sameTable(table as PointTable, drawn);
      } catch {
        return true; // unreadable: not shown to be on the drawn table
      }
    })
    .map(({ player }) => player);
}

/** Each variant's move, in its one canonical spelling (rules.md: lower case; `0`, not `-0`). */
const MOVE_TEXT: Readonly<Record<string, RegExp>> = {
  "poker-squares": /^[a-e][1-5]$/,
  "serpent-patience": /^[a-e][1-5]$/,
  "poker-patience": /^(?:0|-?[1-4]),(?:0|-?[1-4])$/,
  "repeat-poker": /^r[1-5]$/,
  "reserve-poker": /^[0-3]>[0-4]$/,
  solodrez: /^(?:[0-8]:[1-9][0-9]*>[0-8]|r[0-8]|stop)$/,
};

/** Why a receipt's log or options are not ones its variant's rules read, or null: moves
 * separated by one space, each in its canonical text; options of their range. */
export function logProblem(payload: Payload): string | null {
  const moves = payload.moves;
  if (moves !== "" && !/^[^ ]+(?: [^ ]+)*$/.test(moves)) return "the moves are not separated by one space each";
  const pattern = MOVE_TEXT[payload.variant];
  const bad = pattern === undefined ? undefined : moves.split(" ").filter(Boolean).find((move) => !pattern.test(move));
  if (bad !== undefined) return `${JSON.stringify(bad)} is no ${payload.variant} move in its canonical text`;
  const options = (payload.options ?? {}) as Record<string, unknown>;
  if (payload.variant === "reserve-poker" && "version" in options && ![1, 2, 3, 4, 5, 6].includes(options["version"] as number)) {
    return `reserve-poker's version ${JSON.stringify(options["version"])} is not the number played (1..6)`;
  }
  if (payload.variant === "repeat-poker") {
    const rows = options["rows"] ?? 5;
    const levels = options["levels"] ?? 1;
    if (![1, 5].includes(levels as number)) return `repeat-poker's levels ${JSON.stringify(levels)} is not 1 or 5`;
    if (![1, 2, 3, 4, 5].includes(rows as number)) return `repeat-poker's rows ${JSON.stringify(rows)} is not 1..5`;
    if (levels === 5 && rows !== 5) return `repeat-poker with levels 5 has 5 rows, not ${String(rows)}`;
    const over = moves.split(" ").filter(Boolean).find((move) => Number(move.slice(1)) > (rows as number));
    if (over !== undefined) return `${over} is no row of ${String(rows)}`;
  }
  return null;
}

/** Variants whose options may draw their table from the seeds. */
const DRAWS_TABLES: readonly string[] = GRID_VARIANTS;

/** A grid variant: place deck card i at move i's cell, score the lines, compare totals. */
function checkGridScore(payload: Payload, deck: string[], tables: Record<string, PointTable>): string | null {
  const reserve = payload.variant === "reserve-poker";
  const variant = (reserve ? "poker-squares" : payload.variant) as GridVariant;
  const moves = payload.moves.split(" ").filter(Boolean);
  const replayed = reserve ? replayReserve(moves, deck) : replayPlaced(variant, moves, deck);
  if ("error" in replayed) return replayed.error;
  const options = payload.options as { scoring?: string | PointTable; diagonals?: boolean };
  const fallback = reserve ? "reserve" : variant === "poker-squares" ? "american" : "british";
  const scoring = reserve ? "reserve" : (options.scoring ?? fallback);
  const table = typeof scoring === "string" ? tables[scoring] : scoring;
  if (table === undefined) return `the point table ${String(scoring)} is not known to this page`;
  const lines = completeLines(variant, replayed.placed, table, reserve || options.diagonals === true);
  const total = lines.reduce((n, line) => n + line.points, 0);
  if (total !== payload.score.total) return `the log scores ${total}, the receipt says ${payload.score.total}`;
  return null;
}

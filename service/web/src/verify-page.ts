/**
 * `/verify`: paste any receipt; the page checks it in the browser against the key set,
 * then its place in this server's transparency log (`tlog.ts`, WebCrypto), as
 * `cardproof verify --url` does: the log's answer for the receipt is the deal's receipt
 * answer (`GET /v1/deals/{id}/receipt`, its `log`) when that answer is this very receipt;
 * otherwise (a tournament game's receipt is its entrant's to read, a deal that expired,
 * a receipt the service did not answer) the entry is looked up by its leaf hash
 * (`GET /log/proof/<leaf>`). Either is checked against the log's key (`GET /log/key`).
 *
 * A tournament's receipt is checked against its tournament (`GET /v1/tournaments/{id}`):
 * its round, salt and dates, and once the tournament has closed, the round's revealed seed
 * replays it in full (a receipt saved before the close carries none); until then the
 * line says the tournament is still open.
 *
 * One line says what was found: in the log at an index, not yet in the log (the log
 * sequences within a second or two; the line has a button to check again), or which
 * check failed. A receipt the log does not hold a minute after its signing is refused,
 * as the CLI refuses it (`not-in-log`).
 */

import { cardLabel, colourClass } from "./cards";
import { ApiError, call, type Schemas } from "./client";
import { GRID_VARIANTS, type GridVariant, key, replayPlaced, replayReserve } from "./grid";
import type { PointTable } from "./hands";
import { countMoves, soloColumn } from "./moves";
import { isPointSystem } from "./points";
import { type Expected, type KeySet, type Payload, type Verification, cleanReceipt, verifyReceipt } from "./receipt";
import { checkInLog, hex, leafHash, encodeEntry, EntryError, LogProofError, receiptEntry } from "./tlog";

const status = document.getElementById("verification") as HTMLElement;
const area = document.getElementById("receipt") as HTMLTextAreaElement;
const details = document.getElementById("details") as HTMLElement;
const logStatus = document.getElementById("log-status") as HTMLElement;
const logAgain = document.getElementById("log-again") as HTMLElement;
const retry = document.getElementById("log-retry") as HTMLButtonElement;
// a refusal may quote a key ID or a hash: let it wrap on a phone (style.css has no rule for it;
// the page policy allows no style attribute, but a script may set one)
logStatus.style.overflowWrap = "anywhere";

/** Seconds after its signing within which a receipt may not be in the log yet. */
const SEQUENCING_GRACE = 60;

/** What the log check found: its line, its style, whether to offer to check again. */
interface LogLine {
  text: string;
  style: "verified" | "pending" | "not-verified";
  retry: boolean;
  /** For the status line, when the log refuses the receipt. */
  refusal?: string;
}

/** The log's answer for this receipt: the deal's receipt answer's `log`, else by leaf hash. */
async function logAnswer(token: string, dealId: string): Promise<unknown> {
  try {
    const answer = await call("get", "/v1/deals/{deal_id}/receipt", { params: { deal_id: dealId } });
    if (cleanReceipt(answer.receipt) === token) return answer.log ?? null;
  } catch (error) {
    // 401/403: a tournament game's receipt is its entrant's; 404: no such deal (or expired)
    if (!(error instanceof ApiError) || error.status >= 500) throw error;
  }
  // Not this receipt's answer: find its entry by its leaf hash, as the CLI does.
  const leaf = hex(await leafHash(encodeEntry(await receiptEntry(token))));
  try {
    return await call("get", "/log/proof/{leaf}", { params: { leaf } });
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return null;
    throw error;
  }
}

/** The receipt's place in the log (`null`: a practice receipt, which no log holds). */
async function logCheck(token: string, kind: unknown, dealId: string | null | undefined, issued: number): Promise<LogLine | null> {
  if (kind === "practice") return null;
  if (!dealId) {
    // a committed kind names its deal: one that names none is no receipt the service signed
    const refusal = `a ${String(kind)} receipt of no deal: no log holds one`;
    return { text: `Not in the log: ${refusal} (not-in-log)`, style: "not-verified", retry: false, refusal };
  }
  try {
    await receiptEntry(token);
  } catch (error) {
    if (error instanceof EntryError) return null; // no deal, or no kind: not logged
    throw error;
  }
  let answer: unknown;
  let key: string;
  try {
    const keyAnswer = fetch("/log/key", { credentials: "omit" });
    answer = await logAnswer(token, dealId);
    const response = await keyAnswer;
    if (!response.ok) throw new Error(`HTTP ${response.status} for /log/key`);
    key = await response.text();
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return { text: `The log could not be read (${why})`, style: "pending", retry: true };
  }
  if (answer === null) {
    if (Date.now() / 1000 - issued < SEQUENCING_GRACE) {
      return { text: "Not yet in the log (sequenced within a second or two)", style: "pending", retry: true };
    }
    const text =
      "Not in the log: this server's transparency log does not hold this receipt, signed over a minute ago with its key (not-in-log). " +
      "The service logs every receipt it signs; one it never logged was signed by someone else with its key, or before the service kept its log";
    return { text, style: "not-verified", retry: false, refusal: "it is not in the server's transparency log" };
  }
  try {
    const found = await checkInLog(token, answer, key);
    return { text: `In the log at index ${found.index} (checkpoint of size ${found.size}, signed by ${found.origin})`, style: "verified", retry: false };
  } catch (error) {
    if (!(error instanceof LogProofError)) throw error;
    return {
      text: `Log check failed: ${error.check} (${error.code}: ${error.message})`,
      style: "not-verified",
      retry: false,
      refusal: `the log check failed: ${error.check}`,
    };
  }
}

/** A 5x5 grid of cards (row by row), as the tournament page draws a finished one. */
function miniGrid(placed: Map<string, string>): HTMLElement {
  const coords = [...placed.keys()].map((text) => text.split(",").map(Number) as [number, number]);
  const top = Math.min(...coords.map(([r]) => r));
  const left = Math.min(...coords.map(([, c]) => c));
  const grid = document.createElement("div");
  grid.className = "mini-grid";
  grid.setAttribute("role", "img");
  const cards: string[] = [];
  for (let r = 0; r < 5; r++) {
    for (let c = 0; c < 5; c++) {
      const card = placed.get(key([top + r, left + c])) ?? null;
      const cell = document.createElement("span");
      cell.className = card ? `card ${colourClass(card, false)}` : "card";
      cell.textContent = card ? cardLabel(card) : "";
      if (card) cards.push(card);
      grid.append(cell);
    }
  }
  grid.setAttribute("aria-label", `the grid, row by row: ${cards.join(" ")}`);
  return grid;
}

/** Nine solodrez columns, numbered 1 to 9 as the play page numbers them, first card at the
 * top and the exposed card last (as the play page draws them, without its buttons). */
function soloColumns(columns: readonly string[][], label: string): HTMLElement {
  const table = document.createElement("div");
  table.className = "solodrez";
  table.setAttribute("role", "group");
  table.setAttribute("aria-label", label);
  columns.forEach((column, a) => {
    const box = document.createElement("div");
    box.className = "column";
    box.setAttribute("role", "list");
    box.setAttribute("aria-label", `${soloColumn(a)}: ${column.length ? column.join(" ") : "empty"}`);
    const head = document.createElement("span");
    head.className = "row-name";
    head.textContent = `${a + 1}`;
    head.setAttribute("aria-hidden", "true");
    box.append(head);
    for (const card of column) {
      const cell = document.createElement("span");
      cell.className = `card ${colourClass(card, false)}`;
      cell.setAttribute("role", "listitem");
      cell.textContent = cardLabel(card);
      box.append(cell);
    }
    table.append(box);
  });
  return table;
}

/** A solodrez game as replayed: the deal's columns, each series removed (which column, at
 * which move), and the columns as the game ended when cards are left. */
function soloChecked(solo: NonNullable<Verification["solodrez"]>, log: string): HTMLElement[] {
  const heading = (text: string): HTMLElement => {
    const h = document.createElement("h3");
    h.textContent = text;
    return h;
  };
  const shown: HTMLElement[] = [heading("The deal: columns 1 to 9, first card at the top"), soloColumns(solo.dealt, "the nine columns as dealt")];
  shown.push(heading(`Series removed: ${solo.seriesRemoved} of 9`));
  if (solo.series.length) {
    const list = document.createElement("ol");
    list.id = "checked-series";
    for (const each of solo.series) {
      const item = document.createElement("li");
      item.textContent = `${each.cards.map(cardLabel).join(" ")} from ${soloColumn(each.column)} (move\u00a0${each.move + 1})`; // "(move 11)" on one line
      list.append(item);
    }
    shown.push(list);
  }
  const left = solo.columns.reduce((n, column) => n + column.length, 0);
  const end = document.createElement("p");
  end.id = "checked-result";
  const moves = log.split(" ").filter(Boolean);
  const stopped = moves[moves.length - 1] === "stop";
  // a stop moves no card: "stopped after 1 move", not "ended after move 2"
  const played = countMoves(stopped ? moves.slice(0, -1).join(" ") : log);
  const ended = !stopped ? `the game ended after ${played}` : played === "no move" ? "stopped before any move" : `stopped after ${played}`;
  end.textContent = solo.won
    ? `Won: all nine series removed in ${countMoves(log)} (the neutrals then leave too).`
    : `Not won: ${solo.seriesRemoved} of 9 series removed; ${ended}, with ${left} cards on the table.`;
  shown.push(end);
  if (!solo.won && moves.length > 0) shown.push(heading("The columns as the game ended"), soloColumns(solo.columns, "the nine columns as the game ended"));
  return shown;
}

/** The game's cards where the log put them: replayed on the deck the seeds derive, or,
 * without a revealed seed, the rows as the receipt's score lists them; null if neither. */
function gridOf(p: Payload, deck: string[] | null): Map<string, string> | null {
  const moves = p.moves.split(" ").filter(Boolean);
  if (deck !== null && (GRID_VARIANTS as readonly string[]).includes(p.variant)) {
    const replayed = replayPlaced(p.variant as GridVariant, moves, deck);
    if (!("error" in replayed)) return replayed.placed;
  }
  if (deck !== null && p.variant === "reserve-poker") {
    const replayed = replayReserve(moves, deck);
    if (!("error" in replayed)) return replayed.placed;
  }
  const rows = [1, 2, 3, 4, 5].map((n) => p.score.hands.find((hand) => hand.line === `row ${n}` && !hand.level));
  if (rows.some((row) => row === undefined || row.cards.length !== 5)) return null;
  const placed = new Map<string, string>();
  rows.forEach((row, r) => row?.cards.forEach((card, c) => placed.set(key([r, c]), card)));
  return placed;
}

/** What the receipt's game is and what it scored: its kind and variant, its grid, each
 * line with its category and points (solodrez: its result). */
function showChecked(
  p: Payload | null,
  checked: string[],
  deck: string[] | null,
  titles: Map<string, string>,
  solo: Verification["solodrez"] = null,
): void {
  const section = document.getElementById("checked") as HTMLElement;
  section.hidden = checked.length === 0 && p === null;
  (document.getElementById("checks") as HTMLElement).replaceChildren(
    ...checked.map((text) => {
      const item = document.createElement("li");
      item.textContent = text;
      return item;
    }),
  );
  const kind = document.getElementById("kind") as HTMLElement;
  const place = document.getElementById("checked-grid") as HTMLElement;
  const lines = document.getElementById("checked-lines") as HTMLTableElement;
  place.replaceChildren();
  lines.tBodies[0]?.replaceChildren();
  lines.hidden = true;
  kind.textContent = "";
  if (p === null) return;
  const score = p.score as Schemas["Score"];
  const title = titles.get(p.variant) ?? p.variant;
  const result =
    typeof score.series_removed === "number"
      ? `; ${score.won ? "won" : "not won"}, ${score.series_removed} of 9 series removed`
      : "";
  // "SoloDrez (Pokerdrez deck)" names its variant inside its own parentheses
  const named = title.endsWith(")") ? `${title.slice(0, -1)}; ${p.variant})` : `${title} (${p.variant})`;
  kind.textContent = `${named}, a ${String(p.kind ?? "version 1")} receipt: ${countMoves(p.moves)}, total ${score.total}${result}.`;
  if (solo !== null) {
    place.append(...soloChecked(solo, p.moves));
    return;
  }
  const placed = gridOf(p, deck);
  if (placed !== null) place.append(miniGrid(placed));
  if (score.hands.length === 0) return;
  for (const hand of score.hands) {
    const row = lines.tBodies[0]?.insertRow();
    const level = hand.level ? ` (level ${hand.level})` : "";
    for (const text of [`${hand.line}${level}`, hand.cards.map(cardLabel).join(" "), hand.category, String(hand.points)]) {
      if (row) row.insertCell().textContent = text;
    }
  }
  (document.getElementById("checked-total") as HTMLElement).textContent = String(score.total);
  lines.hidden = false;
}

type Tournament = Schemas["Tournament"];

/** What this browser holds to read an invite-only tournament: the entry `/play` keeps
 * (its token), a code or token given on its standings page or the organizer's key given
 * on `/play` (those two in their tab only). A public tournament needs none. */
function readerHeaders(tid: string): Record<string, string> {
  const held: Array<() => unknown> = [
    () => (JSON.parse(localStorage.getItem(`cardproof:entry:${tid}`) ?? "null") as { token?: unknown } | null)?.token,
    () => sessionStorage.getItem(`cardproof:reader:${tid}`),
    () => sessionStorage.getItem(`cardproof:organizer:${tid}`),
  ];
  for (const read of held) {
    try {
      const credential = read();
      if (typeof credential === "string" && credential) {
        return /^cp[eo]_/.test(credential) ? { Authorization: `Bearer ${credential}` } : { "X-Invite-Code": credential };
      }
    } catch {
      // no storage here, or nothing readable in it
    }
  }
  return {};
}

/** A verdict turned into a refusal (a check against the tournament failed). */
const refused = (verdict: Verification, reason: string, code: string): Verification => ({
  ...verdict,
  ok: false,
  pending: false,
  reasons: [reason],
  code,
});

/**
 * A tournament receipt against its tournament, as `cardproof verify --url` checks one: the
 * round that committed to its seed hash, the tournament's salt as its client seed, its
 * variant, its date within the tournament's life; once the tournament has closed, the
 * round's revealed seed replays it (a receipt saved before the close carries none: the
 * deck, the cards and the score are checked with the tournament's), and the standings
 * count it. While the tournament is open: the line that says so (`waiting`).
 */
async function againstTournament(
  token: string,
  keys: KeySet,
  expected: Expected,
  first: Verification,
): Promise<{ verdict: Verification; waiting: string | null }> {
  const p = first.payload as Payload;
  const tid = String(p.tournament);
  const headers = readerHeaders(tid);
  let tournament: Tournament;
  try {
    tournament = await call("get", "/v1/tournaments/{tournament_id}", { params: { tournament_id: tid }, headers });
  } catch (error) {
    if (first.ok) return { verdict: first, waiting: null }; // it carries its seed: checked by itself
    if (error instanceof ApiError && error.status === 404) {
      return { verdict: refused(first, `this server has no tournament ${tid} (it expired, or the receipt is another server's): its seed cannot be read`, "unknown-tournament"), waiting: null };
    }
    const why =
      error instanceof ApiError && (error.status === 401 || error.status === 403)
        ? `tournament ${tid} is invite-only and this browser holds no invite code or entry of it (open its standings page with your invite code, or verify in the browser you entered with)`
        : `tournament ${tid} could not be read (${error instanceof Error ? error.message : String(error)})`;
    return { verdict: first, waiting: `Not verified yet: the signature holds, but ${why}; the seed, the deck and the cards are checked with the tournament's revealed seed.` };
  }
  const round = tournament.rounds.find((r) => r.server_seed_hash === p.server_seed_hash);
  if (round === undefined) {
    return { verdict: refused(first, `no round of tournament ${tid} committed to this receipt's server_seed_hash`, "not-in-tournament"), waiting: null };
  }
  if (p.client_seed !== tournament.salt) {
    return { verdict: refused(first, "its client seed is not the tournament's salt: it was dealt another deck than the round's", "seed-mismatch"), waiting: null };
  }
  if (p.variant !== tournament.variant) {
    return { verdict: refused(first, `it is ${p.variant}, the tournament plays ${tournament.variant}`, "not-this-game"), waiting: null };
  }
  const issued = p.iat ?? p.issued_at;
  const end = tournament.closed_at ?? tournament.closes_at;
  if (issued < Date.parse(tournament.created_at) / 1000 - 1 || issued > Date.parse(end) / 1000 + 1) {
    return { verdict: refused(first, `it is dated outside its tournament's life (${tournament.created_at} to ${end})`, "bad-date"), waiting: null };
  }
  const ofRound = `round ${round.round} of ${JSON.stringify(tournament.name)} (${tid}) committed to its seed hash; its client seed is the tournament's salt; issued while the tournament stood`;
  if (round.server_seed === null) {
    if (p.server_seed !== null && p.server_seed !== undefined) {
      return { verdict: refused(first, `it shows round ${round.round}'s seed while the tournament is open: the service shows a tournament game's seed only after the close`, "early-seed"), waiting: null };
    }
    first.checked.push(ofRound);
    const waiting = `Not verified yet: the signature holds; ${JSON.stringify(tournament.name)} is still open (it closes at ${tournament.closes_at}): round ${round.round}'s seed, the deck and the cards are checked once it closes.`;
    return { verdict: first, waiting };
  }
  const scoring = (tournament.options as { scoring?: unknown } | null)?.scoring;
  const verdict = await verifyReceipt(token, keys, { ...expected, serverSeed: round.server_seed, ...(isPointSystem(scoring) ? { system: scoring } : {}) });
  if (!verdict.ok) return { verdict, waiting: null };
  verdict.checked.push(ofRound);
  try {
    const standings = await call("get", "/v1/tournaments/{tournament_id}/standings", {
      params: { tournament_id: tid },
      query: { player: String(p.player) },
      headers,
    });
    const game = standings.player === p.player ? standings.games?.find((g) => g.round === round.round) : undefined;
    if (game?.total !== p.score.total) {
      const said = game === undefined ? "no game of round " + String(round.round) : `a total of ${game.total}`;
      return { verdict: refused(verdict, `the closed tournament's standings give ${JSON.stringify(p.player)} ${said}, not this receipt's ${p.score.total}`, "not-in-standings"), waiting: null };
    }
    verdict.checked.push(`the closed tournament's standings count it: ${String(p.player)}, round ${round.round}, ${p.score.total}`);
  } catch {
    // the standings unread (a limit, a network fault): the receipt is replayed all the same
  }
  return { verdict, waiting: null };
}

/** Each check a number: a later one's answer replaces an earlier one's, never the reverse. */
let generation = 0;
/** What the last verified receipt's log check needs, to check it again. */
let lastReceipt: { token: string; kind: unknown; dealId: string | null | undefined; issued: number } | null = null;

function showLog(line: LogLine | null, mine: number): void {
  if (mine !== generation) return;
  if (line === null) {
    logStatus.textContent = "A practice receipt names no deal: it is not in the log.";
    logStatus.className = "";
    logAgain.hidden = true;
    return;
  }
  logStatus.textContent = line.text;
  logStatus.className = line.style;
  logAgain.hidden = !line.retry;
  if (line.refusal) {
    status.textContent = `Not verified: ${line.refusal}.`;
    status.className = "not-verified";
  } else if (line.style === "pending" && status.className === "verified") {
    // as `cardproof verify --url` exits 3: a pass needs the log too
    status.textContent = "Not verified yet: the receipt checks out, but it is not in the server's transparency log yet (check the log again in a moment).";
    status.className = "pending";
  }
}

async function checkLog(): Promise<void> {
  if (lastReceipt === null) return;
  const mine = ++generation;
  logAgain.hidden = true;
  logStatus.textContent = "Checking the transparency log…";
  logStatus.className = "";
  const { token, kind, dealId, issued } = lastReceipt;
  try {
    showLog(await logCheck(token, kind, dealId, issued), mine);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    showLog({ text: `The log could not be checked here (${why})`, style: "pending", retry: true }, mine);
  }
}

async function check(): Promise<void> {
  const mine = ++generation;
  lastReceipt = null;
  status.textContent = "Verifying…";
  status.className = "";
  details.textContent = "";
  showChecked(null, [], null, new Map());
  logStatus.textContent = "";
  logStatus.className = "";
  logAgain.hidden = true;
  try {
    const [keys, variants] = await Promise.all([call("get", "/.well-known/jwks.json"), call("get", "/v1/variants")]);
    const tables: Record<string, PointTable> = {};
    for (const info of variants) Object.assign(tables, info.tables as Record<string, PointTable>);
    const allow = [...document.querySelectorAll<HTMLInputElement>("input[name=allow]:checked")].map((box) => box.value);
    const token = cleanReceipt(area.value);
    const expected: Expected = { tables, allow, issuerOrigin: window.location.origin };
    let verdict = await verifyReceipt(token, keys, expected);
    let waiting: string | null = null;
    if ((verdict.ok || verdict.pending) && verdict.payload?.tournament) {
      // a tournament's game: checked against its tournament, with its seed once revealed
      ({ verdict, waiting } = await againstTournament(token, keys, expected, verdict));
    }
    if (mine !== generation) return;
    // the verdict in one line; each check made in the list under it
    if (verdict.ok) status.textContent = "Verified: every check below holds.";
    else if (verdict.pending) {
      // a tournament still open: the normal state until its close, said in a neutral style
      status.textContent = waiting ?? "Not verified yet: the signature holds; the seed, the deck and the cards are checked once the tournament closes.";
    } else status.textContent = `Not verified: ${verdict.reasons.join("; ")}.`;
    const titles = new Map(variants.map((info) => [info.id, info.title]));
    showChecked(verdict.ok || verdict.pending ? verdict.payload : null, verdict.ok || verdict.pending ? verdict.checked : [], verdict.deck, titles, verdict.ok ? verdict.solodrez : null);
    status.className = verdict.ok ? "verified" : verdict.pending ? "pending" : "not-verified";
    if (verdict.payload) {
      const p = verdict.payload;
      const scoring = (p.options as { scoring?: unknown }).scoring;
      const table = scoring !== null && typeof scoring === "object" ? `, a custom point table ${JSON.stringify(scoring)}` : "";
      details.textContent = `${p.variant} (${String(p.kind)}), score ${p.score.total}, ${countMoves(p.moves)}, client seed ${JSON.stringify(p.client_seed)}${p.player ? `, player ${p.player}` : ""}${table}`;
    }
    if (verdict.payload && (verdict.ok || verdict.pending)) {
      // the signature held: now its place in the log
      const p = verdict.payload;
      lastReceipt = { token, kind: p.kind, dealId: p.deal_id, issued: Number(p.iat ?? p.issued_at) };
      await checkLog();
    }
  } catch (error) {
    if (mine !== generation) return;
    status.textContent = `Not verified: ${error instanceof Error ? error.message : String(error)}.`;
    status.className = "not-verified";
  }
}

document.getElementById("verify")?.addEventListener("click", () => void check());
retry.addEventListener("click", () => void checkLog());
document.body.dataset["ready"] = "1"; // the controls work from here (tests wait for it)

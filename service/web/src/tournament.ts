/**
 * `/play?tournament=ID`: a tournament's page. Enter with a name (and an invite code where
 * one is needed); the token is kept in this browser's storage. Then each round is opened
 * and played here, checked against the seed hash the tournament committed to at
 * creation. The page shows only what can be done now: the entry form while entries are
 * open, the round to take a seat in, the table while a round is played.
 *
 * A lockstep round is played live: the page follows the round's calls (server-sent
 * events, read with fetch so the token goes along) and polls its status every second
 * (seats, placements, the server's clock), and shows each called card, the time left and
 * how many seats have placed it; after the round, the standings. The organizer opens the
 * page with its key (kept in this tab only) to watch the seats fill, start the round and
 * close the tournament (once asked). After the close it says so, links the standings page,
 * and shows the entrant's own games first, then the standings, the settlement, and every
 * grid, round by round, with each round's par once solved; a game open here whose receipt
 * waited on the seed is checked with the round's revealed seed.
 */

import type { Board } from "./board";
import { ApiError, call, newKey, type Schemas } from "./client";
import { drawGame, fourColours } from "./draw";
import { GRID_VARIANTS, type GridVariant, key, replayPlaced, replayReserve } from "./grid";
import type { PointTable } from "./hands";
import { KINDS } from "./kinds";
import { isPointSystem, type PointSystem, POINTS_ALGORITHM } from "./points";
import { cardLabel, colourClass } from "./cards";
import { $, Session, describe, say } from "./session";
import { DECK_OF, offTable } from "./receipt";
import { showRules } from "./rules";
import { deckCards, fromHex } from "./shuffle";

type Variant = Schemas["VariantInfo"];
type Tournament = Schemas["Tournament"];
type Entry = Schemas["Entry"];
type RoundStatus = Schemas["RoundStatus"];
type Call = Schemas["Call"];

/** How often the current lockstep round's status is asked for (ms). */
const POLL_MS = 1000;
/** How often the countdown is redrawn (ms): each second's change shows on time. */
const TICK_MS = 250;

interface Kept {
  token: string;
  name: string;
  /** Each round's committed seed hash, as the entry answered (what the deals must match). */
  hashes: Record<string, string>;
  salt: string;
  /** Per round: the idempotency key of opening it (a reload resumes the same game). */
  keys: Record<string, string>;
}

/** The lockstep round whose game is open here: its last call, and its end. */
interface Seat {
  round: number;
  call: Call | null;
  /** Each card called to this seat, by its index (`null`: a turn, no common card). */
  cards: Map<number, string | null>;
  /** Where the server placed a card for this seat at its deadline: "10♥ at b1". */
  placedForYou: string[];
  over: boolean;
  /** Ended by the tournament's close before its last card was called: how many were. */
  closedAfter: { called: number; calls: number } | null;
  /** When the game last changed here (a move, a call): counts asked before are stale. */
  changedAt: number;
}

/** The current lockstep round, polled while this page waits on it. */
interface Watch {
  round: number;
  status: RoundStatus;
  /** When `status` was asked for. */
  asked: number;
  stop: AbortController;
  /** Ask again now. */
  wake: () => void;
}

const storageKey = (id: string): string => `cardproof:entry:${id}`;
const organizerStorageKey = (id: string): string => `cardproof:organizer:${id}`;

function kept(id: string): Kept | null {
  try {
    const text = localStorage.getItem(storageKey(id));
    return text ? (JSON.parse(text) as Kept) : null;
  } catch {
    return null;
  }
}

function keep(id: string, entry: Kept): void {
  localStorage.setItem(storageKey(id), JSON.stringify(entry));
}

/** The organizer's key given on this page: kept for this tab only (sessionStorage). */
function organizerKey(id: string): string | null {
  try {
    return sessionStorage.getItem(organizerStorageKey(id));
  } catch {
    return null;
  }
}

let tid = "";
let variantList: Variant[] = [];
let session: Session | null = null;
let board: Board | null = null;
let following: AbortController | null = null;
let ticking: number | undefined;
let seat: Seat | null = null;
let watch: Watch | null = null;
/** The server's clock minus this browser's (ms), from the last status with a deadline. */
let clockOffset = 0;
/** The page's redraws, one after another. */
let rendering: Promise<void> = Promise.resolve();

function draw(): void {
  drawGame(board, session?.view ?? null, session?.next ?? 0, session?.playing ?? false);
}

/** The one-off message shown now (an entry kept, a seat taken, a card placed for the
 * player): the next event (a call, the round's next phase) clears it. */
let oneOff: string | null = null;

/** Say a one-off message: it replaces the one before, and goes at the next event. */
function notice(text: string): void {
  say(text);
  oneOff = text;
}

/** The next event came: a one-off message still shown goes (any other stays). */
function clearNotice(): void {
  if (oneOff !== null && $("message").textContent === oneOff) say("");
  oneOff = null;
}

export async function startTournament(id: string, variants: Variant[]): Promise<void> {
  tid = id;
  variantList = variants;
  document.body.dataset["tournament"] = "1";
  $("setup").hidden = true;
  $("tournament").hidden = false;
  $("four-colours-tournament").addEventListener("change", () => {
    $<HTMLInputElement>("four-colours").checked = $<HTMLInputElement>("four-colours-tournament").checked;
    draw();
  });
  $("t-enter-button").addEventListener("click", () => void enter());
  $("t-organizer-button").addEventListener("click", () => void organize());
  $("t-forget").addEventListener("click", () => {
    sessionStorage.removeItem(organizerStorageKey(tid));
    void rerender();
  });
  $("t-start").addEventListener("click", () => void startRound());
  $("t-close").addEventListener("click", () => void closeTournament());
  await rerender();
  document.body.dataset["ready"] = "1";
}

/** Draw the page again from the server's state (after the ones already asked for). */
function rerender(): Promise<void> {
  rendering = rendering.then(show).catch((error: unknown) => say(describe(error)));
  return rendering;
}

function bearer(entry: Kept | null, organizer: string | null = null): Record<string, string> {
  const token = entry?.token ?? organizer;
  return token ? { Authorization: `Bearer ${token}` } : {};
}

/** The tournament as this visitor may read it, its rounds, and what can be done now. */
async function show(): Promise<void> {
  const entry = kept(tid);
  const organizer = organizerKey(tid);
  const headers = bearer(entry, organizer);
  let tournament: Tournament;
  try {
    tournament = await call("get", "/v1/tournaments/{tournament_id}", { params: { tournament_id: tid }, headers });
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) {
      notFound();
      return;
    }
    $("page-title").textContent = "A tournament";
    $("t-status").textContent = entry || organizer ? describe(error) : "Enter with your invite code to see this tournament.";
    showEntry(entry, organizer, "invite");
    $("t-start").hidden = true;
    $("t-seated").textContent = "";
    return;
  }
  $("page-title").textContent = tournament.name;
  document.title = `${tournament.name} · cardproof`;
  const info = variantList.find((v) => v.id === tournament.variant);
  showRules(tournament.variant, info?.title ?? tournament.variant);
  const lockstep = tournament.format === "lockstep";
  const format = lockstep ? `lockstep, ${tournament.card_seconds} s a card` : "each at their own pace";
  $("t-status").textContent = `${tournament.variant}, ${tournament.rounds.length} round${tournament.rounds.length === 1 ? "" : "s"}, ${format}; ${tournament.closed_at ? `closed at ${tournament.closed_at}` : `${tournament.status}, closes ${tournament.closes_at}`}.`;
  const standingsPage = `/tournaments/${encodeURIComponent(tid)}`;
  $<HTMLAnchorElement>("t-standings-link").href = standingsPage;
  showEntry(entry, organizer, tournament.entry, tournament);
  const closed = tournament.status === "closed";
  document.body.toggleAttribute("data-closed", closed);
  $("t-closed").hidden = !closed;
  $("t-links").hidden = closed; // the closed line links the standings itself
  if (closed) {
    const link = document.createElement("a");
    link.href = standingsPage;
    link.textContent = "standings page";
    $("t-closed").replaceChildren(
      "This tournament is closed: every round's seed is revealed, every game is below and on the ",
      link,
      ".",
    );
    watchRound(null);
    $("t-note").textContent = "";
    $("t-standings").replaceChildren();
    await showClosed(tournament, headers, entry);
    return;
  }
  const { current, played } = lockstep ? await currentRound(tournament, headers) : { current: null, played: 0 };
  // who waits on the round: an entrant, the organizer, a visitor while entries are open
  const waits = entry !== null || organizer !== null || (tournament.entries_closed_at ?? null) === null;
  watchRound(lockstep && waits ? current : null);
  if (organizer !== null) await readEntrants(headers);
  showSeats(lockstep ? current : null, lockstep);
  showRounds(tournament, entry, current);
  await showStandings(played, lockstep, headers);
}

/** No such tournament (the API's 404): say so plainly, and offer nothing to do. */
function notFound(): void {
  watchRound(null);
  document.title = "No such tournament · cardproof";
  $("page-title").textContent = "No such tournament";
  $("t-status").textContent = `This server has no tournament ${tid}: check the link you were sent (it may have been mistyped, or the tournament has expired).`;
  for (const id of ["t-enter", "t-organizer", "t-organize", "rules", "t-links", "t-closed"]) $(id).hidden = true;
  for (const id of ["t-entered", "t-note"]) $(id).textContent = "";
  $("t-rounds").replaceChildren();
  $("t-standings").replaceChildren();
}

/** The first lockstep round not finished (`null` once every one is), and how many are. */
async function currentRound(
  tournament: Tournament,
  headers: Record<string, string>,
): Promise<{ current: RoundStatus | null; played: number }> {
  for (const round of tournament.rounds) {
    const status = await call("get", "/v1/tournaments/{tournament_id}/rounds/{round_number}", {
      params: { tournament_id: tid, round_number: round.round },
      headers,
    });
    if (status.status !== "finished") return { current: status, played: round.round - 1 };
  }
  return { current: null, played: tournament.rounds.length };
}

/** The entry form while entries are open; who this browser entered as, or why it cannot. */
function showEntry(entry: Kept | null, organizer: string | null, kind: string, tournament: Tournament | null = null): void {
  const closedAt = tournament?.entries_closed_at ?? null;
  const over = tournament?.status === "closed";
  $("t-enter").hidden = entry !== null || organizer !== null || closedAt !== null || over;
  $("t-invite-field").hidden = kind !== "invite";
  $("t-organizer").hidden = entry !== null || organizer !== null || over;
  $("t-organize").hidden = organizer === null || over;
  let text = "";
  if (entry) text = `Entered as ${entry.name}.`;
  else if (organizer !== null) text = "You organize this tournament: your key is kept in this tab only.";
  else if (closedAt !== null && !over) {
    text = `Entries closed at ${closedAt}, when round 1 started: every entrant is seated before the first call.`;
  } else if (tournament?.format === "lockstep" && !over) {
    text = "Entries close when round 1 starts.";
  }
  $("t-entered").textContent = text;
}

/** The rounds the entrant can open now: any of an async tournament, else the current one. */
function showRounds(tournament: Tournament, entry: Kept | null, current: RoundStatus | null): void {
  const rounds = $("t-rounds");
  rounds.replaceChildren();
  $("t-note").textContent = "";
  if (!entry) return;
  let playable = tournament.rounds.map((round) => round.round);
  if (tournament.format === "lockstep") {
    playable = [];
    const seated = current !== null && entry.keys[String(current.round)] !== undefined;
    if (current && seated && seat?.round !== current.round) void openRound(tournament, current.round);
    else if (current && !seated && current.status === "waiting") {
      playable = [current.round];
      const starts = current.starts_at ? `, or by itself at ${current.starts_at}` : "";
      $("t-note").textContent = `Round ${current.round} starts when the organizer starts it${starts}: take your seat before then.`;
    } else if (current && !seated) {
      $("t-note").textContent = `Round ${current.round} started before you took a seat: you play the rounds after it.`;
    } else if (!current) {
      $("t-note").textContent = `Every round has been played: the tournament closes at ${tournament.closes_at}.`;
    }
  }
  for (const round of playable) {
    const button = document.createElement("button");
    button.type = "button";
    // a lockstep round is sat at, then played when its organizer starts it
    button.textContent = tournament.format === "lockstep" ? seatWords(round) : `Play round ${round}`;
    button.addEventListener("click", () => void openRound(tournament, round));
    const item = document.createElement("li");
    item.append(button);
    rounds.append(item);
  }
}

/** The lockstep seat's button, as the organizer's hint names it. */
const seatWords = (round: number): string => `Take your seat for round ${round}`;

/** The standings so far, under the last lockstep round played (none before the first). */
async function showStandings(played: number, lockstep: boolean, headers: Record<string, string>): Promise<void> {
  const place = $("t-standings");
  if (!lockstep || played === 0) {
    place.replaceChildren();
    return;
  }
  const standings = await call("get", "/v1/tournaments/{tournament_id}/standings", {
    params: { tournament_id: tid },
    headers,
  });
  place.replaceChildren(standingsTable(`Standings after round ${played}`, standings));
}

async function enter(): Promise<void> {
  const name = $<HTMLInputElement>("t-entrant-name").value.trim();
  const code = $<HTMLInputElement>("t-invite-code").value.trim();
  try {
    const answer: Entry = await call("post", "/v1/tournaments/{tournament_id}/entries", {
      params: { tournament_id: tid },
      body: code ? { name, invite_code: code } : { name },
      headers: { "Idempotency-Key": newKey() },
    });
    const hashes: Record<string, string> = {};
    for (const round of answer.rounds ?? []) hashes[String(round.round)] = round.server_seed_hash;
    keep(tid, { token: answer.token, name: answer.name, hashes, salt: answer.salt ?? "", keys: {} });
    notice("Your entry's token is kept in this browser: open this page here to play your rounds.");
    await rerender();
  } catch (error) {
    say(describe(error));
  }
}

/** The organizer's key, given on the page: kept for this tab, then the organizer's view. */
async function organize(): Promise<void> {
  const input = $<HTMLInputElement>("t-organizer-key");
  const given = input.value.trim();
  if (!given.startsWith("cpo_")) {
    say("An organizer's key starts with cpo_ (`cardproof keys organizer create` prints it).");
    return;
  }
  sessionStorage.setItem(organizerStorageKey(tid), given);
  input.value = "";
  say("");
  await rerender();
}

/** The organizer starts the current lockstep round: card 1 is called to every seat. */
async function startRound(): Promise<void> {
  const organizer = organizerKey(tid);
  const round = watch?.round;
  if (organizer === null || round === undefined) return;
  try {
    await call("post", "/v1/tournaments/{tournament_id}/rounds/{round_number}/start", {
      params: { tournament_id: tid, round_number: round },
      body: {},
      headers: bearer(null, organizer),
    });
  } catch (error) {
    say(describe(error));
  }
  await rerender();
}

/** The organizer closes the tournament, once asked to confirm: entries and play end now. */
async function closeTournament(): Promise<void> {
  const organizer = organizerKey(tid);
  if (organizer === null || !(await confirmClose())) return;
  try {
    await call("post", "/v1/tournaments/{tournament_id}/close", {
      params: { tournament_id: tid },
      body: {},
      headers: bearer(null, organizer),
    });
    notice("The tournament is closed.");
  } catch (error) {
    say(describe(error));
  }
  await rerender();
}

/** Asks before closing the tournament (a modal dialog); true to close it. */
function confirmClose(): Promise<boolean> {
  const dialog = $<HTMLDialogElement>("close-dialog");
  return new Promise((resolve) => {
    const done = (answer: boolean): void => {
      $("close-yes").removeEventListener("click", yes);
      $("close-no").removeEventListener("click", no);
      dialog.removeEventListener("cancel", no);
      if (dialog.open) dialog.close();
      resolve(answer);
    };
    const yes = (): void => done(true);
    const no = (): void => done(false);
    $("close-yes").addEventListener("click", yes);
    $("close-no").addEventListener("click", no);
    dialog.addEventListener("cancel", no); // Escape keeps it open
    dialog.showModal();
    $("close-no").focus();
  });
}

/**
 * Poll `current`'s round every second (at once when woken) while the page waits on it:
 * the seats, the placements and the server's clock; the page is drawn again when the
 * round changes phase (started, finished). `null` stops.
 */
function watchRound(current: RoundStatus | null): void {
  if (watch && current && watch.round === current.round) {
    watch.status = current;
    return;
  }
  watch?.stop.abort();
  watch = null;
  if (!current) return;
  const stop = new AbortController();
  let woken = false; // while a status is being asked for: ask again at once after it
  let wake = (): void => void (woken = true);
  const mine: Watch = { round: current.round, status: current, asked: performance.now(), stop, wake: () => wake() };
  watch = mine;
  const headers = bearer(kept(tid), organizerKey(tid));
  void (async () => {
    while (!stop.signal.aborted) {
      if (!woken) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, POLL_MS);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
      woken = false;
      wake = () => void (woken = true);
      if (stop.signal.aborted) return;
      const asked = performance.now();
      let status: RoundStatus;
      try {
        status = await call("get", "/v1/tournaments/{tournament_id}/rounds/{round_number}", {
          params: { tournament_id: tid, round_number: mine.round },
          headers,
        });
      } catch (error) {
        if (!(error instanceof ApiError && error.status < 500 && error.status !== 429)) continue;
        if (watch === mine) watch = null; // refused: asking again would not help
        return;
      }
      if (stop.signal.aborted) return;
      const moved = status.status !== mine.status.status;
      mine.status = status;
      mine.asked = asked;
      if (status.deadline && typeof status.seconds_left === "number") {
        clockOffset = Date.parse(status.deadline) - status.seconds_left * 1000 - Date.now();
      }
      if (seat?.round === status.round && status.status === "finished") seat.over = true;
      if (organizerKey(tid) !== null && status.status === "waiting") await readEntrants(headers);
      if (moved) clearNotice(); // the round's next phase: a one-off message has had its time
      showSeats(status, true);
      showCall();
      if (moved) void rerender();
    }
  })();
}

/** The names of those who have entered, as the organizer last read them (the standings
 * list every entrant, with or without a game). */
let entrants: string[] = [];

async function readEntrants(headers: Record<string, string>): Promise<void> {
  try {
    const standings = await call("get", "/v1/tournaments/{tournament_id}/standings", { params: { tournament_id: tid }, headers });
    // by name: the standings' order (by rank) would shuffle the list from round to round
    entrants = standings.entrants.map((line) => line.name).sort((a, b) => a.localeCompare(b));
  } catch {
    // the count stays as last read: the round's own status still shows
  }
}

/** "3 entered (Ada, Bea, Cy)": a long field is cut after its first names. */
function enteredWords(): string {
  const shown = entrants.slice(0, 12);
  const more = entrants.length > shown.length ? ` and ${entrants.length - shown.length} more` : "";
  return entrants.length === 0 ? "nobody has entered yet" : `${entrants.length} entered (${shown.join(", ")}${more})`;
}

/** The organizer's view of the current round: who has entered, how many are seated, placed; Start. */
function showSeats(status: RoundStatus | null, lockstep: boolean): void {
  const start = $("t-start");
  start.hidden = status?.status !== "waiting" || status.seats === 0;
  let text = lockstep ? "Every round has been played." : "Each entrant plays at their own pace: nothing to start.";
  let hint = "";
  if (status) {
    start.textContent = `Start round ${status.round}`;
    const starts = status.starts_at ? ` It starts by itself at ${status.starts_at}.` : "";
    if (status.status === "waiting") {
      // one form for every round: who has entered, then how many sit at this one
      const seated = status.seats === 0 ? "nobody seated yet" : `${status.seats} seated`;
      text = `Round ${status.round}: ${enteredWords()}; ${seated}.${starts}`;
      const late = status.round === 1 ? " and entries close" : "";
      hint =
        status.seats === 0
          ? `The Start round ${status.round} button appears here once an entrant takes a seat (on their page: ${seatWords(status.round)}).`
          : `Start round ${status.round} calls its first card to the ${status.seats} seated${late}; an entrant who takes no seat before then sits this round out.`;
    } else if (status.status === "playing") {
      text = `Round ${status.round}: card ${(status.call ?? 0) + 1} of ${status.calls} called, ${status.placed ?? 0} of ${status.seats} placed.`;
    } else if (status.closed) {
      text = `Round ${status.round} was cut short by the tournament's close: ${status.called} of its ${status.calls} cards were called.`;
    } else {
      text = `Round ${status.round} is over.`;
    }
  }
  $("t-seated").textContent = text;
  $("t-start-hint").textContent = hint;
}

async function openRound(tournament: Tournament, round: number): Promise<void> {
  const entry = kept(tid);
  const info = variantList.find((v) => v.id === tournament.variant);
  const kind = KINDS[tournament.variant];
  if (!entry || !info || !kind) return;
  const lockstep = tournament.format === "lockstep";
  entry.keys[String(round)] ??= newKey();
  keep(tid, entry);
  following?.abort();
  clearInterval(ticking);
  seat = lockstep
    ? { round, call: null, cards: new Map(), placedForYou: [], over: false, closedAfter: null, changedAt: performance.now() }
    : null;
  $("result").hidden = true;
  let state: Schemas["DealState"];
  try {
    state = await call("post", "/v1/tournaments/{tournament_id}/rounds/{round_number}/deal", {
      params: { tournament_id: tid, round_number: round },
      body: {},
      headers: { ...bearer(entry), "Idempotency-Key": entry.keys[String(round)] as string },
    });
  } catch (error) {
    const problem = (error as { problem?: Record<string, unknown> }).problem;
    const first = problem?.["deal_id"];
    if (typeof first !== "string") {
      if (problem?.["code"] === "round-started") {
        delete entry.keys[String(round)]; // not seated: nothing to resume
        keep(tid, entry);
      }
      seat = null;
      say(describe(error));
      await rerender();
      return;
    }
    state = await call("get", "/v1/deals/{deal_id}", { params: { deal_id: first }, headers: bearer(entry) });
  }
  const promised = entry.hashes[String(round)];
  if (state.server_seed_hash !== promised || state.client_seed !== entry.salt) {
    say(`Round ${round} is not the deal the tournament committed to: stop here.`);
    return;
  }
  $("commitment").textContent = state.server_seed_hash;
  $("commitment-words").textContent = `Round ${round}'s commitment (SHA-256 of its server seed, fixed when the tournament was created): `;
  $("commitment-line").hidden = false;
  const tables = (info.tables ?? {}) as Record<string, PointTable>;
  board = kind.board($("board"), {
    play: (move) => void session?.play(move),
    say,
    fourColours,
    tables,
  });
  board.adopt?.(state.options);
  const system = (tournament.options as { scoring?: unknown } | null)?.scoring;
  const shown = (state.options as { scoring?: unknown } | null)?.scoring;
  if (isPointSystem(system) && (typeof shown !== "object" || shown === null)) {
    say(`Round ${round} does not show the ${system} table drawn for it: stop here.`);
    return;
  }
  const promise = { serverSeedHash: promised, clientSeed: entry.salt, ...(isPointSystem(system) ? { system } : {}) };
  const changed = (): void => {
    draw();
    if (seat) seat.changedAt = performance.now();
    watch?.wake(); // the counts asked before this change are stale: ask again
    showCall();
  };
  session = new Session(state, board, promise, tables, entry.token, changed, (placed) => tellPlaced(round, placed));
  if (lockstep) session.overWords = ""; // the call's line says the round is over, and the score
  document.body.dataset["table"] = "1";
  $("t-call").hidden = !lockstep;
  notice(state.finished ? `Your game of round ${round} is over.` : `Your game of round ${round} is open here.`);
  draw();
  if (seat) seat.over = state.finished;
  showCall();
  if (lockstep && !state.finished) {
    ticking = window.setInterval(showCall, TICK_MS);
    void follow(round, entry, session);
  }
  void rerender(); // the seat taken: the round's button goes
}

/**
 * Follow a lockstep round's calls until its end, refreshing the game at each call. A
 * stream that drops (the server ends each after an hour, a proxy or a replica may cut
 * it) is opened again from the last call seen, a second later. The first stream starts
 * at the call this seat may have placed already, so a reload shows it.
 */
async function follow(round: number, entry: Kept, game: Session): Promise<void> {
  following = new AbortController();
  const signal = following.signal;
  let after = Math.max(-1, game.next - 2);
  while (!signal.aborted) {
    const ended = await followOnce(round, entry, game, after, signal, (index) => (after = Math.max(after, index)));
    if (ended || signal.aborted) return;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

/** One calls stream: ``true`` once the round's ``end`` event came, ``false`` if it dropped. */
async function followOnce(
  round: number,
  entry: Kept,
  game: Session,
  after: number,
  signal: AbortSignal,
  seen: (index: number) => void,
): Promise<boolean> {
  const url = `/v1/tournaments/${encodeURIComponent(tid)}/rounds/${round}/calls?after=${after}`;
  try {
    const response = await fetch(url, {
      headers: { Accept: "text/event-stream", ...bearer(entry) },
      signal,
      credentials: "omit",
    });
    if (response.status >= 400 && response.status < 500) {
      say(`The calls cannot be followed (HTTP ${response.status}).`);
      return true; // refused: trying again would not help
    }
    if (!response.ok || !response.body) throw new Error(`the calls could not be followed (HTTP ${response.status})`);
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value;
      let end: number;
      while ((end = buffer.search(/\r?\n\r?\n/)) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end).replace(/^\r?\n\r?\n/, "");
        const fields = Object.fromEntries(
          block.split(/\r?\n/).filter((line) => line && !line.startsWith(":")).map((line) => {
            const at = line.indexOf(":");
            return [line.slice(0, at), line.slice(at + 1).trimStart()];
          }),
        ) as Record<string, string>;
        if (fields["event"] === "call" && fields["data"]) {
          const called = JSON.parse(fields["data"]) as Call;
          seen(called.index);
          if (seat?.round === round) seat.cards.set(called.index, called.card ?? null);
          if (seat?.round === round && (seat.call === null || called.index > seat.call.index)) seat.call = called;
          if (seat?.round === round && seat.call === called) clearNotice(); // a new call: last one's notice goes
          if (called.index >= game.next) await game.refresh();
          showCall();
        } else if (fields["event"] === "end") {
          if (seat?.round === round) {
            seat.over = true;
            seat.closedAfter = await closedAfter(round, entry);
          }
          clearInterval(ticking);
          await game.refresh();
          showCall();
          return true;
        }
      }
    }
  } catch (error) {
    if (!signal.aborted) say(`The calls: ${describe(error)}; following them again…`);
  }
  return false;
}

/** A round that its tournament's close ended before it was played out (the status's
 * `closed`): how many of its cards were called (`called`, of `calls`); `null` for a round
 * played to its end. */
async function closedAfter(round: number, entry: Kept): Promise<{ called: number; calls: number } | null> {
  try {
    const status = await call("get", "/v1/tournaments/{tournament_id}/rounds/{round_number}", {
      params: { tournament_id: tid, round_number: round },
      headers: bearer(entry),
    });
    return status.closed ? { called: status.called ?? 0, calls: status.calls } : null;
  } catch {
    return null;
  }
}

/** What the organizer's close did to a round cut short, in a seat's words. */
const closedWords = (closed: { called: number; calls: number }): string =>
  `The organizer closed the tournament after ${closed.called} of the round's ${closed.calls} cards were called: ` +
  "the rest of your game was placed for you (the first open place each time) and scored.";

/**
 * Moves the server placed for this seat (a refresh found them, not sent from here): each
 * card whose deadline passed ("Time's up: 10♥ was placed for you at b1"), or, after a
 * close in mid-round, the rest of the game.
 */
function tellPlaced(round: number, placed: Array<{ index: number; move: string }>): void {
  if (!seat || seat.round !== round || !session) return;
  if (seat.over && seat.closedAfter !== null) {
    // the call's own line explains it; the message only announces it
    say(`Your game of round ${round} is over: the organizer closed the tournament.`);
    showCall();
    return;
  }
  const board = session.board;
  const words = placed.map(({ index, move }) => {
    const described = board.describe?.(move);
    if (described !== undefined) return `${described.replace(/^Played /, "")} was played for you`;
    const card = seat?.cards.get(index);
    return `${card ? cardLabel(card) : `card ${index + 1}`} was placed for you at ${move}`;
  });
  seat.placedForYou.push(...words.map((text) => text.replace(/ was (placed|played) for you( at)?/, "$2")));
  notice(`Time's up: ${words.join("; ")}.`);
  showCall();
}

/**
 * The open lockstep round's call as it stands: the time left (by the server's clock) and
 * how many seats have placed the card, or, once this seat placed it, how many it waits for.
 */
function showCall(): void {
  if (!seat || !session) return;
  const called = seat.call;
  const status = watch?.round === seat.round ? watch.status : null;
  let timer = "Seated: waiting for the first call.";
  let placed = status?.status === "waiting" ? `${status.seats} seated so far.` : "";
  if (seat.over) {
    const total = session.finished ? session.total : null;
    const scored = total === null ? "" : ` Your final score: ${total}.`;
    timer = seat.closedAfter !== null ? `${closedWords(seat.closedAfter)}${scored}` : `The round is over.${scored}`;
    placed = "";
  } else if (called) {
    const left = Math.max(0, Math.ceil((Date.parse(called.deadline) - Date.now() - clockOffset) / 1000));
    const mine = session.next > called.index;
    const late = left === 0 ? " (it is placed for you at the deadline)" : "";
    // the card's number is in the line above ("Card 3 of 25"): the clock says the time
    timer = mine ? `Placed: the next call comes within ${left} s.` : `${left} s left to place it${late}.`;
    const fresh = status?.status === "playing" && status.call === called.index && watch !== null && watch.asked > seat.changedAt;
    const [done, seats] = fresh ? [status.placed ?? 0, status.seats] : [null, 0];
    if (mine) placed = done === null ? "Waiting for the others." : `Waiting for ${seats - done} of ${seats}.`;
    else placed = done === null ? "" : `${done} of ${seats} placed`;
  }
  $("deadline").textContent = timer;
  $("t-placed").textContent = placed;
  const auto = $("t-auto");
  auto.hidden = seat.placedForYou.length === 0;
  // the latest only, and how many: one line that is replaced, never one that grows
  const all = seat.placedForYou;
  const count = all.length > 1 ? ` (${all.length} cards so far)` : "";
  auto.textContent = `Placed for you when time ran out: ${all[all.length - 1] ?? ""}${count}.`;
  $("t-call").toggleAttribute("data-live", !seat.over);
}

/** A table of rows under a caption and a header row. */
function table(caption: string, head: string[], rows: Array<Array<string | number>>): HTMLTableElement {
  const element = document.createElement("table");
  element.createCaption().textContent = caption;
  const top = element.createTHead().insertRow();
  for (const text of head) {
    const cell = document.createElement("th");
    cell.scope = "col";
    cell.textContent = text;
    top.append(cell);
  }
  const body = element.createTBody();
  for (const row of rows) {
    const line = body.insertRow();
    for (const value of row) line.insertCell().textContent = String(value);
  }
  return element;
}

/** The standings as a table: rank, name, total, games, and each share of par once known. */
function standingsTable(caption: string, standings: Schemas["Standings"]): HTMLTableElement {
  const lines = standings.entrants;
  return lines.some((s) => s.percent_of_par !== undefined && s.percent_of_par !== null)
    ? table(caption, ["rank", "name", "total", "games", "% of par"], lines.map((s) => [s.rank, s.name, s.total, s.games_finished, percent(s.percent_of_par)]))
    : table(caption, ["rank", "name", "total", "games"], lines.map((s) => [s.rank, s.name, s.total, s.games_finished]));
}

/** How often a closed tournament's page asks again while a round's par is being solved (ms). */
const PARS_POLL_MS = 3000;
let parsTimer: number | undefined;

type Exported = Schemas["TournamentExport"];
type RoundPar = Schemas["RoundPar"];

/** A round's par in words: "par 41 (optimal)", "par 38 (at most 40, earlier solver)". */
function parWords(par: RoundPar): string {
  const earlier = par.method === "earlier-solver" ? ", earlier solver" : "";
  return `par ${par.score} (${par.optimal ? "optimal" : `at most ${par.upper_bound}`}${earlier})`;
}

/**
 * After the close: the entrant's own games first (each round's grid, total and share of
 * par), then the standings, the settlement and every grid, round by round. While a
 * round's par is still being solved the page asks again, and shows it once known; a game
 * open here whose receipt waited on the seed is checked with the round's revealed seed.
 */
async function showClosed(tournament: Tournament, headers: Record<string, string>, entry: Kept | null): Promise<void> {
  $("t-rounds").replaceChildren();
  const after = $("t-after");
  after.hidden = false;
  const [standings, settlement, exported] = await Promise.all([
    call("get", "/v1/tournaments/{tournament_id}/standings", { params: { tournament_id: tid }, headers }),
    call("get", "/v1/tournaments/{tournament_id}/settlement", { params: { tournament_id: tid }, headers }),
    call("get", "/v1/tournaments/{tournament_id}/export", { params: { tournament_id: tid }, headers }),
  ]);
  const cuts = new Map<number, string>();
  for (const round of tournament.rounds) cuts.set(round.round, await cutShort(tournament, round.round, headers));
  const drawn = (GRID_VARIANTS as readonly string[]).includes(tournament.variant) || tournament.variant === "reserve-poker";
  const parts: HTMLElement[] = [];
  if (entry !== null) parts.push(await yourGames(tournament, exported, entry.name, cuts, drawn));
  parts.push(standingsTable("Standings", standings));
  const pending = standings.pars_pending ?? 0;
  if (pending > 0) {
    const note = document.createElement("p");
    note.id = "t-pars-pending";
    note.textContent = `Par: ${pending === 1 ? "a round's par is" : `${pending} rounds' pars are`} being computed; this page shows ${pending === 1 ? "it" : "them"} when known.`;
    parts.push(note);
  }
  parts.push(table("Settlement (each entrant's net)", ["name", "net"], Object.entries(settlement.nets).map(([name, net]) => [name, net])));
  if (drawn) parts.push(...(await grids(tournament, exported, cuts)));
  after.replaceChildren(...parts);
  await recheckHere(tournament, exported, entry);
  clearTimeout(parsTimer);
  if (pending > 0) parsTimer = window.setTimeout(() => void rerender(), PARS_POLL_MS);
}

/** The game open here, once its tournament has closed: its receipt checked with the
 * round's revealed seed if it waited on it, and the round's par beside its score. */
async function recheckHere(tournament: Tournament, exported: Exported, entry: Kept | null): Promise<void> {
  if (!session?.finished) return;
  const hash = session.state.server_seed_hash;
  const round = tournament.rounds.find((r) => r.server_seed_hash === hash);
  if (!round?.server_seed) return;
  if (session.pending) await session.check(round.server_seed);
  const par = exported.pars?.find((p) => p.round === round.round);
  const mine = exported.games.find((g) => g.round === round.round && g.player === entry?.name);
  if (par) {
    const share = mine?.percent_of_par === undefined || mine.percent_of_par === null ? "" : `: your ${mine.total} is ${percent(mine.percent_of_par)} of it`;
    $("par").textContent = `Round ${round.round}'s ${parWords(par)}${share}.`;
  }
}

/** The entrant's own games, round by round: total, share of par, how the round ended,
 * and the grid (for the variants drawn on one). */
async function yourGames(
  tournament: Tournament,
  exported: Exported,
  name: string,
  cuts: Map<number, string>,
  drawn: boolean,
): Promise<HTMLElement> {
  const section = document.createElement("section");
  section.id = "t-yours";
  section.setAttribute("aria-labelledby", "t-yours-title");
  const title = document.createElement("h2");
  title.id = "t-yours-title";
  title.textContent = `Your games, ${name}`;
  section.append(title);
  const games = exported.games.filter((g) => g.player === name);
  if (games.length === 0) {
    const none = document.createElement("p");
    none.textContent = "You finished no game in this tournament.";
    section.append(none);
    return section;
  }
  for (const game of games) {
    const par = exported.pars?.find((p) => p.round === game.round);
    const share = game.percent_of_par === undefined || game.percent_of_par === null ? "" : `, ${percent(game.percent_of_par)} of par`;
    const words = `Round ${game.round}${(cuts.get(game.round) ?? "").replace("for each player", "for you")}: ${game.total}${par ? ` (${parWords(par)}${share})` : ""}`;
    const round = tournament.rounds.find((r) => r.round === game.round);
    const grid = drawn && round?.server_seed ? await gridOfGame(tournament, round.server_seed, game.moves) : null;
    const figure = document.createElement(grid ? "figure" : "p");
    figure.className = grid ? "your-grid" : "";
    if (grid) {
      const caption = document.createElement("figcaption");
      caption.textContent = words;
      figure.append(caption, grid);
    } else {
      figure.textContent = words;
    }
    section.append(figure);
  }
  return section;
}

/** A finished game's grid, replayed on its round's deck (`null` if it does not replay). */
async function gridOfGame(tournament: Tournament, serverSeed: string, log: string): Promise<HTMLElement | null> {
  const variant = tournament.variant as GridVariant;
  const deck = await deckCards(DECK_OF[variant] ?? "standard-52", fromHex(serverSeed), tournament.salt);
  const moves = log.split(" ").filter(Boolean);
  const replayed = variant === ("reserve-poker" as string) ? replayReserve(moves, deck) : replayPlaced(variant, moves, deck);
  return "error" in replayed ? null : gridOf(replayed.placed);
}

/** A round of a drawn point system (`ameritish`...): whether every game was scored with
 * the table its revealed seed draws (a server choosing the table late is seen). */
async function drawnTableNote(
  system: PointSystem,
  serverSeed: string,
  salt: string,
  games: ReadonlyArray<{ player: string; receipt: string }>,
): Promise<HTMLElement> {
  const other = await offTable(system, fromHex(serverSeed), salt, games);
  const note = document.createElement("p");
  note.className = other.length ? "not-verified" : "verified";
  note.textContent = other.length
    ? `Not the ${system} table this round's seed draws: the games of ${other.join(", ")}.`
    : `Every game was scored with the ${system} table this round's seed draws (${POINTS_ALGORITHM}).`;
  return note;
}

/** A lockstep round the close cut short, in words (" (cut short by the close: 7 of 25
 * cards called)"); "" for a round played to its end, or an async tournament's. */
async function cutShort(tournament: Tournament, round: number, headers: Record<string, string>): Promise<string> {
  if (tournament.format !== "lockstep") return "";
  try {
    const status = await call("get", "/v1/tournaments/{tournament_id}/rounds/{round_number}", {
      params: { tournament_id: tid, round_number: round },
      headers,
    });
    const called = status.called;
    if (typeof called !== "number" || called >= status.calls) return "";
    return called === 0
      ? " (never played: the tournament closed before it started)"
      : ` (cut short by the close: ${called} of ${status.calls} cards called, the rest placed for each player)`;
  } catch {
    return "";
  }
}

async function grids(tournament: Tournament, exported: Exported, cuts: Map<number, string>): Promise<HTMLElement[]> {
  const system = (tournament.options as { scoring?: unknown } | null)?.scoring;
  const sections: HTMLElement[] = [];
  for (const round of tournament.rounds) {
    if (!round.server_seed) continue;
    const section = document.createElement("section");
    const title = document.createElement("h3");
    const par = exported.pars?.find((p) => p.round === round.round);
    title.textContent = `Round ${round.round}${cuts.get(round.round) ?? ""}${par ? `: ${parWords(par)}` : ""}`;
    section.append(title);
    const games = exported.games.filter((g) => g.round === round.round);
    if (isPointSystem(system)) section.append(await drawnTableNote(system, round.server_seed, tournament.salt, games));
    for (const game of games) {
      const grid = await gridOfGame(tournament, round.server_seed, game.moves);
      if (grid === null) continue;
      const figure = document.createElement("figure");
      figure.className = "final-grid";
      const caption = document.createElement("figcaption");
      const share = game.percent_of_par === undefined || game.percent_of_par === null ? "" : ` (${percent(game.percent_of_par)} of par)`;
      caption.textContent = `${game.player}: ${game.total}${share}`;
      figure.append(caption, grid);
      section.append(figure);
    }
    sections.push(section);
  }
  return sections;
}

/** A percentage of par as the standings page shows it (one decimal), or a dash. */
function percent(value: number | null | undefined): string {
  return value === undefined || value === null ? "–" : `${value.toFixed(1)}%`;
}

function gridOf(placed: Map<string, string>): HTMLElement {
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
      cell.className = card ? `card ${colourClass(card, fourColours())}` : "card";
      cell.textContent = card ? cardLabel(card) : "";
      if (card) cards.push(card);
      grid.append(cell);
    }
  }
  grid.setAttribute("aria-label", `grid, row by row: ${cards.join(" ")}`);
  return grid;
}

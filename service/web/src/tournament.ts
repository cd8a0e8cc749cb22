/**
 * `/play?tournament=ID`: an entrant's page. Enter with a name (and an invite code where
 * one is needed); the token is kept in this browser's storage. Then each round is opened
 * and played here, checked against the seed hash the tournament committed to at
 * creation. A lockstep round is played live: the page follows the round's calls (server-
 * sent events, read with fetch so the token goes along), shows each called card and the
 * time left, and leaves the card to the server once the deadline passes. After the close
 * it shows the standings, the settlement, and every grid, round by round.
 */

import type { Board } from "./board";
import { call, newKey, type Schemas } from "./client";
import { drawGame, fourColours } from "./draw";
import { GRID_VARIANTS, type GridVariant, key, replayPlaced, replayReserve } from "./grid";
import type { PointTable } from "./hands";
import { KINDS } from "./kinds";
import { isPointSystem, type PointSystem, POINTS_ALGORITHM } from "./points";
import { cardLabel, colourClass } from "./cards";
import { $, Session, describe, say } from "./session";
import { DECK_OF, offTable } from "./receipt";
import { deckCards, fromHex } from "./shuffle";

type Variant = Schemas["VariantInfo"];
type Tournament = Schemas["Tournament"];
type Entry = Schemas["Entry"];

interface Kept {
  token: string;
  name: string;
  /** Each round's committed seed hash, as the entry answered (what the deals must match). */
  hashes: Record<string, string>;
  salt: string;
  /** Per round: the idempotency key of opening it (a reload resumes the same game). */
  keys: Record<string, string>;
}

const storageKey = (id: string): string => `cardproof:entry:${id}`;

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

let session: Session | null = null;
let board: Board | null = null;
let following: AbortController | null = null;
let ticking: number | undefined;

function draw(): void {
  drawGame(board, session?.view ?? null, session?.next ?? 0, session?.playing ?? false);
}

export async function startTournament(id: string, variants: Variant[]): Promise<void> {
  $("setup").hidden = true;
  $("tournament").hidden = false;
  $("four-colours-tournament").addEventListener("change", () => {
    $<HTMLInputElement>("four-colours").checked = $<HTMLInputElement>("four-colours-tournament").checked;
    draw();
  });
  $("t-enter-button").addEventListener("click", () => void enter(id, variants));
  await show(id, variants);
  document.body.dataset["ready"] = "1";
}

function bearer(entry: Kept | null): Record<string, string> {
  return entry ? { Authorization: `Bearer ${entry.token}` } : {};
}

/** The tournament as this visitor may read it, its rounds, and what can be done now. */
async function show(id: string, variants: Variant[]): Promise<void> {
  const entry = kept(id);
  let tournament: Tournament;
  try {
    tournament = await call("get", "/v1/tournaments/{tournament_id}", {
      params: { tournament_id: id },
      headers: bearer(entry),
    });
  } catch (error) {
    $("t-name").textContent = "A tournament";
    $("t-status").textContent = entry ? describe(error) : "Enter with your invite code to see this tournament.";
    showEntry(entry, "invite");
    return;
  }
  $("t-name").textContent = tournament.name;
  const format = tournament.format === "lockstep" ? `lockstep, ${tournament.card_seconds} s a card` : "each at their own pace";
  $("t-status").textContent = `${tournament.variant}, ${tournament.rounds.length} round${tournament.rounds.length === 1 ? "" : "s"}, ${format}; ${tournament.status}, closes ${tournament.closes_at}.`;
  showEntry(entry, tournament.entry, tournament);
  if (tournament.status === "closed") {
    await showClosed(id, tournament, entry);
    return;
  }
  const rounds = $("t-rounds");
  rounds.replaceChildren();
  if (!entry) return;
  for (const round of tournament.rounds) {
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = `Play round ${round.round}`;
    button.addEventListener("click", () => void openRound(id, tournament, round.round, variants));
    const item = document.createElement("li");
    item.append(button);
    rounds.append(item);
  }
}

/** The entry form while entries are open; who this browser entered as, or why it cannot. */
function showEntry(entry: Kept | null, kind: string, tournament: Tournament | null = null): void {
  const closedAt = tournament?.entries_closed_at ?? null;
  $("t-enter").hidden = entry !== null || closedAt !== null;
  $("t-invite-field").hidden = kind !== "invite";
  let text = "";
  if (entry) text = `Entered as ${entry.name}.`;
  else if (closedAt !== null) {
    text = `Entries closed at ${closedAt}, when round 1 started: every entrant is seated before the first call.`;
  } else if (tournament?.format === "lockstep" && tournament.status !== "closed") {
    text = "Entries close when round 1 starts.";
  }
  $("t-entered").textContent = text;
}

async function enter(id: string, variants: Variant[]): Promise<void> {
  const name = $<HTMLInputElement>("t-entrant-name").value.trim();
  const code = $<HTMLInputElement>("t-invite-code").value.trim();
  try {
    const answer: Entry = await call("post", "/v1/tournaments/{tournament_id}/entries", {
      params: { tournament_id: id },
      body: code ? { name, invite_code: code } : { name },
      headers: { "Idempotency-Key": newKey() },
    });
    const hashes: Record<string, string> = {};
    for (const round of answer.rounds ?? []) hashes[String(round.round)] = round.server_seed_hash;
    keep(id, { token: answer.token, name: answer.name, hashes, salt: answer.salt ?? "", keys: {} });
    say(`Entered as ${answer.name}. Your token is kept in this browser.`);
    await show(id, variants);
  } catch (error) {
    say(describe(error));
  }
}

async function openRound(id: string, tournament: Tournament, round: number, variants: Variant[]): Promise<void> {
  const entry = kept(id);
  const info = variants.find((v) => v.id === tournament.variant);
  const kind = KINDS[tournament.variant];
  if (!entry || !info || !kind) return;
  entry.keys[String(round)] ??= newKey();
  keep(id, entry);
  following?.abort();
  $("result").hidden = true;
  let state: Schemas["DealState"];
  try {
    state = await call("post", "/v1/tournaments/{tournament_id}/rounds/{round_number}/deal", {
      params: { tournament_id: id, round_number: round },
      body: {},
      headers: { ...bearer(entry), "Idempotency-Key": entry.keys[String(round)] as string },
    });
  } catch (error) {
    const first = (error as { problem?: Record<string, unknown> }).problem?.["deal_id"];
    if (typeof first !== "string") {
      say(describe(error));
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
  session = new Session(state, board, promise, tables, entry.token, draw);
  say(`Round ${round}: ${state.deal_id}.`);
  draw();
  if (tournament.format === "lockstep" && !state.finished) void follow(id, round, entry, session);
}

/**
 * Follow a lockstep round's calls until its end, refreshing the game at each call. A
 * stream that drops (the server ends each after an hour, a proxy or a replica may cut
 * it) is opened again from the last call seen, a second later.
 */
async function follow(id: string, round: number, entry: Kept, game: Session): Promise<void> {
  following = new AbortController();
  const signal = following.signal;
  let after = game.next - 1;
  while (!signal.aborted) {
    const ended = await followOnce(id, round, entry, game, after, signal, (index) => (after = Math.max(after, index)));
    if (ended || signal.aborted) return;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

/** One calls stream: ``true`` once the round's ``end`` event came, ``false`` if it dropped. */
async function followOnce(
  id: string,
  round: number,
  entry: Kept,
  game: Session,
  after: number,
  signal: AbortSignal,
  seen: (index: number) => void,
): Promise<boolean> {
  const url = `/v1/tournaments/${encodeURIComponent(id)}/rounds/${round}/calls?after=${after}`;
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
    $("deadline").textContent = game.next === 0 && game.board.next(game.view) === null ? "Seated: waiting for the first call." : "";
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
          const called = JSON.parse(fields["data"]) as Schemas["Call"];
          seen(called.index);
          countdown(called);
          if (called.index >= game.next) await game.refresh();
        } else if (fields["event"] === "end") {
          clearInterval(ticking);
          $("deadline").textContent = "The round is over.";
          await game.refresh();
          return true;
        }
      }
    }
  } catch (error) {
    if (!signal.aborted) say(`The calls: ${describe(error)}; following them again…`);
  }
  return false;
}

function countdown(called: Schemas["Call"]): void {
  clearInterval(ticking);
  const deadline = Date.parse(called.deadline);
  const tick = (): void => {
    const left = Math.max(0, Math.ceil((deadline - Date.now()) / 1000));
    $("deadline").textContent = `Card ${called.index + 1} called: ${left} s left to place it${left === 0 ? " (it is placed for you at the deadline)" : ""}.`;
  };
  tick();
  ticking = window.setInterval(tick, 500);
}

/** After the close: the standings, the settlement and every grid, round by round. */
async function showClosed(id: string, tournament: Tournament, entry: Kept | null): Promise<void> {
  $("t-rounds").replaceChildren();
  const after = $("t-after");
  after.hidden = false;
  const headers = bearer(entry);
  const [standings, settlement] = await Promise.all([
    call("get", "/v1/tournaments/{tournament_id}/standings", { params: { tournament_id: id }, headers }),
    call("get", "/v1/tournaments/{tournament_id}/settlement", { params: { tournament_id: id }, headers }),
  ]);
  const table = (caption: string, head: string[], rows: Array<Array<string | number>>): HTMLTableElement => {
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
  };
  const parts: HTMLElement[] = [
    standings.entrants.some((s) => s.percent_of_par !== undefined && s.percent_of_par !== null)
      ? table(
          "Standings",
          ["rank", "name", "total", "games", "% of par"],
          standings.entrants.map((s) => [s.rank, s.name, s.total, s.games_finished, percent(s.percent_of_par)]),
        )
      : table("Standings", ["rank", "name", "total", "games"], standings.entrants.map((s) => [s.rank, s.name, s.total, s.games_finished])),
    table("Settlement (each entrant's net)", ["name", "net"], Object.entries(settlement.nets).map(([name, net]) => [name, net])),
  ];
  if ((GRID_VARIANTS as readonly string[]).includes(tournament.variant) || tournament.variant === "reserve-poker") {
    parts.push(...(await grids(id, tournament, headers)));
  }
  after.replaceChildren(...parts);
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

async function grids(id: string, tournament: Tournament, headers: Record<string, string>): Promise<HTMLElement[]> {
  const exported = await call("get", "/v1/tournaments/{tournament_id}/export", { params: { tournament_id: id }, headers });
  const system = (tournament.options as { scoring?: unknown } | null)?.scoring;
  const variant = tournament.variant as GridVariant;
  const sections: HTMLElement[] = [];
  for (const round of tournament.rounds) {
    if (!round.server_seed) continue;
    const deck = await deckCards(DECK_OF[variant] ?? "standard-52", fromHex(round.server_seed), tournament.salt);
    const section = document.createElement("section");
    const title = document.createElement("h3");
    const par = exported.pars?.find((p) => p.round === round.round);
    const proof = par ? (par.optimal ? "optimal" : `at most ${par.upper_bound}`) : "";
    title.textContent = par ? `Round ${round.round}: par ${par.score} (${proof})` : `Round ${round.round}`;
    section.append(title);
    const games = exported.games.filter((g) => g.round === round.round);
    if (isPointSystem(system)) section.append(await drawnTableNote(system, round.server_seed, tournament.salt, games));
    for (const game of games) {
      const moves = game.moves.split(" ").filter(Boolean);
      const replayed = variant === ("reserve-poker" as string) ? replayReserve(moves, deck) : replayPlaced(variant, moves, deck);
      if ("error" in replayed) continue;
      const figure = document.createElement("figure");
      figure.className = "final-grid";
      const caption = document.createElement("figcaption");
      const share = game.percent_of_par === undefined || game.percent_of_par === null ? "" : ` (${percent(game.percent_of_par)} of par)`;
      caption.textContent = `${game.player}: ${game.total}${share}`;
      figure.append(caption, gridOf(replayed.placed));
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

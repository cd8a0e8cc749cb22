/**
 * `/play`: a committed game against the service's public API. The page asks for a
 * commitment first and shows its hash, then deals with the client seed in the field,
 * checks the deal is the one it was promised, and, in a hidden variant, shows each card
 * only once the server has turned it up: nothing of the deck is in the DOM or in this
 * script before that. At the end it fetches the receipt and verifies it itself.
 */

import { cardLabel, colourClass } from "./cards";
import { ApiError, call, newKey, type Schemas } from "./client";
import {
  type Coord,
  GRID_VARIANTS,
  type GridVariant,
  completeLines,
  deadEnd,
  key,
  moveText,
  placedCards,
  playableCells,
  window,
} from "./grid";
import type { PointTable } from "./hands";
import { verifyReceipt } from "./receipt";
import { toHex } from "./shuffle";

type GridView = Schemas["GridView"];
type Variant = Schemas["VariantInfo"];

/** The variants this page plays (the others come with their own controls). */
const PLAYABLE: readonly string[] = GRID_VARIANTS;
const TOTAL = 25;

const $ = <T extends HTMLElement>(id: string): T => {
  const element = document.getElementById(id);
  if (!element) throw new Error(`the page has no #${id}`);
  return element as T;
};

interface Game {
  variant: GridVariant;
  dealId: string;
  serverSeedHash: string;
  clientSeed: string;
  options: { scoring: string | PointTable; diagonals: boolean };
  view: GridView;
  next: number;
  /** The cards dealt so far, in order: what the receipt's deck must begin with. */
  dealt: string[];
  /** The cell of the card placed last (serpent's path goes on from it). */
  last: Coord | null;
  /** A serpent cell the player was warned about: a second click places it. */
  warned: string | null;
  finished: boolean;
  busy: boolean;
}

let variants: Variant[] = [];
let tables: Record<string, PointTable> = {};
let game: Game | null = null;
let focus: Coord = [0, 0];

function say(message: string): void {
  $("message").textContent = message;
}

function fourColours(): boolean {
  return $<HTMLInputElement>("four-colours").checked;
}

function showCard(element: HTMLElement, card: string | null): void {
  element.className = "card";
  element.textContent = "";
  if (card === null) return;
  element.classList.add(colourClass(card, fourColours()));
  element.textContent = cardLabel(card);
}

function selectedVariant(): GridVariant {
  return $<HTMLSelectElement>("variant").value as GridVariant;
}

function drawGrid(): void {
  const grid = $("grid");
  grid.replaceChildren();
  const variant = game?.variant ?? selectedVariant();
  const placed = game ? placedCards(game.view) : new Map<string, string>();
  const open = game && !game.finished ? playableCells(variant, placed, game.last) : new Set<string>();
  const { rows, cols } = window(variant, placed);
  grid.style.gridTemplateColumns = `repeat(${cols.length}, var(--cell))`;
  grid.classList.toggle("floating", variant === "poker-patience");
  if (!rows.includes(focus[0]) || !cols.includes(focus[1])) focus = [rows[0] ?? 0, cols[0] ?? 0];
  for (const row of rows) {
    for (const col of cols) {
      const cell: Coord = [row, col];
      const name = moveText(variant, cell);
      const card = placed.get(key(cell)) ?? null;
      const button = document.createElement("button");
      button.type = "button";
      button.className = "cell";
      button.dataset["cell"] = key(cell);
      button.setAttribute("aria-label", name);
      button.tabIndex = row === focus[0] && col === focus[1] ? 0 : -1;
      const face = document.createElement("span");
      showCard(face, card);
      const label = document.createElement("span");
      label.className = "cell-name";
      label.textContent = name;
      button.append(label, face);
      // aria-disabled, not disabled: a filled cell keeps the focus, so arrows go on working
      button.setAttribute("aria-disabled", open.has(key(cell)) ? "false" : "true");
      if (card !== null) button.classList.add("filled");
      if (game?.warned === key(cell)) button.classList.add("warned");
      button.addEventListener("click", () => void place(cell));
      grid.append(button);
    }
  }
}

function drawCards(): void {
  const next = $("next-card");
  const playing = game !== null && !game.finished;
  showCard(next, playing ? game!.view.next : null);
  $("next-label").textContent = playing ? `Card ${game!.next + 1} of ${TOTAL}` : "";
  const later = $("later");
  later.replaceChildren();
  for (const card of playing ? (game!.view.later ?? []) : []) {
    const item = document.createElement("li");
    showCard(item, card);
    later.append(item);
  }
  $("later-label").hidden = later.childElementCount === 0;
}

function drawScore(): void {
  const list = $("lines");
  list.replaceChildren();
  $("running").textContent = "";
  if (!game) return;
  const scoring = game.options.scoring;
  const table = typeof scoring === "string" ? tables[scoring] : scoring;
  if (!table) return;
  const lines = completeLines(game.variant, placedCards(game.view), table, game.options.diagonals);
  for (const line of lines) {
    const item = document.createElement("li");
    item.textContent = `${line.line}: ${line.category}, ${line.points} point${line.points === 1 ? "" : "s"}`;
    list.append(item);
  }
  const total = lines.reduce((n, line) => n + line.points, 0);
  const count = lines.length;
  $("running").textContent = `Score of complete lines: ${total} (${count} line${count === 1 ? "" : "s"} complete)`;
}

function draw(): void {
  drawGrid();
  drawCards();
  drawScore();
}

function randomSeed(): string {
  return toHex(crypto.getRandomValues(new Uint8Array(16)));
}

function describe(error: unknown): string {
  if (error instanceof ApiError) return `${error.message}${error.code ? ` (${error.code})` : ""}`;
  return error instanceof Error ? error.message : String(error);
}

/** The options form for the variant chosen: its point tables, diagonals where it has them. */
function showOptions(): void {
  const info = variants.find((v) => v.id === selectedVariant());
  const scoring = $<HTMLSelectElement>("scoring");
  scoring.replaceChildren();
  const own = Object.keys((info?.tables ?? {}) as Record<string, PointTable>);
  for (const name of own) scoring.append(new Option(name, name));
  const fallback = selectedVariant() === "poker-squares" ? "american" : "british";
  scoring.value = own.includes(fallback) ? fallback : (own[0] ?? "");
  $("diagonals-option").hidden = selectedVariant() !== "poker-squares";
  draw();
}

async function deal(): Promise<void> {
  const variant = selectedVariant();
  const clientSeed = $<HTMLInputElement>("client-seed").value;
  const scoring = $<HTMLSelectElement>("scoring").value;
  const diagonals = variant === "poker-squares" && $<HTMLInputElement>("diagonals").checked;
  $("deal").setAttribute("disabled", "");
  $("result").hidden = true;
  $("verification").textContent = "";
  $("par").textContent = "";
  game = null;
  draw();
  try {
    const commitment = await call("post", "/v1/commitments", { body: {} });
    $("commitment").textContent = commitment.server_seed_hash;
    const options = variant === "poker-squares" ? { scoring, diagonals } : { scoring };
    const state = await call("post", "/v1/deals", {
      body: {
        variant,
        options: options as Schemas["DealRequest"]["options"],
        commitment_id: commitment.commitment_id,
        client_seed: clientSeed,
      },
      headers: { "Idempotency-Key": newKey() },
    });
    const broken = [
      state.server_seed_hash !== commitment.server_seed_hash && "its hash is not the one committed",
      state.client_seed !== clientSeed && "its client seed is not the one sent",
      !state.committed_before_client_seed && "it was not committed before the client seed",
    ].filter(Boolean);
    if (broken.length) throw new Error(`the server dealt another game than it promised: ${broken.join("; ")}`);
    const view = state.view as GridView;
    game = {
      variant,
      dealId: state.deal_id,
      serverSeedHash: commitment.server_seed_hash,
      clientSeed,
      options: { scoring, diagonals },
      view,
      next: state.next_index,
      dealt: view.next ? [view.next, ...(view.later ?? [])] : [],
      last: null,
      warned: null,
      finished: state.finished,
      busy: false,
    };
    focus = variant === "poker-patience" ? [0, 0] : [0, 0];
    say(`Dealt ${state.deal_id}. ${instructions(variant)}`);
    draw();
    focusCell();
  } catch (error) {
    say(describe(error));
  } finally {
    $("deal").removeAttribute("disabled");
  }
}

function instructions(variant: GridVariant): string {
  if (variant === "poker-patience") {
    return "The first card goes in the middle; each later one next to a card laid, inside a 5x5 square.";
  }
  if (variant === "serpent-patience") {
    return "All 25 cards are shown; each goes next to the one before (up, down, left or right).";
  }
  return "Place each card in an empty cell.";
}

async function place(cell: Coord): Promise<void> {
  if (!game || game.finished || game.busy) return;
  const current = game;
  const name = moveText(current.variant, cell);
  const placed = placedCards(current.view);
  if (!playableCells(current.variant, placed, current.last).has(key(cell))) {
    say(placed.has(key(cell)) ? `${name} is taken: choose an empty cell.` : `${name} is not open for this card.`);
    return;
  }
  if (current.variant === "serpent-patience" && current.warned !== key(cell)) {
    if (deadEnd(placed, cell, TOTAL - current.next - 1)) {
      current.warned = key(cell);
      say(`Careful: a card on ${name} leaves no way on, and the game would end unscored. Choose ${name} again to place it anyway.`);
      drawGrid();
      focusCell();
      return;
    }
  }
  current.busy = true;
  current.warned = null;
  try {
    const answer = await call("post", "/v1/deals/{deal_id}/moves", {
      params: { deal_id: current.dealId },
      body: { index: current.next, move: name },
    });
    current.view = answer.view as GridView;
    current.next = answer.index + 1;
    current.finished = answer.finished;
    current.last = cell;
    if (current.view.next && current.dealt.length <= answer.index + 1) current.dealt.push(current.view.next);
    focus = cell;
    draw();
    say(answer.finished ? "The game is over." : `Placed on ${name}.`);
    if (answer.finished) await finish(current, answer.score ?? null);
    else focusCell();
  } catch (error) {
    say(describe(error));
  } finally {
    current.busy = false;
  }
}

async function finish(done: Game, score: Schemas["Score"] | null): Promise<void> {
  $("result").hidden = false;
  $("final-score").textContent = score ? `Final score: ${score.total}` : "Final score: none (a dead end scores nothing)";
  const status = $("verification");
  if (done.variant === "serpent-patience") void showPar(done);
  if (!score) {
    status.textContent = "Not verified: an unscored game has no receipt.";
    status.className = "not-verified";
    return;
  }
  status.textContent = "Verifying…";
  try {
    const receipt = await call("get", "/v1/deals/{deal_id}/receipt", { params: { deal_id: done.dealId } });
    const text = $<HTMLTextAreaElement>("receipt");
    text.value = receipt.receipt;
    const download = $<HTMLAnchorElement>("download");
    download.href = URL.createObjectURL(new Blob([receipt.receipt], { type: "application/jose" }));
    download.download = `receipt-${done.dealId}.jws`;
    const keys = await call("get", "/.well-known/jwks.json");
    const verdict = await verifyReceipt(receipt.receipt, keys, {
      serverSeedHash: done.serverSeedHash,
      clientSeed: done.clientSeed,
      dealt: done.dealt,
      tables,
    });
    status.textContent = verdict.ok
      ? `Verified: ${verdict.checked.join("; ")}.`
      : `Not verified: ${verdict.reasons.join("; ")}.`;
    status.className = verdict.ok ? "verified" : "not-verified";
  } catch (error) {
    status.textContent = `Not verified: ${describe(error)}.`;
    status.className = "not-verified";
  }
}

/** Serpent's par: the exact best score of the deal (the service's solver). */
async function showPar(done: Game): Promise<void> {
  try {
    const solved = (await call("post", "/v1/solve", {
      body: { variant: "serpent-patience", cards: done.dealt, options: { scoring: done.options.scoring } as Schemas["SolveRequest"]["options"] },
    })) as Schemas["SerpentSolution"];
    $("par").textContent = `Par for this deal: ${solved.score.total}${solved.optimal ? " (the best possible)" : ""}.`;
  } catch (error) {
    $("par").textContent = `Par unavailable: ${describe(error)}.`;
  }
}

function focusCell(): void {
  const button = document.querySelector<HTMLButtonElement>(`#grid button[data-cell='${key(focus)}']`);
  document.querySelectorAll<HTMLButtonElement>("#grid button").forEach((b) => (b.tabIndex = -1));
  if (button) {
    button.tabIndex = 0;
    button.focus();
  }
}

function onGridKey(event: KeyboardEvent): void {
  const steps: Record<string, Coord> = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
  const step = steps[event.key];
  if (!step) return;
  event.preventDefault();
  const variant = game?.variant ?? selectedVariant();
  const { rows, cols } = window(variant, game ? placedCards(game.view) : new Map());
  const clamp = (value: number, list: number[]): number =>
    Math.min(list[list.length - 1] as number, Math.max(list[0] as number, value));
  focus = [clamp(focus[0] + step[0], rows), clamp(focus[1] + step[1], cols)];
  focusCell();
}

async function start(): Promise<void> {
  const params = new URLSearchParams(location.search);
  variants = ((await call("get", "/v1/variants")) as Variant[]).filter((v) => PLAYABLE.includes(v.id));
  const select = $<HTMLSelectElement>("variant");
  for (const info of variants) {
    select.append(new Option(info.title, info.id));
    tables = { ...tables, ...(info.tables as Record<string, PointTable>) };
  }
  const asked = params.get("variant");
  if (asked && PLAYABLE.includes(asked)) select.value = asked;
  else if (asked) say(`This page does not play ${asked} yet; it plays ${PLAYABLE.join(", ")}.`);
  $<HTMLInputElement>("client-seed").value = randomSeed();
  select.addEventListener("change", () => {
    game = null;
    showOptions();
  });
  $("deal").addEventListener("click", () => void deal());
  $("grid").addEventListener("keydown", onGridKey);
  $("grid").addEventListener("focusin", (event) => {
    const cell = (event.target as HTMLElement).dataset["cell"];
    if (cell !== undefined) focus = cell.split(",").map(Number) as unknown as Coord;
  });
  $("four-colours").addEventListener("change", draw);
  $("copy").addEventListener("click", () => {
    void navigator.clipboard?.writeText($<HTMLTextAreaElement>("receipt").value);
    say("The receipt was copied.");
  });
  showOptions();
}


void start().catch((error: unknown) => say(describe(error)));

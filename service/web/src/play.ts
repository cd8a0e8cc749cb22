/**
 * `/play`: a committed, blind game against the service's public API. The page asks for a
 * commitment first and shows its hash, then deals with the client seed in the field,
 * checks the deal is the one it was promised, and shows each card only once the server
 * has turned it up: nothing of the deck is in the DOM or in this script before that. At
 * the end it fetches the receipt and verifies it itself (./receipt.ts).
 */

import { cardLabel, colourClass } from "./cards";
import { ApiError, call, newKey, type Schemas } from "./client";
import { runningScore, type PointTable } from "./hands";
import { verifyReceipt } from "./receipt";
import { toHex } from "./shuffle";

type GridView = Schemas["GridView"];
type Variant = Schemas["VariantInfo"];

/** The variants this page plays (the others come with their own controls). */
const PLAYABLE = ["poker-squares"] as const;
const COLUMNS = "abcde";

const $ = <T extends HTMLElement>(id: string): T => {
  const element = document.getElementById(id);
  if (!element) throw new Error(`the page has no #${id}`);
  return element as T;
};

interface Game {
  dealId: string;
  serverSeedHash: string;
  clientSeed: string;
  options: { scoring: string | PointTable; diagonals: boolean };
  view: GridView;
  next: number;
  /** The cards dealt so far, in order: what the receipt's deck must begin with. */
  dealt: string[];
  finished: boolean;
  busy: boolean;
}

let tables: Record<string, PointTable> = {};
let game: Game | null = null;
let focus: [number, number] = [0, 0];

function say(message: string): void {
  $("message").textContent = message;
}

function cellName(row: number, col: number): string {
  return `${COLUMNS[col]}${row + 1}`;
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

function drawGrid(): void {
  const grid = $("grid");
  grid.replaceChildren();
  for (let row = 0; row < 5; row++) {
    for (let col = 0; col < 5; col++) {
      const button = document.createElement("button");
      const name = cellName(row, col);
      button.type = "button";
      button.className = "cell";
      button.dataset["row"] = String(row);
      button.dataset["col"] = String(col);
      button.setAttribute("aria-label", name);
      button.tabIndex = row === focus[0] && col === focus[1] ? 0 : -1;
      const card = game?.view.layout[row]?.[col] ?? null;
      const face = document.createElement("span");
      showCard(face, card);
      const label = document.createElement("span");
      label.className = "cell-name";
      label.textContent = name;
      button.append(label, face);
      // aria-disabled, not disabled: a filled cell keeps the focus, so arrows go on working
      const open = game !== null && !game.finished && card === null;
      button.setAttribute("aria-disabled", open ? "false" : "true");
      if (card !== null) button.classList.add("filled");
      button.addEventListener("click", () => void place(row, col));
      grid.append(button);
    }
  }
}

function drawNext(): void {
  const next = $("next-card");
  showCard(next, game && !game.finished ? game.view.next : null);
  $("next-label").textContent = game && !game.finished ? `Card ${game.next + 1} of 25` : "";
}

function drawScore(): void {
  const list = $("lines");
  list.replaceChildren();
  if (!game) return;
  const scoring = game.options.scoring;
  const table = typeof scoring === "string" ? tables[scoring] : scoring;
  if (!table) return;
  const lines = runningScore(game.view.layout, table, game.options.diagonals);
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
  drawNext();
  drawScore();
}

function randomSeed(): string {
  return toHex(crypto.getRandomValues(new Uint8Array(16)));
}

async function deal(): Promise<void> {
  const variant = $<HTMLSelectElement>("variant").value;
  const clientSeed = $<HTMLInputElement>("client-seed").value;
  const scoring = $<HTMLSelectElement>("scoring").value;
  const diagonals = $<HTMLInputElement>("diagonals").checked;
  $("deal").setAttribute("disabled", "");
  $("result").hidden = true;
  $("verification").textContent = "";
  game = null;
  draw();
  try {
    const commitment = await call("post", "/v1/commitments", { body: {} });
    $("commitment").textContent = commitment.server_seed_hash;
    const state = await call("post", "/v1/deals", {
      body: {
        variant: variant as Schemas["DealRequest"]["variant"],
        options: { scoring: scoring as "american", diagonals },
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
      dealId: state.deal_id,
      serverSeedHash: commitment.server_seed_hash,
      clientSeed,
      options: { scoring, diagonals },
      view,
      next: state.next_index,
      dealt: view.next ? [view.next] : [],
      finished: state.finished,
      busy: false,
    };
    focus = [0, 0];
    say(`Dealt ${state.deal_id}. Place each card in an empty cell.`);
    draw();
    (document.querySelector("#grid button[tabindex='0']") as HTMLButtonElement | null)?.focus();
  } catch (error) {
    say(describe(error));
  } finally {
    $("deal").removeAttribute("disabled");
  }
}

function describe(error: unknown): string {
  if (error instanceof ApiError) return `${error.message}${error.code ? ` (${error.code})` : ""}`;
  return error instanceof Error ? error.message : String(error);
}

async function place(row: number, col: number): Promise<void> {
  if (!game || game.finished || game.busy) return;
  if (game.view.layout[row]?.[col] !== null) {
    say(`${cellName(row, col)} is taken: choose an empty cell.`);
    return;
  }
  const current = game;
  current.busy = true;
  const move = cellName(row, col);
  try {
    const answer = await call("post", "/v1/deals/{deal_id}/moves", {
      params: { deal_id: current.dealId },
      body: { index: current.next, move },
    });
    current.view = answer.view as GridView;
    current.next = answer.index + 1;
    current.finished = answer.finished;
    if (current.view.next) current.dealt.push(current.view.next);
    focus = [row, col];
    draw();
    say(answer.finished ? "The game is over." : `Placed on ${move}.`);
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
  $("final-score").textContent = score ? `Final score: ${score.total}` : "Final score: none";
  const status = $("verification");
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

function focusCell(): void {
  const [row, col] = focus;
  const button = document.querySelector<HTMLButtonElement>(`#grid button[data-row='${row}'][data-col='${col}']`);
  document.querySelectorAll<HTMLButtonElement>("#grid button").forEach((b) => (b.tabIndex = -1));
  if (button) {
    button.tabIndex = 0;
    button.focus();
  }
}

function onGridKey(event: KeyboardEvent): void {
  const moves: Record<string, [number, number]> = {
    ArrowUp: [-1, 0],
    ArrowDown: [1, 0],
    ArrowLeft: [0, -1],
    ArrowRight: [0, 1],
  };
  const step = moves[event.key];
  if (!step) return;
  event.preventDefault();
  focus = [Math.min(4, Math.max(0, focus[0] + step[0])), Math.min(4, Math.max(0, focus[1] + step[1]))];
  focusCell();
}

async function start(): Promise<void> {
  const params = new URLSearchParams(location.search);
  const variants = (await call("get", "/v1/variants")) as Variant[];
  const select = $<HTMLSelectElement>("variant");
  for (const info of variants.filter((v) => (PLAYABLE as readonly string[]).includes(v.id))) {
    select.append(new Option(info.title, info.id));
    tables = { ...tables, ...(info.tables as Record<string, PointTable>) };
  }
  const asked = params.get("variant");
  if (asked && (PLAYABLE as readonly string[]).includes(asked)) select.value = asked;
  else if (asked) say(`This page does not play ${asked} yet; it plays ${PLAYABLE.join(", ")}.`);
  const scoring = $<HTMLSelectElement>("scoring");
  for (const name of Object.keys(tables)) scoring.append(new Option(name, name));
  $<HTMLInputElement>("client-seed").value = randomSeed();
  $("deal").addEventListener("click", () => void deal());
  $("grid").addEventListener("keydown", onGridKey);
  $("grid").addEventListener("focusin", (event) => {
    const target = event.target as HTMLElement;
    if (target.dataset["row"] !== undefined) focus = [Number(target.dataset["row"]), Number(target.dataset["col"])];
  });
  $("four-colours").addEventListener("change", draw);
  $("copy").addEventListener("click", () => {
    void navigator.clipboard?.writeText($<HTMLTextAreaElement>("receipt").value);
    say("The receipt was copied.");
  });
  draw();
}

void start().catch((error: unknown) => say(describe(error)));

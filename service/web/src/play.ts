/**
 * `/play`: a committed game against the service's public API. The page asks for a
 * commitment first and shows its hash, then deals with the client seed in the field,
 * checks the deal is the one it was promised, and, in a hidden variant, shows each card
 * only once the server has turned it up: nothing of the deck is in the DOM or in this
 * script before that. At the end it fetches the receipt and verifies it itself, checking
 * every card it was shown against the deck the revealed seeds derive.
 *
 * The variant's board (./boards) draws the game and turns choices into moves.
 */

import type { Board, BoardContext, Seen, View } from "./board";
import type { GridVariant } from "./grid";
import { ColumnsBoard } from "./boards/columns-board";
import { GridBoard } from "./boards/grid-board";
import { ReserveBoard } from "./boards/reserve-board";
import { RowsBoard } from "./boards/rows-board";
import { cardLabel, colourClass } from "./cards";
import { ApiError, call, newKey, type Schemas } from "./client";
import type { PointTable } from "./hands";
import { verifyReceipt } from "./receipt";
import { toHex } from "./shuffle";

type Variant = Schemas["VariantInfo"];

const $ = <T extends HTMLElement>(id: string): T => {
  const element = document.getElementById(id);
  if (!element) throw new Error(`the page has no #${id}`);
  return element as T;
};

interface Kind {
  /** A fresh board for one game. */
  board(area: HTMLElement, context: BoardContext): Board;
  /** The variant's options form (the board reads it when the game is dealt). */
  form(context: BoardContext): HTMLElement;
}

const grid = (variant: GridVariant): Kind => ({
  board: (area, context) => new GridBoard(variant, area, context),
  form: (context) => GridBoard.optionsForm(variant, context),
});

/** The board of each variant this page plays. */
const BOARDS: Record<string, Kind> = {
  "poker-squares": grid("poker-squares"),
  "poker-patience": grid("poker-patience"),
  "serpent-patience": grid("serpent-patience"),
  "repeat-poker": { board: (area, context) => new RowsBoard(area, context), form: () => RowsBoard.optionsForm() },
  "reserve-poker": {
    board: (area, context) => new ReserveBoard(area, context),
    form: () => ReserveBoard.optionsForm(),
  },
  solodrez: { board: (area, context) => new ColumnsBoard(area, context), form: () => ColumnsBoard.optionsForm() },
};

interface Game {
  variant: string;
  dealId: string;
  serverSeedHash: string;
  clientSeed: string;
  view: View;
  next: number;
  /** Every card shown so far, by its place in the deal (checked against the receipt). */
  seen: Map<string, Seen>;
  finished: boolean;
  busy: boolean;
}

let variants: Variant[] = [];
let board: Board | null = null;
let game: Game | null = null;

function say(message: string): void {
  $("message").textContent = message;
}

function describe(error: unknown): string {
  if (error instanceof ApiError) return `${error.message}${error.code ? ` (${error.code})` : ""}`;
  return error instanceof Error ? error.message : String(error);
}

const context = (info: Variant): BoardContext => ({
  play: (move) => void play(move),
  say,
  fourColours: () => $<HTMLInputElement>("four-colours").checked,
  tables: (info.tables ?? {}) as Record<string, PointTable>,
});

function chosen(): { info: Variant; kind: Kind } | null {
  const info = variants.find((v) => v.id === $<HTMLSelectElement>("variant").value);
  const kind = info ? BOARDS[info.id] : undefined;
  return info && kind ? { info, kind } : null;
}

/** The variant chosen: its options form, and an empty board. */
function chooseVariant(): void {
  const found = chosen();
  $("options").replaceChildren(...(found ? [found.kind.form(context(found.info))] : []));
  newBoard();
}

/** A fresh board for the variant chosen (the options form keeps what was set). */
function newBoard(): void {
  const found = chosen();
  game = null;
  board = found ? found.kind.board($("board"), context(found.info)) : null;
  draw();
}

function draw(): void {
  const playing = game !== null && !game.finished;
  board?.draw(game?.view ?? null, playing);
  const next = $("next-card");
  const card = playing && board && game ? board.next(game.view) : null;
  next.className = card ? `card ${colourClass(card, $<HTMLInputElement>("four-colours").checked)}` : "card";
  next.textContent = card ? cardLabel(card) : "";
  $("next-label").textContent = playing && board && game ? board.progress(game.view, game.next) : "";
  const later = $("later");
  later.replaceChildren();
  const upcoming = playing && game && "later" in game.view ? (game.view.later ?? []) : [];
  for (const card of upcoming) {
    const item = document.createElement("li");
    item.className = `card ${colourClass(card, $<HTMLInputElement>("four-colours").checked)}`;
    item.textContent = cardLabel(card);
    later.append(item);
  }
  $("later-label").hidden = upcoming.length === 0;
  const score = game && board ? board.score(game.view) : { summary: "", lines: [] };
  $("running").textContent = score.summary;
  $("lines").replaceChildren(
    ...score.lines.map((line) => {
      const item = document.createElement("li");
      item.textContent = line;
      return item;
    }),
  );
}

function remember(current: Game, view: View): void {
  for (const card of board?.seen(view, current.next) ?? []) current.seen.set(`${card.stream}:${card.index}`, card);
}

async function deal(): Promise<void> {
  const variant = $<HTMLSelectElement>("variant").value;
  const clientSeed = $<HTMLInputElement>("client-seed").value;
  $("deal").setAttribute("disabled", "");
  $("result").hidden = true;
  $("verification").textContent = "";
  $("par").textContent = "";
  newBoard();
  try {
    const options = board?.options() ?? {};
    const commitment = await call("post", "/v1/commitments", { body: {} });
    $("commitment").textContent = commitment.server_seed_hash;
    const state = await call("post", "/v1/deals", {
      body: {
        variant: variant as Schemas["DealRequest"]["variant"],
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
      state.variant !== variant && "it is another variant",
    ].filter(Boolean);
    if (broken.length) throw new Error(`the server dealt another game than it promised: ${broken.join("; ")}`);
    game = {
      variant,
      dealId: state.deal_id,
      serverSeedHash: commitment.server_seed_hash,
      clientSeed,
      view: state.view,
      next: state.next_index,
      seen: new Map(),
      finished: state.finished,
      busy: false,
    };
    remember(game, state.view);
    say(`Dealt ${state.deal_id}.`);
    draw();
  } catch (error) {
    say(describe(error));
  } finally {
    $("deal").removeAttribute("disabled");
  }
}

async function play(move: string): Promise<void> {
  if (!game || game.finished || game.busy) return;
  const current = game;
  current.busy = true;
  try {
    const answer = await call("post", "/v1/deals/{deal_id}/moves", {
      params: { deal_id: current.dealId },
      body: { index: current.next, move },
    });
    current.view = answer.view;
    current.next = answer.index + 1;
    current.finished = answer.finished;
    board?.placed?.(move);
    remember(current, answer.view);
    draw();
    say(answer.finished ? "The game is over." : `Played ${move}.`);
    if (answer.finished) await finish(current, answer.score ?? null);
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
  void board
    ?.finished?.(done.view, [...done.seen.values()])
    .then((words) => ($("par").textContent = words))
    .catch((error: unknown) => ($("par").textContent = `Par unavailable: ${describe(error)}.`));
  if (!score) {
    status.textContent = "Not verified: an unscored game has no receipt.";
    status.className = "not-verified";
    return;
  }
  status.textContent = "Verifying…";
  try {
    const receipt = await call("get", "/v1/deals/{deal_id}/receipt", { params: { deal_id: done.dealId } });
    $<HTMLTextAreaElement>("receipt").value = receipt.receipt;
    const download = $<HTMLAnchorElement>("download");
    download.href = URL.createObjectURL(new Blob([receipt.receipt], { type: "application/jose" }));
    download.download = `receipt-${done.dealId}.jws`;
    const keys = await call("get", "/.well-known/jwks.json");
    const tables: Record<string, PointTable> = {};
    for (const info of variants) Object.assign(tables, info.tables as Record<string, PointTable>);
    const verdict = await verifyReceipt(receipt.receipt, keys, {
      serverSeedHash: done.serverSeedHash,
      clientSeed: done.clientSeed,
      seen: [...done.seen.values()],
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

async function start(): Promise<void> {
  const params = new URLSearchParams(location.search);
  variants = ((await call("get", "/v1/variants")) as Variant[]).filter((v) => v.id in BOARDS);
  const select = $<HTMLSelectElement>("variant");
  for (const info of variants) select.append(new Option(info.title, info.id));
  const asked = params.get("variant");
  if (asked && asked in BOARDS) select.value = asked;
  else if (asked) say(`This page does not play ${asked} yet; it plays ${Object.keys(BOARDS).join(", ")}.`);
  $<HTMLInputElement>("client-seed").value = toHex(crypto.getRandomValues(new Uint8Array(16)));
  select.addEventListener("change", chooseVariant);
  $("deal").addEventListener("click", () => void deal());
  $("four-colours").addEventListener("change", draw);
  $("copy").addEventListener("click", () => {
    void navigator.clipboard?.writeText($<HTMLTextAreaElement>("receipt").value);
    say("The receipt was copied.");
  });
  chooseVariant();
}

void start().catch((error: unknown) => say(describe(error)));

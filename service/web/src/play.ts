/**
 * `/play`: a committed game against the service's public API. The page asks for a
 * commitment first and shows its hash, then deals with the client seed in the field,
 * checks the deal is the one it was promised, and, in a hidden variant, shows each card
 * only once the server has turned it up: nothing of the deck is in the DOM or in this
 * script before that. At the end it fetches the receipt and verifies it itself, checking
 * every card it was shown against the deck the revealed seeds derive.
 *
 * `/play?tournament=ID` is a tournament's entrant's page instead (./tournament.ts).
 */

import type { Board, BoardContext } from "./board";
import { call, newKey, type Schemas } from "./client";
import { drawGame, fourColours } from "./draw";
import type { PointTable } from "./hands";
import { KINDS } from "./kinds";
import { $, Session, describe, say } from "./session";
import { isPointSystem } from "./points";
import { showRules } from "./rules";
import { toHex } from "./shuffle";
import { startTournament } from "./tournament";

type Variant = Schemas["VariantInfo"];

let variants: Variant[] = [];
let board: Board | null = null;
let session: Session | null = null;
/** The variant whose options and board are shown (the select's value before a change). */
let shown = "";
/** The client seed of the last deal, and whether the player typed in the field since. */
let lastSeed: string | null = null;
let seedTyped = false;

const contextOf = (info: Variant, play: (move: string) => void): BoardContext => ({
  play,
  say,
  fourColours,
  tables: (info.tables ?? {}) as Record<string, PointTable>,
  pointSystems: info.point_systems ?? [],
});

function chosen(): Variant | null {
  return variants.find((v) => v.id === $<HTMLSelectElement>("variant").value) ?? null;
}

function draw(): void {
  drawGame(board, session?.view ?? null, session?.next ?? 0, session?.playing ?? false);
}

/** A fresh random client seed (16 bytes, hex). */
const randomSeed = (): string => toHex(crypto.getRandomValues(new Uint8Array(16)));

/** Whether a game is under way here: dealt, moved in, not finished. */
const inProgress = (): boolean => session !== null && !session.finished && session.next > 0;

/** Asks before abandoning a game in progress (a modal dialog); true to go on. */
function mayAbandon(): Promise<boolean> {
  if (!inProgress()) return Promise.resolve(true);
  const dialog = $<HTMLDialogElement>("abandon");
  return new Promise((resolve) => {
    const done = (answer: boolean): void => {
      $("abandon-yes").removeEventListener("click", yes);
      $("abandon-no").removeEventListener("click", no);
      dialog.removeEventListener("cancel", no);
      if (dialog.open) dialog.close();
      resolve(answer);
    };
    const yes = (): void => done(true);
    const no = (): void => done(false);
    $("abandon-yes").addEventListener("click", yes);
    $("abandon-no").addEventListener("click", no);
    dialog.addEventListener("cancel", no); // Escape keeps the game
    dialog.showModal();
    $("abandon-no").focus();
  });
}

/** The variant chosen: its options form, its rules, and an empty board (asked first if a
 * game is in progress: keeping it puts the select back). */
async function chooseVariant(): Promise<void> {
  const select = $<HTMLSelectElement>("variant");
  if (select.value !== shown && !(await mayAbandon())) {
    select.value = shown;
    return;
  }
  shown = select.value;
  const info = chosen();
  const kind = info ? KINDS[info.id] : undefined;
  $("options").replaceChildren(...(info && kind ? [kind.form(contextOf(info, () => undefined))] : []));
  showRules(info?.id ?? null, info?.title ?? "");
  newBoard();
}

/** A fresh board for the variant chosen (the options form keeps what was set). */
function newBoard(): void {
  const info = chosen();
  const kind = info ? KINDS[info.id] : undefined;
  session = null;
  board = info && kind ? kind.board($("board"), contextOf(info, (move) => void session?.play(move))) : null;
  draw();
}

async function deal(): Promise<void> {
  const info = chosen();
  if (!info) return;
  if (!(await mayAbandon())) return;
  const field = $<HTMLInputElement>("client-seed");
  if (lastSeed !== null && !seedTyped) field.value = randomSeed(); // a fresh seed for every new deal
  const clientSeed = field.value;
  lastSeed = clientSeed;
  seedTyped = false;
  $("deal").setAttribute("disabled", "");
  $("result").hidden = true;
  $("verification").textContent = "";
  $("par").textContent = "";
  newBoard();
  try {
    const options = board?.options() ?? {};
    const commitment = await call("post", "/v1/commitments", { body: {} });
    $("commitment").textContent = commitment.server_seed_hash;
    $("commitment-line").hidden = false;
    const state = await call("post", "/v1/deals", {
      body: {
        variant: info.id as Schemas["DealRequest"]["variant"],
        options: options as Schemas["DealRequest"]["options"],
        commitment_id: commitment.commitment_id,
        client_seed: clientSeed,
      },
      headers: { "Idempotency-Key": newKey() },
    });
    const asked = (options as { scoring?: unknown }).scoring;
    const shown = (state.options as { scoring?: unknown } | null)?.scoring;
    const broken = [
      state.server_seed_hash !== commitment.server_seed_hash && "its hash is not the one committed",
      state.client_seed !== clientSeed && "its client seed is not the one sent",
      !state.committed_before_client_seed && "it was not committed before the client seed",
      state.variant !== info.id && "it is another variant",
      asked !== undefined &&
        (isPointSystem(asked) ? typeof shown !== "object" || shown === null : shown !== asked) &&
        "its point table is not the one asked (a drawn system shows the table it drew)",
    ].filter(Boolean);
    if (broken.length) throw new Error(`the server dealt another game than it promised: ${broken.join("; ")}`);
    const tables: Record<string, PointTable> = {};
    for (const each of variants) Object.assign(tables, each.tables as Record<string, PointTable>);
    session = new Session(
      state,
      board as Board,
      { serverSeedHash: commitment.server_seed_hash, clientSeed, ...(isPointSystem(asked) ? { system: asked } : {}) },
      tables,
      null,
      draw,
    );
    say(`Dealt ${state.deal_id}.`);
    document.body.dataset["dealt"] = "1"; // a phone shows the board first from here
    draw();
  } catch (error) {
    say(describe(error));
  } finally {
    $("deal").removeAttribute("disabled");
  }
}

async function start(): Promise<void> {
  const params = new URLSearchParams(location.search);
  variants = ((await call("get", "/v1/variants")) as Variant[]).filter((v) => v.id in KINDS);
  $("copy").addEventListener("click", () => {
    void navigator.clipboard?.writeText($<HTMLTextAreaElement>("receipt").value);
    say("The receipt was copied.");
  });
  const tournament = params.get("tournament");
  if (tournament) {
    await startTournament(tournament, variants);
    return;
  }
  const select = $<HTMLSelectElement>("variant");
  for (const info of variants) select.append(new Option(info.title, info.id));
  const asked = params.get("variant");
  if (asked && asked in KINDS) select.value = asked;
  else if (asked) say(`This page does not play ${asked}; it plays ${Object.keys(KINDS).join(", ")}.`);
  const seed = $<HTMLInputElement>("client-seed");
  seed.value = randomSeed();
  seed.addEventListener("input", () => (seedTyped = true));
  select.addEventListener("change", () => void chooseVariant());
  $("deal").addEventListener("click", () => void deal());
  $("four-colours").addEventListener("change", draw);
  shown = select.value;
  await chooseVariant();
  document.body.dataset["ready"] = "1"; // the controls work from here (tests wait for it)
}

void start().catch((error: unknown) => say(describe(error)));

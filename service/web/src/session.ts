/**
 * One game on the page: its deal, its view, the cards it was shown (each by its place
 * in the deal), its moves (sent with the entrant's token in a tournament), and at the
 * end its receipt, verified in the page. The shell (play.ts) and the tournament mode
 * (tournament.ts) each open sessions their own way and draw them the same way.
 */

import type { Board, Seen, View } from "./board";
import { ApiError, call, type Schemas } from "./client";
import type { PointTable } from "./hands";
import { verifyReceipt } from "./receipt";

export type DealState = Schemas["DealState"];

export const $ = <T extends HTMLElement>(id: string): T => {
  const element = document.getElementById(id);
  if (!element) throw new Error(`the page has no #${id}`);
  return element as T;
};

export function say(message: string): void {
  $("message").textContent = message;
}

export function describe(error: unknown): string {
  if (error instanceof ApiError) return `${error.message}${error.code ? ` (${error.code})` : ""}`;
  return error instanceof Error ? error.message : String(error);
}

export class Session {
  view: View;
  next: number;
  finished: boolean;
  readonly seen = new Map<string, Seen>();
  /** The log as played here (with any card the server placed for the player). */
  private log: string[];
  private busy = false;
  /** The receipt fetched at the end, and whether its check waits on a seed not revealed yet. */
  private receipt: { token: string; score: Schemas["Score"] } | null = null;
  /** Whether the last check of the receipt waits on the seed (a tournament still open). */
  pending = false;
  /** The final score once the game is over (`null`: not over, or unscored). */
  total: number | null = null;
  /** What the last move says when it ends the game (a lockstep seat's call line says it
   * already, with the score: nothing). */
  overWords = "The game is over.";

  constructor(
    readonly state: DealState,
    readonly board: Board,
    /** What the deal was promised to be: its committed hash, client seed and, when one
     * was asked, the point system its table is drawn by. */
    readonly promised: { serverSeedHash: string; clientSeed: string; system?: string },
    readonly tables: Record<string, PointTable>,
    /** The entrant's token (`cpe_...`) for a tournament game. */
    readonly token: string | null = null,
    /** Told after every change (a move, a refresh). */
    readonly changed: () => void = () => undefined,
    /** Told of the moves a refresh found that this page did not send: the server placed
     * them for the player (a lockstep card whose deadline passed), by index and move text. */
    readonly placedForYou: (placed: Array<{ index: number; move: string }>) => void = () => undefined,
  ) {
    this.view = state.view;
    this.next = state.next_index;
    this.finished = state.finished;
    this.log = state.moves.split(" ").filter(Boolean);
    board.adopt?.(state.options);
    this.remember(state.view);
  }

  get dealId(): string {
    return this.state.deal_id;
  }

  private headers(): Record<string, string> {
    return this.token ? { Authorization: `Bearer ${this.token}` } : {};
  }

  /** Whether a move can be made now (a lockstep seat waits for each call). */
  get playing(): boolean {
    if (this.finished) return false;
    return this.board.next(this.view) !== null || !("next" in this.view);
  }

  private remember(view: View): void {
    for (const card of this.board.seen(view, this.next)) this.seen.set(`${card.stream}:${card.index}`, card);
  }

  /** The deal as the server has it now (a lockstep call, a card placed for the player). */
  async refresh(): Promise<void> {
    const state = await call("get", "/v1/deals/{deal_id}", { params: { deal_id: this.dealId }, headers: this.headers() });
    const moves = state.moves.split(" ").filter(Boolean);
    if (moves.slice(0, this.log.length).join(" ") !== this.log.join(" ")) {
      throw new Error("the server's log is not the one played here");
    }
    const theirs = moves.slice(this.log.length).map((move, i) => ({ index: this.log.length + i, move }));
    this.log = moves;
    this.view = state.view;
    this.next = state.next_index;
    const ended = state.finished && !this.finished;
    this.finished = state.finished;
    this.remember(state.view);
    for (const { move } of theirs) this.board.placed?.(move);
    this.changed();
    if (theirs.length) this.placedForYou(theirs);
    if (ended) await this.finish(state.score ?? null);
  }

  /** Send one move (its text form); a refused one is said, and the game stays as it was. */
  async play(move: string): Promise<void> {
    if (this.finished || this.busy) return;
    this.busy = true;
    try {
      const answer = await call("post", "/v1/deals/{deal_id}/moves", {
        params: { deal_id: this.dealId },
        body: { index: this.next, move },
        headers: this.headers(),
      });
      this.view = answer.view;
      this.next = answer.index + 1;
      this.finished = answer.finished;
      if (answer.index === this.log.length) this.log.push(move);
      this.board.placed?.(move);
      this.remember(answer.view);
      this.changed();
      say(answer.finished ? this.overWords : `${this.board.describe?.(move) ?? `Played ${move}`}.`);
      if (answer.finished) await this.finish(answer.score ?? null);
    } catch (error) {
      const words = error instanceof ApiError ? this.board.refused?.(move, error.code) : null;
      say(words ?? describe(error));
      if (error instanceof ApiError && error.code === "auto-placed") await this.refresh();
    } finally {
      this.busy = false;
    }
  }

  /** The score, the receipt, and the page's own verification of it. */
  async finish(score: Schemas["Score"] | null): Promise<void> {
    this.total = score?.total ?? null;
    $("result").hidden = false;
    $("final-score").textContent = score ? `Final score: ${score.total}` : "Final score: none";
    $("receipt-box").hidden = !score; // an unscored game has no receipt: no empty box to copy
    const status = $("verification");
    void this.board
      .finished?.(this.view, [...this.seen.values()])
      .then((words) => ($("par").textContent = words))
      .catch((error: unknown) => ($("par").textContent = `Par unavailable: ${describe(error)}.`));
    if (!score) {
      status.textContent =
        "The game ended with no legal move for the next card (a dead end): it is unscored, and an unscored game has no receipt to verify.";
      status.className = "";
      return;
    }
    status.textContent = "Verifying…";
    status.className = "";
    try {
      const receipt = await call("get", "/v1/deals/{deal_id}/receipt", {
        params: { deal_id: this.dealId },
        headers: this.headers(),
      });
      $<HTMLTextAreaElement>("receipt").value = receipt.receipt;
      const download = $<HTMLAnchorElement>("download");
      download.href = URL.createObjectURL(new Blob([receipt.receipt], { type: "application/jose" }));
      download.download = `receipt-${this.dealId}.jws`;
      this.receipt = { token: receipt.receipt, score };
      await this.check();
    } catch (error) {
      status.textContent = `Not verified: ${describe(error)}.`;
      status.className = "not-verified";
    }
  }

  /**
   * Check the receipt here (again): `serverSeed` is its round's seed, revealed by the
   * tournament's close, for a receipt signed while the tournament was open (it carries
   * none): the deck, the cards and the score are then checked with it.
   */
  async check(serverSeed?: string): Promise<void> {
    if (this.receipt === null) return;
    const status = $("verification");
    const { token, score } = this.receipt;
    try {
      const keys = await call("get", "/.well-known/jwks.json");
      const verdict = await verifyReceipt(token, keys, {
        ...this.promised,
        ...(serverSeed === undefined ? {} : { serverSeed }),
        issuerOrigin: window.location.origin,
        seen: [...this.seen.values()],
        tables: this.tables,
        game: {
          dealId: this.dealId,
          variant: this.state.variant,
          options: this.state.options,
          moves: this.log.join(" "),
          total: score.total,
          kinds: this.token ? ["tournament"] : ["committed-blind", "committed-open"],
        },
      });
      this.pending = verdict.pending;
      if (verdict.ok) {
        status.textContent = `Verified: ${verdict.checked.join("; ")}.`;
      } else if (verdict.pending) {
        status.textContent = `Not verified yet: ${verdict.checked.join("; ")}; the seed, the deck and the cards are checked once the tournament closes.`;
      } else {
        status.textContent = `Not verified: ${verdict.reasons.join("; ")}.`;
      }
      status.className = verdict.ok ? "verified" : verdict.pending ? "pending" : "not-verified";
    } catch (error) {
      this.pending = false;
      status.textContent = `Not verified: ${describe(error)}.`;
      status.className = "not-verified";
    }
  }
}

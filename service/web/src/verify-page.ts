/** `/verify`: paste any receipt; the page checks it in the browser against the key set. */

import { call } from "./client";
import type { PointTable } from "./hands";
import { cleanReceipt, verifyReceipt } from "./receipt";

const status = document.getElementById("verification") as HTMLElement;
const area = document.getElementById("receipt") as HTMLTextAreaElement;
const details = document.getElementById("details") as HTMLElement;

async function check(): Promise<void> {
  status.textContent = "Verifying…";
  status.className = "";
  details.textContent = "";
  try {
    const [keys, variants] = await Promise.all([call("get", "/.well-known/jwks.json"), call("get", "/v1/variants")]);
    const tables: Record<string, PointTable> = {};
    for (const info of variants) Object.assign(tables, info.tables as Record<string, PointTable>);
    const allow = [...document.querySelectorAll<HTMLInputElement>("input[name=allow]:checked")].map((box) => box.value);
    const verdict = await verifyReceipt(cleanReceipt(area.value), keys, { tables, allow, issuerOrigin: window.location.origin });
    if (verdict.ok) status.textContent = `Verified: ${verdict.checked.join("; ")}.`;
    else if (verdict.pending) {
      // a tournament still open: the normal state until its close, said in a neutral style
      status.textContent = `Not verified yet: ${verdict.checked.join("; ")}; the seed, the deck and the cards are checked once the tournament closes.`;
    } else status.textContent = `Not verified: ${verdict.reasons.join("; ")}.`;
    status.className = verdict.ok ? "verified" : verdict.pending ? "pending" : "not-verified";
    if (verdict.payload) {
      const p = verdict.payload;
      const scoring = (p.options as { scoring?: unknown }).scoring;
      const table = scoring !== null && typeof scoring === "object" ? `, a custom point table ${JSON.stringify(scoring)}` : "";
      details.textContent = `${p.variant} (${String(p.kind)}), score ${p.score.total}, ${p.moves.split(" ").filter(Boolean).length} moves, client seed ${JSON.stringify(p.client_seed)}${p.player ? `, player ${p.player}` : ""}${table}`;
    }
  } catch (error) {
    status.textContent = `Not verified: ${error instanceof Error ? error.message : String(error)}.`;
    status.className = "not-verified";
  }
}

document.getElementById("verify")?.addEventListener("click", () => void check());

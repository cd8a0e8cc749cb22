/**
 * `/verify`: paste any receipt; the page checks it in the browser against the key set,
 * then its place in the server's transparency log (`tlog.ts`, WebCrypto): the entry the
 * receipt is logged as is found by its leaf hash (`GET /log/proof/<leaf>`) and checked
 * against the log's key (`GET /log/key`). A receipt the log does not hold a minute after
 * its signing is refused, as `cardproof verify --url` refuses it.
 */

import { call } from "./client";
import type { PointTable } from "./hands";
import { cleanReceipt, verifyReceipt } from "./receipt";
import { checkInLog, hex, leafHash, LogProofError, receiptEntry, type LogProof } from "./tlog";

const status = document.getElementById("verification") as HTMLElement;
const area = document.getElementById("receipt") as HTMLTextAreaElement;
const details = document.getElementById("details") as HTMLElement;
const logStatus = document.getElementById("log-status") as HTMLElement;

/** Seconds after its signing within which a receipt may not be in the log yet. */
const SEQUENCING_GRACE = 60;

/** The receipt's place in the log, as a line and its style (`null`: a practice receipt). */
async function logCheck(token: string, issued: number): Promise<{ text: string; style: string } | null> {
  let entry: Uint8Array;
  try {
    entry = await receiptEntry(token);
  } catch {
    return null; // a practice receipt names no deal: it is not logged
  }
  const leaf = hex(await leafHash(entry));
  const [keyAnswer, answer] = await Promise.all([fetch("/log/key"), fetch(`/log/proof/${leaf}`, { headers: { Accept: "application/json" } })]);
  if (answer.status === 404) {
    const age = Date.now() / 1000 - issued;
    if (age < SEQUENCING_GRACE) {
      return { text: "Not in the log yet: it is sequenced within a second or two of its signing. Verify again in a moment.", style: "pending" };
    }
    return {
      text: "Not in the log: this server's transparency log does not hold this receipt, though its signature is the server's key. The service logs every receipt it signs; one it never logged was signed by someone else with its key (or before the service kept its log).",
      style: "not-verified",
    };
  }
  if (!answer.ok || !keyAnswer.ok) throw new Error(`the log could not be read (HTTP ${answer.status})`);
  try {
    const found = await checkInLog(token, (await answer.json()) as LogProof, await keyAnswer.text());
    return { text: `In the log at index ${found.index} (checkpoint of size ${found.size}, signed by ${found.origin}).`, style: "verified" };
  } catch (error) {
    if (!(error instanceof LogProofError)) throw error;
    return { text: `Not in the log (${error.code}): ${error.message}.`, style: "not-verified" };
  }
}

async function check(): Promise<void> {
  status.textContent = "Verifying…";
  status.className = "";
  details.textContent = "";
  logStatus.textContent = "";
  logStatus.className = "";
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
    if (verdict.payload && (verdict.ok || verdict.pending)) {
      const logged = await logCheck(cleanReceipt(area.value), Number(verdict.payload.iat ?? verdict.payload.issued_at));
      if (logged) {
        logStatus.textContent = logged.text;
        logStatus.className = logged.style;
        if (logged.style === "not-verified") {
          status.textContent = `Not verified: ${logged.text.replace(/\.$/, "")}.`;
          status.className = "not-verified";
        }
      } else logStatus.textContent = "A practice receipt names no deal: it is not in the log.";
    }
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

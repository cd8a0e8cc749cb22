/**
 * A receipt's place in the transparency log, checked in the browser with WebCrypto, as
 * `cardproof.tlog.inclusion.check_in_log` checks it (docs/protocol.md section 7.4):
 *
 * 1. the checkpoint (a signed note) is signed by the log's key (name and key ID, then the
 *    Ed25519 signature over the note's text), and its origin is that key's name;
 * 2. the entry is a `receipt` entry in its one spelling, naming this very receipt (the
 *    SHA-256 of its compact JWS) and stating what it says: deal, kind, variant, total,
 *    `iat`, `kid`, tournament;
 * 3. the entry is at `index` in the checkpoint's tree (RFC 9162 section 2.1.3.2).
 *
 * Every check throws a `LogProofError` with the code the SDK uses (`checkpoint`,
 * `entry`, `inclusion`). Witnesses' cosignatures are not asked for here.
 */

import { b64urlDecode } from "./receipt";

type Bytes = Uint8Array<ArrayBuffer>;

/** A receipt's place in the log, as the service answers it (all base64, a note). */
export interface LogProof {
  index: number;
  entry: string;
  checkpoint: string;
  proof: string[];
}

/** What the check found: the entry's index, the tree's size, the log's name. */
export interface Logged {
  index: number;
  size: number;
  origin: string;
}

/** A check that failed; `code` is the SDK's. */
export class LogProofError extends Error {
  readonly code: string;

  constructor(code: string, message: string) {
    super(message);
    this.code = code;
  }
}

const encoder = new TextEncoder();
const ED25519 = 0x01;

function concat(...parts: Uint8Array[]): Bytes {
  const out = new Uint8Array(parts.reduce((n, part) => n + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

async function sha256(data: Uint8Array): Promise<Bytes> {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", concat(data)));
}

function same(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}

/** Standard base64 (padded), strictly: anything else is an error. */
export function b64decode(text: string, what: string): Bytes {
  if (!/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(text)) {
    throw new LogProofError("checkpoint", `${what} is not base64`);
  }
  return b64urlDecode(text.replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, ""));
}

/** The hex of some bytes. */
export function hex(bytes: Uint8Array): string {
  return [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** RFC 6962: a leaf is SHA-256(0x00 || entry). */
export async function leafHash(entry: Uint8Array): Promise<Bytes> {
  return sha256(concat(new Uint8Array([0]), entry));
}

/** RFC 6962: a node is SHA-256(0x01 || left || right). */
export async function nodeHash(left: Uint8Array, right: Uint8Array): Promise<Bytes> {
  return sha256(concat(new Uint8Array([1]), left, right));
}

/** RFC 9162 section 2.1.3.2: the root an audit path leads to from `leaf` at `index`. */
export async function inclusionRoot(index: number, size: number, leaf: Uint8Array, proof: Uint8Array[]): Promise<Bytes> {
  if (!Number.isSafeInteger(index) || !Number.isSafeInteger(size) || index < 0 || index >= size) {
    throw new LogProofError("inclusion", `entry ${index} is not in a tree of ${size}`);
  }
  if (proof.some((p) => p.length !== 32) || proof.length > 64) throw new LogProofError("inclusion", "a proof is 32-byte hashes");
  let fn = BigInt(index);
  let sn = BigInt(size - 1);
  let r = concat(leaf);
  for (const p of proof) {
    if (sn === 0n) throw new LogProofError("inclusion", "the inclusion proof is too long");
    if ((fn & 1n) === 1n || fn === sn) {
      r = await nodeHash(p, r);
      while ((fn & 1n) === 0n && fn !== 0n) {
        fn >>= 1n;
        sn >>= 1n;
      }
    } else {
      r = await nodeHash(r, p);
    }
    fn >>= 1n;
    sn >>= 1n;
  }
  if (sn !== 0n) throw new LogProofError("inclusion", "the inclusion proof is too short");
  return r;
}

/** A note verifier key: `name+hexid+base64(0x01 || Ed25519 public key)`. */
export interface LogKey {
  name: string;
  id: Bytes;
  publicKey: Bytes;
}

/** Read a verifier key, its ID checked against its name and key (C2SP signed-note). */
export async function parseLogKey(vkey: string): Promise<LogKey> {
  const parts = vkey.trim().split("+");
  if (parts.length < 3 || !/^[0-9a-f]{8}$/.test(parts[1] ?? "")) throw new LogProofError("checkpoint", `not a verifier key: ${vkey}`);
  const name = parts[0] ?? "";
  const raw = b64decode(parts.slice(2).join("+"), "a verifier key's key");
  if (!name || /[\s+]/.test(name) || raw.length !== 33 || raw[0] !== ED25519) {
    throw new LogProofError("checkpoint", "the log's key is an Ed25519 note verifier key");
  }
  const publicKey = raw.slice(1);
  const id = (await sha256(concat(encoder.encode(`${name}\n`), new Uint8Array([ED25519]), publicKey))).slice(0, 4);
  if (hex(id) !== parts[1]) throw new LogProofError("checkpoint", "the verifier key's ID is not its name's and key's");
  return { name, id, publicKey };
}

/** A checkpoint's origin, size and root, from a note signed by `key` (else an error). */
export async function openCheckpoint(note: string, key: LogKey): Promise<{ origin: string; size: number; root: Bytes }> {
  const at = note.lastIndexOf("\n\n");
  if (at < 0 || !note.endsWith("\n")) throw new LogProofError("checkpoint", "a note is its text, a blank line, and its signature lines");
  const text = note.slice(0, at + 1);
  let signed = false;
  for (const line of note.slice(at + 2, -1).split("\n")) {
    const found = /^\u2014 ([^ +\n]+) ([A-Za-z0-9+/=]+)$/.exec(line);
    if (!found) throw new LogProofError("checkpoint", `not a signature line: ${line.slice(0, 60)}`);
    const raw = b64decode(found[2] ?? "", "a signature");
    if (found[1] !== key.name || !same(raw.slice(0, 4), key.id)) continue; // another key's: unchecked
    const publicKey = await crypto.subtle.importKey("raw", key.publicKey, { name: "Ed25519" }, false, ["verify"]);
    if (raw.length !== 68 || !(await crypto.subtle.verify({ name: "Ed25519" }, publicKey, raw.slice(4), encoder.encode(text)))) {
      throw new LogProofError("checkpoint", `the checkpoint: the signature of ${key.name} does not verify`);
    }
    signed = true;
  }
  if (!signed) throw new LogProofError("checkpoint", "the checkpoint is not signed by the log's key");
  const lines = text.slice(0, -1).split("\n");
  const [origin = "", size = "", root = ""] = lines;
  if (lines.length < 3 || !/^(0|[1-9][0-9]{0,15})$/.test(size)) throw new LogProofError("checkpoint", "a checkpoint is an origin, a size and a root hash");
  const rootBytes = b64decode(root, "a checkpoint's root hash");
  if (rootBytes.length !== 32) throw new LogProofError("checkpoint", "a checkpoint's root hash is 32 bytes");
  if (origin !== key.name) throw new LogProofError("checkpoint", `the checkpoint is of ${JSON.stringify(origin)}, not ${JSON.stringify(key.name)}`);
  return { origin, size: Number(size), root: rootBytes };
}

/** The entry the log keeps for a receipt: what its header and payload say, one spelling. */
export async function receiptEntry(token: string): Promise<Bytes> {
  const [headerPart = "", payloadPart = ""] = token.split(".");
  const header = JSON.parse(new TextDecoder().decode(b64urlDecode(headerPart))) as Record<string, unknown>;
  const payload = JSON.parse(new TextDecoder().decode(b64urlDecode(payloadPart))) as Record<string, unknown>;
  if (typeof payload["deal_id"] !== "string" || typeof payload["kind"] !== "string") {
    throw new LogProofError("entry", "a receipt of no deal (practice) is not logged");
  }
  const score = payload["score"] as { total?: unknown } | undefined;
  const entry: Record<string, unknown> = {
    type: "receipt",
    receipt: hex(await sha256(encoder.encode(token))),
    deal: payload["deal_id"],
    kind: payload["kind"],
    variant: payload["variant"],
    score: score?.total,
    iat: payload["iat"] ?? payload["issued_at"],
    kid: String(header["kid"] ?? ""),
  };
  if (typeof payload["tournament"] === "string") entry["tournament"] = payload["tournament"];
  return encoder.encode(JSON.stringify(entry));
}

/** Check that the log of `logKey` holds `token` where `log` says (see the module's list). */
export async function checkInLog(token: string, log: LogProof, logKey: string): Promise<Logged> {
  const key = await parseLogKey(logKey);
  const checkpoint = await openCheckpoint(log.checkpoint, key);
  let entry: Bytes;
  try {
    entry = b64decode(log.entry, "the entry");
  } catch {
    throw new LogProofError("entry", "the entry is not base64");
  }
  const stated = await receiptEntry(token);
  if (!same(entry, stated)) {
    let shown: unknown = null;
    try {
      shown = JSON.parse(new TextDecoder().decode(entry));
    } catch {
      // not JSON: said below
    }
    const named = (shown as { receipt?: unknown } | null)?.receipt;
    const why = named === JSON.parse(new TextDecoder().decode(stated)).receipt ? "says other than the receipt" : "names another receipt";
    throw new LogProofError("entry", `the entry ${why}`);
  }
  let proof: Bytes[];
  try {
    proof = log.proof.map((node) => b64decode(node, "a proof hash"));
  } catch {
    throw new LogProofError("inclusion", "a proof hash is not base64");
  }
  const root = await inclusionRoot(log.index, checkpoint.size, await leafHash(entry), proof);
  if (!same(root, checkpoint.root)) throw new LogProofError("inclusion", "the entry is not in the tree: the inclusion proof does not lead to the root");
  return { index: log.index, size: checkpoint.size, origin: checkpoint.origin };
}

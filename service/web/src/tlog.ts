/**
 * A receipt's place in the transparency log, checked in the browser with WebCrypto, as the
 * SDK's reference checks it (docs/protocol.md section 7): the same formats, the same
 * refusals, the same checks in the same order, the same codes.
 *
 * - RFC 6962 hashing and the RFC 9162 section 2.1.3.2 inclusion check (`tree.py`);
 * - signed notes, read strictly, verifier keys and key IDs, checkpoints and witnesses'
 *   `cosignature/v1` lines (`note.py`; C2SP signed-note, tlog-checkpoint, tlog-cosignature);
 * - log entries in their one spelling (`entries.py`): parsed, re-encoded, compared byte
 *   for byte; and the entry a receipt is logged as;
 * - `checkInLog`, as `cardproof.tlog.inclusion.check_in_log`:
 *   1. the checkpoint is signed by the log's key, and its origin is that key's name;
 *   2. enough of the trusted witnesses cosigned it (none are asked by default);
 *   3. the entry is a `receipt` entry naming this very receipt (the SHA-256 of its compact
 *      JWS) and stating what it says: deal, kind, variant, total, `iat`, `kid`, tournament;
 *   4. the entry is at `index` in the checkpoint's tree.
 *   The first check that fails throws a `LogProofError` with the SDK's code (`checkpoint`,
 *   `witnesses`, `entry`, `inclusion`, `malformed`), its message, and `check`: the failed
 *   check in a few words, for a page to show.
 *
 * Where the SDK's Python and this differ, on purpose (`log-key` and `malformed` below are
 * the page's, where Python raises before `check_in_log` runs):
 * - the log's key is given as its text; a key that cannot be read is `log-key` (Python
 *   takes a parsed `Verifier`: `Verifier.parse` raises `NoteError`);
 * - the log answer is checked for its shape here (`malformed`; Python's `msgspec.convert`
 *   raises `ValidationError`), and a receipt that cannot be read is `malformed` (Python's
 *   `decode_receipt` raises `ReceiptError`);
 * - an entry's ID or hash with a trailing newline is refused (Python's patterns end in `$`,
 *   which matches before a final newline, and let it through), and its integers must be
 *   exact in a JavaScript number (up to 2**53).
 */

import { b64urlDecode } from "./receipt";

export type Bytes = Uint8Array<ArrayBuffer>;

/** The signature type of a plain Ed25519 note signature (a log's checkpoint). */
export const ED25519 = 0x01;
/** The signature type of a timestamped Ed25519 cosignature (a witness's). */
export const COSIGNATURE_V1 = 0x04;
/** The most signature lines a note may have (C2SP: accept at least 16). */
export const MAX_SIGNATURES = 32;
/** The longest note read, in characters (code points). */
export const MAX_NOTE = 64 * 1024;
/** The longest entry cardproof writes or reads. */
export const MAX_ENTRY_BYTES = 4096;
export const HASH_SIZE = 32;
const DASH = "\u2014";

const encoder = new TextEncoder();
const utf8 = new TextDecoder("utf-8", { fatal: true });

// --- errors, as the SDK's -------------------------------------------------------------

/** A note that cannot be read, or whose signatures do not hold (`note.py`'s `NoteError`). */
export class NoteError extends Error {
  /** Which way it failed: a signature that does not verify, no known signer, or its form. */
  readonly reason: "signature" | "unsigned" | "form";

  constructor(message: string, reason: "signature" | "unsigned" | "form" = "form") {
    super(message);
    this.name = "NoteError";
    this.reason = reason;
  }
}

/** Bytes that are not an entry in its one spelling (`entries.py`'s `EntryError`). */
export class EntryError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "EntryError";
  }
}

/** A proof that does not hold (`tree.py`'s `ProofError`). */
export class ProofError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ProofError";
  }
}

/** A receipt the log does not vouch for; `code` is the SDK's, `check` the failed check in words. */
export class LogProofError extends Error {
  readonly code: string;
  readonly check: string;

  constructor(code: string, message: string, check: string) {
    super(message);
    this.name = "LogProofError";
    this.code = code;
    this.check = check;
  }
}

// --- bytes, text, base64 ---------------------------------------------------------------

function concat(...parts: Uint8Array[]): Bytes {
  const out = new Uint8Array(parts.reduce((n, part) => n + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

async function sha256(...parts: Uint8Array[]): Promise<Bytes> {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", concat(...parts)));
}

/** Whether two byte strings are equal. */
export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}

/** The lower-case hex of some bytes. */
export function hex(bytes: Uint8Array): string {
  return [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
}

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/**
 * Standard base64 read as Python's `base64.b64decode(text, validate=True)` reads it (its
 * strict mode): only the alphabet, then padding only, never leading; a last group of two
 * or three characters padded exactly; a whole last group may be followed by padding, and
 * stray low bits are ignored. `null` for anything else.
 */
export function b64decode(text: string): Bytes | null {
  if (!/^[A-Za-z0-9+/]*=*$/.test(text) || text.startsWith("=")) return null;
  const data = text.replace(/=+$/, "");
  const pads = text.length - data.length;
  const rest = data.length % 4;
  if (rest === 1 || (rest === 2 && pads !== 2) || (rest === 3 && pads !== 1)) return null;
  const out = new Uint8Array(Math.floor((data.length * 3) / 4));
  let bits = 0;
  let held = 0;
  let at = 0;
  for (const char of data) {
    bits = (bits << 6) | ALPHABET.indexOf(char);
    held += 6;
    if (held >= 8) {
      held -= 8;
      out[at++] = (bits >> held) & 0xff;
    }
  }
  return out;
}

/** Standard base64, padded. */
export function b64encode(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** Python's `str.strip()`: the characters `str.isspace()` holds for, at both ends. */
export function pyStrip(text: string): string {
  const space = "\\t\\n\\v\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
  return text.replace(new RegExp(`^[${space}]+|[${space}]+$`, "g"), "");
}

/** Python's `repr` of a string, an integer or `None`, for messages as the SDK writes them. */
function pyRepr(value: unknown): string {
  if (value === null || value === undefined) return "None";
  if (typeof value !== "string") return String(value);
  const quote = value.includes("'") && !value.includes('"') ? '"' : "'";
  let out = "";
  for (const char of value) {
    const code = char.codePointAt(0) ?? 0;
    if (char === "\\" || char === quote) out += `\\${char}`;
    else if (char === "\n") out += "\\n";
    else if (char === "\r") out += "\\r";
    else if (char === "\t") out += "\\t";
    else if (char !== " " && /[\p{C}\p{Z}]/u.test(char)) {
      // not printable (Python's str.isprintable): escaped as Python escapes it
      const digits = code.toString(16);
      out += code < 0x100 ? `\\x${digits.padStart(2, "0")}` : code < 0x10000 ? `\\u${digits.padStart(4, "0")}` : `\\U${digits.padStart(8, "0")}`;
    } else out += char;
  }
  return `${quote}${out}${quote}`;
}

/** Whether a note holds a control character other than newlines (C0 controls). */
function hasControl(text: string): boolean {
  return /[\x00-\x09\x0b-\x1f]/.test(text);
}

// --- the tree (tree.py) ----------------------------------------------------------------

/** RFC 6962: a leaf is SHA-256(0x00 || entry). */
export async function leafHash(entry: Uint8Array): Promise<Bytes> {
  return sha256(new Uint8Array([0]), entry);
}

/** RFC 6962: a node is SHA-256(0x01 || left || right). */
export async function nodeHash(left: Uint8Array, right: Uint8Array): Promise<Bytes> {
  return sha256(new Uint8Array([1]), left, right);
}

/**
 * The root an audit path leads to from `leaf` at `index` in a tree of `size` (RFC 9162
 * section 2.1.3.2, step by step); `ProofError` for a proof of the wrong shape.
 */
export async function inclusionRoot(index: number | bigint, size: number | bigint, leaf: Uint8Array, proof: Uint8Array[]): Promise<Bytes> {
  if (proof.some((node) => node.length !== HASH_SIZE)) throw new ProofError("a proof's hash is not 32 bytes");
  const n = BigInt(size);
  if (typeof index === "number" && !Number.isSafeInteger(index)) throw new ProofError(`entry ${index} is not in a tree of ${n}`);
  const i = BigInt(index);
  if (!(0n <= i && i < n)) throw new ProofError(`entry ${i} is not in a tree of ${n}`);
  let fn = i;
  let sn = n - 1n;
  let r = concat(leaf);
  for (const p of proof) {
    if (sn === 0n) throw new ProofError("the inclusion proof is too long");
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
  if (sn !== 0n) throw new ProofError("the inclusion proof is too short");
  return r;
}

/** `ProofError` unless `proof` takes `leaf` at `index` to `root` (`check_inclusion`). */
export async function checkInclusion(index: number | bigint, size: number | bigint, leaf: Uint8Array, proof: Uint8Array[], root: Uint8Array): Promise<void> {
  if (!sameBytes(await inclusionRoot(index, size, leaf, proof), root)) {
    throw new ProofError("the inclusion proof does not lead to the root");
  }
}

// --- keys and notes (note.py) ----------------------------------------------------------

/** A named public key of one signature type (`ED25519` or `COSIGNATURE_V1`). */
export interface Verifier {
  name: string;
  kind: number;
  publicKey: Bytes;
  /** SHA-256(name || 0x0A || type || public key)[:4] */
  id: Bytes;
}

/** A key's 4-byte ID: `SHA-256(name || 0x0A || type || public key)[:4]`. */
export async function keyId(name: string, kind: number, publicKey: Uint8Array): Promise<Bytes> {
  return (await sha256(encoder.encode(`${name}\n`), new Uint8Array([kind]), publicKey)).slice(0, 4);
}

/** A key name: not empty, no space or `+`, printable (Python's `str.isprintable`). */
function checkName(name: string): void {
  if (!/^[^+\p{C}\p{Z}]+$/u.test(name)) {
    throw new NoteError(`a key name is not empty and has no space or '+': ${pyRepr(name)}`);
  }
}

/** A verifier from its text, `<name>+<hex ID>+base64(type || key)`; its ID must be its own. */
export async function parseVerifier(vkey: string): Promise<Verifier> {
  const text = pyStrip(vkey);
  const first = text.indexOf("+");
  const second = first < 0 ? -1 : text.indexOf("+", first + 1);
  const hexId = text.slice(first + 1, second);
  if (second < 0 || !/^[0-9a-f]{8}$/.test(hexId)) throw new NoteError(`not a verifier key (name+id+key): ${pyRepr(vkey)}`);
  const name = text.slice(0, first);
  checkName(name);
  const raw = b64decode(text.slice(second + 1));
  if (raw === null) throw new NoteError("a verifier key's key is not base64");
  if (raw.length !== 33 || (raw[0] !== ED25519 && raw[0] !== COSIGNATURE_V1)) {
    throw new NoteError("a verifier key here is an Ed25519 key (type 0x01 or 0x04)");
  }
  const kind = raw[0] as number;
  const publicKey = raw.slice(1);
  const id = await keyId(name, kind, publicKey);
  if (hex(id) !== hexId) throw new NoteError(`the verifier key's ID is not its name's and key's: ${pyRepr(vkey)}`);
  return { name, kind, publicKey, id };
}

/** The verifier key's text: `<name>+<hex ID>+base64(type || public key)`. */
export function verifierKey(verifier: Verifier): string {
  return `${verifier.name}+${hex(verifier.id)}+${b64encode(concat(new Uint8Array([verifier.kind]), verifier.publicKey))}`;
}

function sameVerifier(a: Verifier, b: Verifier): boolean {
  return a.name === b.name && a.kind === b.kind && sameBytes(a.publicKey, b.publicKey);
}

/**
 * Whether `signature` is `publicKey`'s Ed25519 signature of `message`, with WebCrypto, as
 * the receipt's own signature is checked (`receipt.ts`). A key that is not a point is a
 * signature that does not verify, as in Python; a browser without Ed25519 throws.
 */
async function ed25519Verifies(publicKey: Bytes, signature: Bytes, message: Bytes): Promise<boolean> {
  let key: CryptoKey;
  try {
    key = await crypto.subtle.importKey("raw", publicKey, { name: "Ed25519" }, false, ["verify"]);
  } catch (error) {
    if (error instanceof Error && error.name === "NotSupportedError") throw error;
    return false;
  }
  return crypto.subtle.verify({ name: "Ed25519" }, key, signature, message);
}

/** What a `cosignature/v1` signs: its header, its time and the checkpoint's text. */
export function cosignedMessage(text: string, timestamp: bigint): Bytes {
  return encoder.encode(`cosignature/v1\ntime ${timestamp}\n${text}`);
}

/** A note's text and its signature lines, read strictly (nothing checked yet). */
export function splitNote(note: string): { text: string; lines: string[] } {
  if ([...note].length > MAX_NOTE) throw new NoteError(`a note is at most ${MAX_NOTE} characters`);
  if (hasControl(note)) throw new NoteError("a note holds no control character but newlines");
  const at = note.lastIndexOf("\n\n");
  if (at < 0 || !note.endsWith("\n")) throw new NoteError("a note is its text, a blank line, and its signature lines");
  const text = note.slice(0, at + 1);
  const block = note.slice(at + 2);
  if (!block) throw new NoteError("a note has at least one signature");
  // Python's splitlines() also ends a line at U+0085, U+2028 and U+2029 (the only line
  // ends left once control characters are refused): such a line does not end in "\n".
  const lines = block.split(/(?<=[\n\x85\u2028\u2029])/);
  if (lines.length > MAX_SIGNATURES) throw new NoteError(`a note has at most ${MAX_SIGNATURES} signatures here`);
  for (const line of lines) {
    if (!/^\u2014 [^ +\n]+ [A-Za-z0-9+/=]+\n$/.test(line)) {
      throw new NoteError(`not a signature line: ${pyRepr(line.replace(/[\s\x85]+$/, ""))}`);
    }
  }
  return { text, lines };
}

/** A known key's signature on a note; a cosignature's time. */
export interface Signature {
  verifier: Verifier;
  timestamp: bigint | null;
  line: string;
}

/** A note whose signatures were checked: its text, the known ones, the unknown lines. */
export interface Opened {
  text: string;
  signatures: Signature[];
  unknown: string[];
}

/**
 * Check a note's signatures by the known keys; at least `required` must verify. A line of
 * a known key (name and ID both) must verify; lines of unknown keys are kept aside,
 * unchecked, as C2SP says (`open_note`).
 */
export async function openNote(note: string, verifiers: Verifier[], required = 1): Promise<Opened> {
  const { text, lines } = splitNote(note);
  const signatures: Signature[] = [];
  const unknown: string[] = [];
  for (const line of lines) {
    const [, name = "", encoded = ""] = line.split(" ");
    const raw = b64decode(pyStrip(encoded));
    if (raw === null) throw new NoteError(`the signature of ${name} is not base64`);
    const verifier = verifiers.find((v) => v.name === name && sameBytes(v.id, raw.slice(0, 4)));
    if (verifier === undefined) {
      unknown.push(line);
      continue;
    }
    let timestamp: bigint | null = null;
    let verifies: boolean;
    if (verifier.kind === COSIGNATURE_V1) {
      if (raw.length !== 4 + 8 + 64) throw new NoteError(`the cosignature of ${name} is not 76 bytes`);
      timestamp = new DataView(raw.buffer, raw.byteOffset + 4, 8).getBigUint64(0);
      verifies = await ed25519Verifies(verifier.publicKey, raw.slice(12), cosignedMessage(text, timestamp));
    } else {
      verifies = await ed25519Verifies(verifier.publicKey, raw.slice(4), encoder.encode(text));
    }
    if (!verifies) throw new NoteError(`the signature of ${verifier.name} does not verify`, "signature");
    if (signatures.some((s) => sameVerifier(s.verifier, verifier))) throw new NoteError(`${name} signs the note twice`);
    signatures.push({ verifier, timestamp, line });
  }
  if (signatures.length < required) {
    throw new NoteError(`${signatures.length} of the note's signatures are by a known key; ${required} needed`, "unsigned");
  }
  return { text, signatures, unknown };
}

/** A log's signed tree head: its origin, size and root hash, and any extension lines. */
export interface Checkpoint {
  origin: string;
  size: bigint;
  root: Bytes;
  extensions: string[];
}

/** The checkpoint's note text (what its signatures sign). */
export function checkpointText(checkpoint: Checkpoint): string {
  const lines = [checkpoint.origin, String(checkpoint.size), b64encode(checkpoint.root), ...checkpoint.extensions];
  return lines.map((line) => `${line}\n`).join("");
}

/** A checkpoint from its note text, in its one spelling (`Checkpoint.parse`). */
export function parseCheckpoint(text: string): Checkpoint {
  if (!text.endsWith("\n")) throw new NoteError("a note's text ends with a newline");
  if (hasControl(text)) throw new NoteError("a note holds no control character but newlines");
  const lines = text.slice(0, -1).split("\n");
  const [origin = "", size = "", root = ""] = lines;
  if (lines.length < 3 || !origin || lines.slice(3).some((line) => !line)) {
    throw new NoteError("a checkpoint is an origin, a size and a root hash, one a line");
  }
  if (!/^(?:0|[1-9][0-9]{0,19})$/.test(size) || BigInt(size) >= 1n << 64n) {
    throw new NoteError(`a checkpoint's size is a decimal number: ${pyRepr(size)}`);
  }
  const rootBytes = b64decode(root);
  if (rootBytes === null) throw new NoteError("a checkpoint's root hash is not base64");
  if (rootBytes.length !== HASH_SIZE) throw new NoteError("a checkpoint's root hash is 32 bytes");
  const checkpoint = { origin, size: BigInt(size), root: rootBytes, extensions: lines.slice(3) };
  if (checkpointText(checkpoint) !== text) throw new NoteError("not the checkpoint's one spelling");
  return checkpoint;
}

// --- entries (entries.py) --------------------------------------------------------------

/** A signed receipt, by the hash of its compact JWS. */
export interface ReceiptEntry {
  type: "receipt";
  receipt: string;
  deal: string;
  kind: string;
  variant: string;
  score: number;
  iat: number;
  kid: string;
  tournament?: string;
}

export interface RoundCommitment {
  type: "round-commitment";
  tournament: string;
  round: number;
  server_seed_hash: string;
}

export interface RoundReveal {
  type: "round-reveal";
  tournament: string;
  round: number;
  server_seed: string;
}

export interface Settlement {
  type: "settlement";
  tournament: string;
  digest: string;
}

export type Entry = ReceiptEntry | RoundCommitment | RoundReveal | Settlement;

type Member = "hex64" | "id" | "int" | "round";
/** Each type's members in their one order; `?` marks the one optional member. */
const MEMBERS: Readonly<Record<Entry["type"], ReadonlyArray<readonly [string, Member, boolean?]>>> = {
  receipt: [
    ["receipt", "hex64"],
    ["deal", "id"],
    ["kind", "id"],
    ["variant", "id"],
    ["score", "int"],
    ["iat", "int"],
    ["kid", "id"],
    ["tournament", "id", true],
  ],
  "round-commitment": [
    ["tournament", "id"],
    ["round", "round"],
    ["server_seed_hash", "hex64"],
  ],
  "round-reveal": [
    ["tournament", "id"],
    ["round", "round"],
    ["server_seed", "hex64"],
  ],
  settlement: [
    ["tournament", "id"],
    ["digest", "hex64"],
  ],
};

function memberProblem(value: unknown, member: Member): string | null {
  if (member === "int" || member === "round") {
    if (typeof value !== "number" || !Number.isInteger(value)) return `Expected \`int\`, got \`${jsonType(value)}\``;
    if (!Number.isSafeInteger(value)) return "Integer value out of range here (2**53)";
    return member === "round" && value < 1 ? "Expected `int` >= 1" : null;
  }
  if (typeof value !== "string") return `Expected \`str\`, got \`${jsonType(value)}\``;
  if (member === "hex64") return /^[0-9a-f]{64}$/.test(value) ? null : "Expected `str` matching regex '^[0-9a-f]{64}$'";
  if (value.length < 1) return "Expected `str` of length >= 1";
  if (value.length > 200) return "Expected `str` of length <= 200";
  return /^[!-~]+$/.test(value) ? null : "Expected `str` matching regex '^[!-~]+$'";
}

function jsonType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "int" : "float";
  if (typeof value === "boolean") return "bool";
  return typeof value === "string" ? "str" : "object";
}

/** The entry's one spelling: JSON with no white space, `type` first, members in order. */
export function encodeEntry(entry: Entry): Bytes {
  const fields = entry as unknown as Record<string, unknown>;
  const parts = [`"type":${JSON.stringify(entry.type)}`];
  for (const [name, , optional] of MEMBERS[entry.type]) {
    const value = fields[name];
    if (optional && (value === undefined || value === null)) continue;
    parts.push(`${JSON.stringify(name)}:${JSON.stringify(value)}`);
  }
  return encoder.encode(`{${parts.join(",")}}`);
}

/** The entry these bytes spell (`EntryError` for any other bytes), as `parse_entry`. */
export function parseEntry(data: Uint8Array): Entry {
  if (data.length > MAX_ENTRY_BYTES) throw new EntryError(`an entry is at most ${MAX_ENTRY_BYTES} bytes`);
  let value: unknown;
  try {
    value = JSON.parse(utf8.decode(data));
  } catch {
    throw new EntryError("a log entry is a JSON object");
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new EntryError(`not a log entry: Expected \`object\`, got \`${jsonType(value)}\``);
  }
  const object = value as Record<string, unknown>;
  if (!("type" in object)) throw new EntryError("not a log entry: Object missing required field `type`");
  const type = object["type"];
  if (typeof type !== "string" || !Object.hasOwn(MEMBERS, type)) {
    throw new EntryError(`not a log entry: Invalid value ${pyRepr(type)} - at \`$.type\``);
  }
  const members = MEMBERS[type as Entry["type"]];
  for (const name of Object.keys(object)) {
    if (name !== "type" && !members.some(([known]) => known === name)) {
      throw new EntryError(`not a log entry: Object contains unknown field \`${name}\``);
    }
  }
  for (const [name, member, optional] of members) {
    if (!(name in object)) {
      if (optional) continue;
      throw new EntryError(`not a log entry: Object missing required field \`${name}\``);
    }
    if (optional && object[name] === null) continue;
    const problem = memberProblem(object[name], member);
    if (problem) throw new EntryError(`not a log entry: ${problem} - at \`$.${name}\``);
  }
  const entry = object as unknown as Entry;
  if (!sameBytes(encodeEntry(entry), data)) {
    throw new EntryError("not the entry's one spelling (member order, spaces, escapes)");
  }
  return entry;
}

/** How an entry names a receipt: the SHA-256 of its compact JWS, lower-case hex. */
export async function receiptDigest(receipt: string): Promise<string> {
  return hex(await sha256(encoder.encode(receipt)));
}

/** A receipt that cannot be read (Python: `ReceiptError("malformed")` from `decode_receipt`). */
function unreadable(why: string): LogProofError {
  return new LogProofError("malformed", `the receipt cannot be read: ${why}`, "the receipt cannot be read");
}

/** Python's `str(value or "")`, for the header's `kid`. */
function pyStrOrEmpty(value: unknown): string {
  const empty = value === null || value === undefined || value === false || value === 0 || value === "";
  if (empty || (Array.isArray(value) && value.length === 0)) return "";
  if (value === true) return "True";
  return typeof value === "string" ? value : typeof value === "object" ? JSON.stringify(value) : String(value);
}

/**
 * The entry a receipt (a compact JWS) is logged as: what its header and payload say
 * (`receipt_entry`). `EntryError` for a receipt of no deal; `LogProofError("malformed")`
 * for one that cannot be read.
 */
export async function receiptEntry(receipt: string): Promise<ReceiptEntry> {
  const token = pyStrip(receipt);
  const parts = token.split(".");
  if (parts.length !== 3) throw unreadable("a receipt is a compact JWS: three base64url parts");
  let header: unknown;
  let payload: unknown;
  try {
    header = JSON.parse(utf8.decode(b64urlDecode(parts[0] ?? "")));
    payload = JSON.parse(utf8.decode(b64urlDecode(parts[1] ?? "")));
  } catch (error) {
    throw unreadable(String(error));
  }
  if (header === null || typeof header !== "object" || Array.isArray(header)) throw unreadable("the header is not a JSON object");
  if (payload === null || typeof payload !== "object" || Array.isArray(payload)) throw unreadable("the payload is not a JSON object");
  const p = payload as Record<string, unknown>;
  const score = p["score"] as Record<string, unknown> | null | undefined;
  const optionalString = (name: string): boolean => p[name] === undefined || p[name] === null || typeof p[name] === "string";
  const integer = (value: unknown): boolean => typeof value === "number" && Number.isSafeInteger(value);
  if (
    !("deal_id" in p) ||
    !optionalString("deal_id") ||
    !optionalString("kind") ||
    !optionalString("tournament") ||
    typeof p["variant"] !== "string" ||
    score === null ||
    typeof score !== "object" ||
    !integer(score["total"]) ||
    !integer(p["issued_at"]) ||
    !(p["iat"] === undefined || p["iat"] === null || integer(p["iat"]))
  ) {
    throw unreadable("its payload is not a receipt's");
  }
  if (typeof p["deal_id"] !== "string" || typeof p["kind"] !== "string") {
    throw new EntryError("a receipt of no deal (practice, or older than kinds) is not logged");
  }
  const entry: ReceiptEntry = {
    type: "receipt",
    receipt: await receiptDigest(token),
    deal: p["deal_id"],
    kind: p["kind"],
    variant: p["variant"],
    score: score["total"] as number,
    iat: (p["iat"] ?? p["issued_at"]) as number,
    kid: pyStrOrEmpty((header as Record<string, unknown>)["kid"]),
  };
  if (typeof p["tournament"] === "string") entry.tournament = p["tournament"];
  return entry;
}

// --- a receipt in the log (inclusion.py) -----------------------------------------------

/** A receipt's place in the log, as the service answers it (all base64, a note). */
export interface LogProof {
  index: number;
  entry: string;
  checkpoint: string;
  proof: string[];
}

/** Which witnesses a verifier trusts (`cosignature/v1` keys), and how many must have cosigned. */
export interface WitnessPolicy {
  witnesses: Verifier[];
  quorum: number;
}

/** A receipt the log holds: where, in which tree, and since when (by the witnesses). */
export interface Logged {
  index: number;
  size: bigint;
  origin: string;
  entry: ReceiptEntry;
  /** When the quorum of witnesses had all seen a tree holding it; null with no witnesses. */
  cosignedAt: bigint | null;
}

function readLogProof(log: unknown): LogProof {
  const shape = "the log answer is not {index, entry, checkpoint, proof}";
  if (log === null || typeof log !== "object" || Array.isArray(log)) throw new LogProofError("malformed", shape, "a malformed log answer");
  const answer = log as Record<string, unknown>;
  const known = ["index", "entry", "checkpoint", "proof"];
  const extra = Object.keys(answer).find((name) => !known.includes(name));
  const proof = answer["proof"];
  if (
    extra !== undefined ||
    !Number.isSafeInteger(answer["index"]) ||
    typeof answer["entry"] !== "string" ||
    typeof answer["checkpoint"] !== "string" ||
    !Array.isArray(proof) ||
    !proof.every((node) => typeof node === "string")
  ) {
    throw new LogProofError("malformed", extra === undefined ? shape : `${shape}: ${extra}`, "a malformed log answer");
  }
  return answer as unknown as LogProof;
}

const NO_WITNESSES: WitnessPolicy = { witnesses: [], quorum: 0 };

/**
 * Check that the log holds `receipt` where `log` says, under the log's verifier key
 * (`logKey`: its text, as `GET /log/key` answers it, or parsed), with the checks of
 * `check_in_log` in its order; a `LogProofError` names the first that fails.
 */
export async function checkInLog(receipt: string, log: unknown, logKey: string | Verifier, policy: WitnessPolicy = NO_WITNESSES): Promise<Logged> {
  const answer = readLogProof(log);
  let key: Verifier;
  try {
    key = typeof logKey === "string" ? await parseVerifier(logKey) : logKey;
  } catch (error) {
    if (!(error instanceof NoteError)) throw error;
    throw new LogProofError("log-key", `the log's key: ${error.message}`, "the log's key cannot be read");
  }
  if (!(policy.quorum >= 0 && policy.quorum <= policy.witnesses.length) || policy.witnesses.some((w) => w.kind !== COSIGNATURE_V1)) {
    throw new RangeError("a witness policy is a quorum its cosignature/v1 keys can reach");
  }
  // 1. the checkpoint, signed by the log's key, of the log's name
  let opened: Opened;
  let checkpoint: Checkpoint;
  try {
    opened = await openNote(answer.checkpoint, [key, ...policy.witnesses]);
    checkpoint = parseCheckpoint(opened.text);
  } catch (error) {
    if (!(error instanceof NoteError)) throw error;
    const check = {
      signature: "bad checkpoint signature",
      unsigned: "the checkpoint is not signed by the log's key",
      form: "a malformed checkpoint",
    }[error.reason];
    throw new LogProofError("checkpoint", `the checkpoint: ${error.message}`, check);
  }
  if (!opened.signatures.some((s) => sameVerifier(s.verifier, key))) {
    throw new LogProofError("checkpoint", "the checkpoint is not signed by the log's key", "the checkpoint is not signed by the log's key");
  }
  if (checkpoint.origin !== key.name) {
    throw new LogProofError("checkpoint", `the checkpoint is of ${pyRepr(checkpoint.origin)}, not ${pyRepr(key.name)}`, "the checkpoint is another log's");
  }
  // 2. the witnesses
  const times = opened.signatures
    .map((s) => s.timestamp)
    .filter((t): t is bigint => t !== null)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  if (times.length < policy.quorum) {
    throw new LogProofError(
      "witnesses",
      `${times.length} of the trusted witnesses cosigned the checkpoint; ${policy.quorum} needed`,
      "too few witnesses cosigned the checkpoint",
    );
  }
  // 3. the entry, in its one spelling, of this receipt, saying what it says
  const data = b64decode(answer.entry);
  if (data === null) throw new LogProofError("malformed", "the entry is not base64", "a malformed log answer");
  let entry: Entry;
  try {
    entry = parseEntry(data);
  } catch (error) {
    if (!(error instanceof EntryError)) throw error;
    throw new LogProofError("entry", `the entry: ${error.message}`, "a malformed entry");
  }
  if (entry.type !== "receipt") throw new LogProofError("entry", "the entry is not a receipt's", "the entry is not a receipt's");
  await checkEntry(receipt, entry);
  // 4. the entry at its index in the checkpoint's tree
  const proof = answer.proof.map((node) => {
    const hash = b64decode(node);
    if (hash === null) throw new LogProofError("malformed", "a proof hash is not base64", "a malformed log answer");
    return hash;
  });
  try {
    await checkInclusion(answer.index, checkpoint.size, await leafHash(data), proof, checkpoint.root);
  } catch (error) {
    if (!(error instanceof ProofError)) throw error;
    throw new LogProofError("inclusion", `the entry is not in the tree: ${error.message}`, "bad inclusion proof");
  }
  const cosignedAt = policy.quorum ? (times[policy.quorum - 1] ?? null) : null;
  return { index: answer.index, size: checkpoint.size, origin: checkpoint.origin, entry, cosignedAt };
}

/** The entry names this receipt and says what it says (`_check_entry`). */
async function checkEntry(receipt: string, entry: ReceiptEntry): Promise<void> {
  if (entry.receipt !== (await receiptDigest(pyStrip(receipt)))) {
    throw new LogProofError("entry", "the entry names another receipt", "the entry does not name this receipt");
  }
  let stated: ReceiptEntry;
  try {
    stated = await receiptEntry(receipt);
  } catch (error) {
    if (!(error instanceof EntryError)) throw error;
    throw new LogProofError("entry", error.message, "the receipt is not one the log keeps");
  }
  const found = entry as unknown as Record<string, unknown>;
  const says = stated as unknown as Record<string, unknown>;
  for (const [member] of MEMBERS.receipt) {
    const value = says[member] ?? null;
    if ((found[member] ?? null) !== value) {
      throw new LogProofError(
        "entry",
        `the entry's ${member} is ${pyRepr(found[member])}; the receipt says ${pyRepr(value)}`,
        "the entry does not say what the receipt says",
      );
    }
  }
}

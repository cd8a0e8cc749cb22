/**
 * The page's log checks (src/tlog.ts) against the Python reference: the vectors of
 * tests/vectors/log-v1.json (tests/vectors/make_log.py: leaf hashes, the roots and audit
 * paths of a tree of eight, a checkpoint signed by a test log key and cosigned by a test
 * witness), outputs of `cardproof.tlog` written down here (base64 as Python reads it, the
 * entries of two receipts of tests/vectors/receipts.json), and, with the vectors' own test
 * keys (their seeds are make_log.py's), a log holding those receipts: `checkInLog` finds
 * each, and refuses each hand-made change with the check and the code `check_in_log` gives.
 */

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { b64urlDecode } from "../src/receipt";
import {
  b64decode,
  b64encode,
  checkInclusion,
  checkInLog,
  checkpointText,
  COSIGNATURE_V1,
  ED25519,
  encodeEntry,
  EntryError,
  hex,
  inclusionRoot,
  keyId,
  leafHash,
  type LogProof,
  LogProofError,
  nodeHash,
  NoteError,
  openNote,
  parseCheckpoint,
  parseEntry,
  parseVerifier,
  ProofError,
  receiptDigest,
  receiptEntry,
  splitNote,
  type Verifier,
  verifierKey,
} from "../src/tlog";

type Bytes = Uint8Array<ArrayBuffer>;

const vectors = JSON.parse(readFileSync(new URL("../../../tests/vectors/log-v1.json", import.meta.url), "utf8")) as {
  entries: Array<{ entry: string; leaf_hash: string }>;
  tree: { entries: string[]; size: number; root: string; roots: string[]; inclusion: string[][] };
  log_vkey: string;
  witness_vkey: string;
  checkpoint: string;
  cosigned_at: number;
};
const receipts = (JSON.parse(readFileSync(new URL("../../../tests/vectors/receipts.json", import.meta.url), "utf8")) as Array<{ receipt: string; kind?: string }>).map((r) => r.receipt);
const PRACTICE = 5; // receipts.json's practice receipt: no deal, not logged
const encoder = new TextEncoder();
const decoder = new TextDecoder();

function b64(text: string): Bytes {
  const bytes = b64decode(text);
  assert.ok(bytes, `not base64: ${text}`);
  return bytes;
}

async function sha256(data: Uint8Array): Promise<Bytes> {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", new Uint8Array(data)));
}

/** The thrown error, which must be of `kind`. */
async function thrown<E extends Error>(run: () => unknown, kind: new (...args: never[]) => E): Promise<E> {
  try {
    await run();
  } catch (error) {
    assert.ok(error instanceof kind, `${String(error)} is not a ${kind.name}`);
    return error;
  }
  assert.fail(`not refused (a ${kind.name} expected)`);
}

/** The check's refusal: its code, its failed check in words, and its message. */
async function refused(run: () => unknown, code: string, check: string | RegExp, message?: RegExp): Promise<LogProofError> {
  const error = await thrown(run, LogProofError);
  assert.equal(error.code, code, error.message);
  if (typeof check === "string") assert.equal(error.check, check, error.message);
  else assert.match(error.check, check);
  if (message) assert.match(error.message, message);
  return error;
}

// --- the vectors' test keys, to sign with (make_log.py's seeds) ---------------------------

interface Signer {
  verifier: Verifier;
  line(text: string, timestamp?: bigint): Promise<string>;
}

/** An Ed25519 signer of notes from its 32-byte seed (PKCS #8 is the seed behind a fixed prefix). */
async function signer(name: string, seed: Uint8Array, kind = ED25519): Promise<Signer> {
  const pkcs8 = new Uint8Array([...Buffer.from("302e020100300506032b657004220420", "hex"), ...seed]);
  const key = await crypto.subtle.importKey("pkcs8", pkcs8, { name: "Ed25519" }, true, ["sign"]);
  const jwk = await crypto.subtle.exportKey("jwk", key);
  const publicKey = b64urlDecode(jwk.x ?? "");
  const verifier = { name, kind, publicKey, id: await keyId(name, kind, publicKey) };
  return {
    verifier,
    async line(text: string, timestamp?: bigint): Promise<string> {
      let body: Uint8Array;
      if (kind === COSIGNATURE_V1) {
        const time = new Uint8Array(8);
        new DataView(time.buffer).setBigUint64(0, timestamp ?? 0n);
        const signature = await crypto.subtle.sign({ name: "Ed25519" }, key, encoder.encode(`cosignature/v1\ntime ${timestamp}\n${text}`));
        body = new Uint8Array([...time, ...new Uint8Array(signature)]);
      } else {
        body = new Uint8Array(await crypto.subtle.sign({ name: "Ed25519" }, key, encoder.encode(text)));
      }
      return `\u2014 ${name} ${b64encode(new Uint8Array([...verifier.id, ...body]))}\n`;
    },
  };
}

const LOG = "cardproof.example/log";
const logSigner = signer(LOG, await sha256(encoder.encode("cardproof test log key")));
const witnessSigner = signer("witness.example/w1", await sha256(encoder.encode("cardproof test witness key")), COSIGNATURE_V1);
const otherSigner = signer("other.example/log", await sha256(encoder.encode("another log's key")));

async function signed(text: string, ...signers: Signer[]): Promise<string> {
  return `${text}\n${(await Promise.all(signers.map((s) => s.line(text)))).join("")}`;
}

// --- a tree, as RFC 6962 defines it (the test's own, checked against the vectors) --------

function split(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

async function mth(leaves: Bytes[]): Promise<Bytes> {
  if (leaves.length === 0) return sha256(new Uint8Array());
  if (leaves.length === 1) return leaves[0] as Bytes;
  const k = split(leaves.length);
  return nodeHash(await mth(leaves.slice(0, k)), await mth(leaves.slice(k)));
}

/** RFC 6962's PATH(m, D[n]), bottom up. */
async function auditPath(index: number, leaves: Bytes[]): Promise<Bytes[]> {
  if (leaves.length <= 1) return [];
  const k = split(leaves.length);
  if (index < k) return [...(await auditPath(index, leaves.slice(0, k))), await mth(leaves.slice(k))];
  return [...(await auditPath(index - k, leaves.slice(k))), await mth(leaves.slice(0, k))];
}

// --- base64, hashes and the tree ------------------------------------------------------------

test("base64 is read as Python's b64decode(validate=True) reads it", () => {
  // as cardproof.tlog reads it (Python 3.11): written down from Python
  const cases: Array<[string, string | null]> = [
    ["", ""],
    ["QQ==", "41"],
    ["QR==", "41"], // stray low bits: ignored
    ["QUI=", "4142"],
    ["QUJ=", "4142"],
    ["QUJD", "414243"],
    ["QUJD=", "414243"], // padding after a whole group: allowed
    ["QUJD====", "414243"],
    ["A/+=", "03ff"],
    ["QQ=", null],
    ["QQ", null],
    ["QUJ==", null],
    ["QUJDQQ===", null],
    ["Q", null],
    ["QUJDQ", null],
    ["=", null],
    ["Q=Q=", null],
    ["QQ==Q", null],
    ["QUJD\n", null],
    [" QUJD", null],
    ["-_8=", null],
  ];
  for (const [text, want] of cases) {
    const got = b64decode(text);
    assert.equal(got === null ? null : hex(got), want, JSON.stringify(text));
  }
  assert.equal(b64encode(b64("A/+=")), "A/8=");
});

test("leaf hashes, and each vector entry in its one spelling", async () => {
  for (const vector of vectors.entries) {
    const data = encoder.encode(vector.entry);
    assert.equal(hex(await leafHash(data)), vector.leaf_hash);
    assert.deepEqual(encodeEntry(parseEntry(data)), data);
  }
  assert.deepEqual(
    vectors.entries.map((v) => parseEntry(encoder.encode(v.entry)).type),
    ["receipt", "receipt", "round-commitment", "round-reveal", "settlement"],
  );
});

test("every root and audit path of the vectors' tree", async () => {
  const { entries, size, root, roots, inclusion } = vectors.tree;
  const leaves = await Promise.all(entries.map((e) => leafHash(encoder.encode(e))));
  for (const [n, want] of roots.entries()) assert.equal(b64encode(await mth(leaves.slice(0, n))), want, `root of ${n}`);
  for (const [index, path] of inclusion.entries()) {
    const proof = path.map(b64);
    assert.deepEqual(proof.map(hex), (await auditPath(index, leaves)).map(hex), `the test's PATH of ${index}`);
    assert.equal(b64encode(await inclusionRoot(index, size, leaves[index] as Bytes, proof)), root, `entry ${index}`);
    await checkInclusion(index, size, leaves[index] as Bytes, proof, b64(root));
  }
});

test("a changed proof, index, size or leaf is refused", async () => {
  const { entries, size, root, inclusion } = vectors.tree;
  const path = (inclusion[3] ?? []).map(b64);
  const leaf = await leafHash(encoder.encode(entries[3] ?? ""));
  const check = (index: number, n: number, l: Uint8Array, p: Uint8Array[]) => () => checkInclusion(index, n, l, p, b64(root));
  const flipped = path.map((node, i) => (i === 1 ? node.map((b, j) => (j === 0 ? b ^ 1 : b)) : node));
  const leads = /does not lead to the root/;
  assert.match((await thrown(check(3, size, leaf, flipped), ProofError)).message, leads);
  assert.match((await thrown(check(2, size, leaf, path), ProofError)).message, leads);
  assert.match((await thrown(check(3, size, await leafHash(encoder.encode("other")), path), ProofError)).message, leads);
  assert.match((await thrown(check(3, size, leaf, path.slice(1)), ProofError)).message, /too short/);
  assert.match((await thrown(check(3, size, leaf, [...path, path[0] as Bytes]), ProofError)).message, /too long/);
  assert.match((await thrown(check(size, size, leaf, path), ProofError)).message, /entry 8 is not in a tree of 8/);
  assert.match((await thrown(check(-1, size, leaf, path), ProofError)).message, /entry -1 is not in a tree of 8/);
  assert.match((await thrown(check(3, size + 1, leaf, path), ProofError)).message, /too short/); // another shape
  assert.match((await thrown(check(3, size, leaf, [path[0]?.slice(1) as Bytes]), ProofError)).message, /not 32 bytes/);
});

// --- keys and notes --------------------------------------------------------------------------

test("the vectors' checkpoint: signed by the log's key, cosigned by the witness", async () => {
  const log = await parseVerifier(vectors.log_vkey);
  const witness = await parseVerifier(vectors.witness_vkey);
  assert.deepEqual([log.name, log.kind, witness.name, witness.kind], [LOG, ED25519, "witness.example/w1", COSIGNATURE_V1]);
  assert.equal(verifierKey(log), vectors.log_vkey);
  assert.equal(verifierKey(witness), vectors.witness_vkey);
  assert.equal(verifierKey((await logSigner).verifier), vectors.log_vkey); // the test's signers are the vectors' keys
  assert.equal(verifierKey((await witnessSigner).verifier), vectors.witness_vkey);
  const alone = await openNote(vectors.checkpoint, [log]);
  assert.equal(alone.signatures.length, 1);
  assert.equal(alone.unknown.length, 1); // the witness's line: not a known key, kept unchecked
  const both = await openNote(vectors.checkpoint, [log, witness]);
  assert.deepEqual(both.signatures.map((s) => s.timestamp), [null, BigInt(vectors.cosigned_at)]);
  const checkpoint = parseCheckpoint(both.text);
  assert.deepEqual([checkpoint.origin, checkpoint.size, b64encode(checkpoint.root)], [LOG, 8n, vectors.tree.root]);
  assert.equal(checkpointText(checkpoint), both.text);
  const tampered = vectors.checkpoint.replace("\n8\n", "\n9\n");
  const error = await thrown(() => openNote(tampered, [log]), NoteError);
  assert.deepEqual([error.message, error.reason], [`the signature of ${LOG} does not verify`, "signature"]);
  const another = await parseVerifier(verifierKey((await otherSigner).verifier));
  const unsigned = await thrown(() => openNote(vectors.checkpoint, [another]), NoteError);
  assert.deepEqual([unsigned.message, unsigned.reason], ["0 of the note's signatures are by a known key; 1 needed", "unsigned"]);
});

test("a note is read strictly, as note.py reads it", async () => {
  const log = (await logSigner).verifier;
  const note = vectors.checkpoint;
  const [text = "", block = ""] = note.split("\n\n");
  const logLine = `${block.split("\n")[0]}\n`;
  const malformed: Array<[string, RegExp]> = [
    [note.slice(0, -1), /a note is its text, a blank line, and its signature lines/],
    [`${text}\n`, /a note is its text, a blank line/], // no blank line before the signatures
    [`${text}\n\n`, /a note has at least one signature/],
    [note.replace("\n\n", "\r\n\n"), /no control character but newlines/],
    [note.replace("\n8\n", "\n8\t\n"), /no control character but newlines/],
    [`${note}${"\u2014 k QUJD\n".repeat(31)}`, /at most 32 signatures/],
    [note.replace(/\u2014/g, "-"), /not a signature line/],
    [note.replace(`\u2014 ${LOG} `, `\u2014  ${LOG} `), /not a signature line/],
    [note.replace(`\u2014 ${LOG} `, `\u2014 ${LOG}+x `), /not a signature line/],
    [note.replace(`\u2014 ${LOG} `, `\u2014 cardproof\u2028example/log `), /not a signature line: '\u2014 cardproof'/],
    [note.replace(`\u2014 ${LOG} `, `\u2014 ${LOG}\x85 `), /not a signature line/],
    [`${note.slice(0, -1)} \n`, /not a signature line/],
    [`${"x".repeat(65536)}${note}`, /at most 65536 characters/],
    [`${note}${logLine}`, new RegExp(`${LOG} signs the note twice`)],
    [note.replace(logLine, logLine.replace(/=\n$/, "==\n")), /the signature of cardproof\.example\/log is not base64/],
  ];
  for (const [bad, why] of malformed) {
    assert.match((await thrown(() => openNote(bad, [log]), NoteError)).message, why, JSON.stringify(bad.slice(-90)));
  }
  assert.equal(splitNote(`${note}${"\u2014 k QUJD\n".repeat(30)}`).lines.length, 32); // 32 may be
  // a line of the log's name under another key ID is another key's: set aside, unchecked
  const impostor = await signer(LOG, await sha256(encoder.encode("an impostor's key")));
  const withImpostor = `${note}${await impostor.line(text)}`;
  const opened = await openNote(withImpostor, [log]);
  assert.deepEqual([opened.signatures.length, opened.unknown.length], [1, 2]);
  const onlyImpostor = await thrown(() => openNote(`${text}\n\n${opened.unknown[1] ?? ""}`, [log]), NoteError);
  assert.equal(onlyImpostor.message, "0 of the note's signatures are by a known key; 1 needed");
  const flipped = logLine.replace(/[A-Za-z0-9](?=[A-Za-z0-9+/]{20}=*\n$)/, (c) => (c === "A" ? "B" : "A"));
  assert.match((await thrown(() => openNote(note.replace(logLine, flipped), [log]), NoteError)).message, /does not verify/);
});

test("a checkpoint is read in its one spelling", async () => {
  const good = checkpointText({ origin: LOG, size: 8n, root: b64(vectors.tree.root), extensions: [] });
  assert.equal(parseCheckpoint(good).size, 8n);
  assert.deepEqual(parseCheckpoint(`${good}ext one\n`).extensions, ["ext one"]);
  assert.equal(parseCheckpoint(good.replace("\n8\n", "\n18446744073709551615\n")).size, 2n ** 64n - 1n);
  const malformed: Array<[string, RegExp]> = [
    [good.slice(0, -1), /ends with a newline/],
    [`${good}\n`, /an origin, a size and a root hash, one a line/], // an empty extension line
    [`\n8\n${vectors.tree.root}\n`, /an origin, a size and a root hash/],
    [`${LOG}\n8\n`, /an origin, a size and a root hash/],
    [good.replace("\n8\n", "\n08\n"), /size is a decimal number: '08'/],
    [good.replace("\n8\n", "\n-1\n"), /size is a decimal number/],
    [good.replace("\n8\n", "\n8.0\n"), /size is a decimal number/],
    [good.replace("\n8\n", "\n18446744073709551616\n"), /size is a decimal number/],
    [good.replace(vectors.tree.root, vectors.tree.root.slice(0, -2)), /root hash is not base64/],
    [good.replace(vectors.tree.root, b64encode(new Uint8Array(31))), /root hash is 32 bytes/],
    [good.replace(/=\n/, "==\n"), /root hash is not base64/],
    [good.replace(/c=\n/, "d=\n"), /not the checkpoint's one spelling/], // stray low bits
  ];
  for (const [bad, why] of malformed) assert.match((await thrown(() => parseCheckpoint(bad), NoteError)).message, why, JSON.stringify(bad));
});

test("a verifier key is read as note.py reads it", async () => {
  assert.equal((await parseVerifier(` ${vectors.log_vkey}\n`)).name, LOG);
  const [name = "", id = "", material = ""] = vectors.log_vkey.split("+");
  const type2 = b64encode(new Uint8Array([2, ...new Uint8Array(32)]));
  const malformed: Array<[string, RegExp]> = [
    [`${name}+${id.toUpperCase()}+${material}`, /not a verifier key/],
    [`${name}+${material}`, /not a verifier key/],
    [`other.example/log+${id}+${material}`, /ID is not its name's and key's/], // another origin's name
    [`a b+${id}+${material}`, /a key name is not empty and has no space/],
    [`x\u00ad+${id}+${material}`, /a key name is not empty.*'x\\xad'/],
    [`+${id}+${material}`, /a key name is not empty/],
    [`${name}+${id}+${material.slice(0, -1)}`, /a verifier key's key is not base64/],
    [`${name}+${id}+${type2}`, /type 0x01 or 0x04/],
    [`${name}+${id}+${b64encode(new Uint8Array(32).fill(1))}`, /type 0x01 or 0x04/],
  ];
  for (const [bad, why] of malformed) assert.match((await thrown(() => parseVerifier(bad), NoteError)).message, why, bad);
});

// --- entries ---------------------------------------------------------------------------------

test("an entry is read in its one spelling, as entries.py reads it", () => {
  const receipt = vectors.entries[0]?.entry ?? "";
  const good = JSON.parse(receipt) as Record<string, unknown>;
  const join = (value: Record<string, unknown>) => encoder.encode(JSON.stringify(value));
  const malformed: Array<[Uint8Array, RegExp]> = [
    [encoder.encode("{nope"), /a log entry is a JSON object/],
    [new Uint8Array([0x7b, 0x22, 0xff, 0x22, 0x7d]), /a log entry is a JSON object/], // not UTF-8
    [encoder.encode("[]"), /Expected `object`, got `array`/],
    [encoder.encode("{}"), /missing required field `type`/],
    [join({ ...good, type: "other" }), /Invalid value 'other' - at `\$\.type`/],
    [join({ ...good, extra: 1 }), /unknown field `extra`/],
    [join({ type: "settlement", tournament: "t_1" }), /missing required field `digest`/],
    [encoder.encode(receipt.replace(/"score":(\d+)/, '"score":$1.0')), /not the entry's one spelling/],
    [join({ ...good, score: true }), /Expected `int`, got `bool`/],
    [join({ ...good, score: 1.5 }), /Expected `int`, got `float`/],
    [join({ ...good, score: 2 ** 60 }), /out of range/],
    [join({ ...good, deal: "d 1" }), /regex/],
    [join({ ...good, deal: "d\n" }), /regex/], // Python's `$` lets a final newline through: not here
    [join({ ...good, deal: "d".repeat(201) }), /length <= 200/],
    [join({ ...good, kid: "" }), /length >= 1/],
    [join({ ...good, receipt: String(good["receipt"]).toUpperCase() }), /regex '\^\[0-9a-f\]\{64\}\$'/],
    [join({ type: "round-reveal", tournament: "t", round: 0, server_seed: "a".repeat(64) }), /Expected `int` >= 1/],
    [encoder.encode(receipt.replace("{", "{ ")), /not the entry's one spelling/],
    [join(Object.fromEntries(Object.entries(good).reverse())), /not the entry's one spelling/],
    [join({ ...good, tournament: null }), /not the entry's one spelling/],
    [encoder.encode(receipt.replace('"deal":"d', '"deal":"\\u0064')), /not the entry's one spelling/],
    [encoder.encode(`${receipt.slice(0, -1)},"kid":"x"}`), /not the entry's one spelling/], // a member twice
    [encoder.encode(" ".repeat(4097)), /at most 4096 bytes/],
  ];
  for (const [bad, why] of malformed) {
    const error = (() => {
      try {
        parseEntry(bad);
      } catch (e) {
        return e;
      }
      return null;
    })();
    assert.ok(error instanceof EntryError, `not refused: ${decoder.decode(bad).slice(0, 120)}`);
    assert.match(error.message, why);
  }
  const escaped = join({ ...good, deal: 'd"\\' }); // JSON's own escapes, as msgspec writes them
  assert.deepEqual(encodeEntry(parseEntry(escaped)), escaped);
});

test("the entry a receipt is logged as is the SDK's", async () => {
  // cardproof.tlog.entries.receipt_entry, written down from Python (one without iat, one with)
  const first =
    '{"type":"receipt","receipt":"b2957b141bc9cff4a8669a394c27fac18b0ab9060c0a09ce05bf1609e934b0fe","deal":"d_BeKEsJq9toGbw0GWUj-VgA",' +
    '"kind":"committed-blind","variant":"poker-squares","score":0,"iat":1795606220,"kid":"9ZP03Nu8GrXPAUkbKNxHOKBzxPX83SShgFkRNK-f2lw"}';
  const last =
    '{"type":"receipt","receipt":"beda0600aa67e18c26237a0b2d0257d67d117c6e6235fb6fce56a1a7878511d8","deal":"d__jghZFbNcWU2ShiBzumZF_",' +
    '"kind":"committed-blind","variant":"repeat-poker","score":1340,"iat":1795724996,"kid":"9ZP03Nu8GrXPAUkbKNxHOKBzxPX83SShgFkRNK-f2lw"}';
  assert.equal(decoder.decode(encodeEntry(await receiptEntry(receipts[0] ?? ""))), first);
  assert.equal(decoder.decode(encodeEntry(await receiptEntry(`\n ${receipts.at(-1) ?? ""} \n`))), last);
  assert.equal((await receiptEntry(receipts[0] ?? "")).receipt, await receiptDigest(receipts[0] ?? ""));
  assert.match((await thrown(() => receiptEntry(receipts[PRACTICE] ?? ""), EntryError)).message, /a receipt of no deal/);
  await refused(() => receiptEntry("a.b"), "malformed", "the receipt cannot be read");
});

// --- checkInLog ------------------------------------------------------------------------------

/** A log of the vectors' eight entries and the entries of receipts.json's logged receipts. */
interface TestLog {
  entries: Bytes[];
  leaves: Bytes[];
  /** The receipt logged at each index (none for the vectors' entries). */
  at: Map<number, string>;
  note: string;
  text: string;
  answer(index: number, note?: string): Promise<LogProof>;
}

async function testLog(): Promise<TestLog> {
  const entries = vectors.tree.entries.map((e) => encoder.encode(e));
  const at = new Map<number, string>();
  for (const [k, receipt] of receipts.entries()) {
    if (k === PRACTICE) continue;
    at.set(entries.length, receipt);
    entries.push(encodeEntry(await receiptEntry(receipt)));
  }
  const leaves = await Promise.all(entries.map((e) => leafHash(e)));
  const text = checkpointText({ origin: LOG, size: BigInt(entries.length), root: await mth(leaves), extensions: [] });
  const note = await signed(text, await logSigner);
  return {
    entries,
    leaves,
    at,
    note,
    text,
    async answer(index: number, checkpoint = note): Promise<LogProof> {
      const proof = (await auditPath(index, leaves)).map(b64encode);
      return { index, entry: b64encode(entries[index] as Bytes), checkpoint, proof };
    },
  };
}

const built = testLog();

test("checkInLog finds each receipt at its index, under the log's key", async () => {
  const log = await built;
  assert.equal(log.at.size, receipts.length - 1);
  for (const [index, receipt] of log.at) {
    const found = await checkInLog(receipt, await log.answer(index), vectors.log_vkey);
    assert.deepEqual([found.index, found.size, found.origin, found.cosignedAt], [index, BigInt(log.entries.length), LOG, null]);
    assert.deepEqual(found.entry, await receiptEntry(receipt));
  }
  const [index, receipt] = [...log.at][3] as [number, string];
  assert.equal((await checkInLog(` ${receipt}\n`, await log.answer(index), vectors.log_vkey)).index, index); // white space around
  assert.equal((await checkInLog(receipt, await log.answer(index), await parseVerifier(vectors.log_vkey))).index, index);
});

test("checkInLog refuses each changed input with check_in_log's check and code", async () => {
  const log = await built;
  const [index, receipt] = [...log.at][2] as [number, string]; // an entry with an audit path of 5
  const good = await log.answer(index);
  const other = [...log.at][3] as [number, string];
  const key = vectors.log_vkey;
  const entry = JSON.parse(decoder.decode(log.entries[index])) as Record<string, unknown>;
  const withEntry = (value: Record<string, unknown>) => ({ ...good, entry: b64encode(encodeEntry(value as never)) });
  const flip = (text: string, at: number) => b64encode(b64(text).map((b, i) => (i === at ? b ^ 1 : b)));
  assert.equal(good.proof.length, 5);

  // a flipped proof byte, in every hash of the path
  for (const [i, node] of good.proof.entries()) {
    const proof = good.proof.map((p, j) => (j === i ? flip(node, 31 - i) : p));
    await refused(() => checkInLog(receipt, { ...good, proof }, key), "inclusion", "bad inclusion proof", /does not lead to the root/);
  }
  // a wrong index
  for (const moved of [index - 1, index + 1, 0]) {
    await refused(() => checkInLog(receipt, { ...good, index: moved }, key), "inclusion", "bad inclusion proof");
  }
  await refused(() => checkInLog(receipt, { ...good, index: log.entries.length }, key), "inclusion", "bad inclusion proof", /entry 18 is not in a tree of 18/);
  await refused(() => checkInLog(receipt, { ...good, proof: good.proof.slice(0, -1) }, key), "inclusion", "bad inclusion proof", /too short/);
  await refused(() => checkInLog(receipt, { ...good, proof: [...good.proof, good.proof[0] ?? ""] }, key), "inclusion", "bad inclusion proof", /too long/);
  // a wrong entry: another receipt's (with its own, good, proof), a changed one, a misspelled one
  const ofAnother = await log.answer(other[0]);
  await refused(() => checkInLog(receipt, ofAnother, key), "entry", "the entry does not name this receipt", /names another receipt/);
  await refused(() => checkInLog(receipt, { ...good, entry: ofAnother.entry }, key), "entry", "the entry does not name this receipt");
  for (const [member, value] of [
    ["score", Number(entry["score"]) + 1],
    ["deal", `${String(entry["deal"])}x`],
    ["kind", entry["kind"] === "committed-open" ? "committed-blind" : "committed-open"],
    ["variant", entry["variant"] === "poker-squares" ? "poker-patience" : "poker-squares"],
    ["iat", Number(entry["iat"]) - 1],
    ["kid", `${String(entry["kid"])}x`],
    ["tournament", "t_another"], // a receipt of no tournament
  ] as const) {
    await refused(
      () => checkInLog(receipt, withEntry({ ...entry, [member]: value }), key),
      "entry",
      "the entry does not say what the receipt says",
      new RegExp(`^the entry's ${member} is `),
    );
  }
  await refused(
    () => checkInLog(receipt, { ...good, entry: b64encode(encoder.encode(JSON.stringify(entry, null, 1))) }, key),
    "entry",
    "a malformed entry",
    /one spelling/,
  );
  await refused(() => checkInLog(receipt, { ...good, entry: b64encode(log.entries[2] as Bytes) }, key), "entry", "the entry is not a receipt's");
  const practice = receipts[PRACTICE] ?? "";
  const named = withEntry({ ...entry, receipt: await receiptDigest(practice) });
  await refused(() => checkInLog(practice, named, key), "entry", "the receipt is not one the log keeps", /a receipt of no deal/);
  // a bad signature, a key of another origin, a tampered size
  const [text, lines = ""] = good.checkpoint.split("\n\n");
  const signature = lines.split(" ")[2]?.trim() ?? "";
  const badSignature = good.checkpoint.replace(signature, flip(signature, 40));
  await refused(() => checkInLog(receipt, { ...good, checkpoint: badSignature }, key), "checkpoint", "bad checkpoint signature", /does not verify/);
  const other_ = await otherSigner;
  await refused(
    () => checkInLog(receipt, good, verifierKey(other_.verifier)),
    "checkpoint",
    "the checkpoint is not signed by the log's key",
    /0 of the note's signatures are by a known key/,
  );
  const byOther = await signed(`${text}\n`, other_); // our origin, the other key's signature
  await refused(() => checkInLog(receipt, { ...good, checkpoint: byOther }, key), "checkpoint", "the checkpoint is not signed by the log's key");
  const ofOther = await signed(`${text}\n`.replace(LOG, other_.verifier.name), await logSigner); // valid, but not our origin
  await refused(() => checkInLog(receipt, { ...good, checkpoint: ofOther }, key), "checkpoint", "the checkpoint is another log's", /is of 'other\.example\/log', not 'cardproof\.example\/log'/);
  const theirs = await signed(`${text}\n`, other_);
  await refused(
    () => checkInLog(receipt, { ...good, checkpoint: theirs }, verifierKey(other_.verifier)),
    "checkpoint",
    "the checkpoint is another log's",
    /is of 'cardproof\.example\/log', not 'other\.example\/log'/,
  );
  const size = log.entries.length;
  const bigger = good.checkpoint.replace(`\n${size}\n`, `\n${size + 1}\n`);
  await refused(() => checkInLog(receipt, { ...good, checkpoint: bigger }, key), "checkpoint", "bad checkpoint signature");
  const smaller = await signed(`${text}\n`.replace(`\n${size}\n`, `\n${index + 1}\n`), await logSigner); // signed: the log lies
  await refused(() => checkInLog(receipt, { ...good, checkpoint: smaller }, key), "inclusion", "bad inclusion proof", /too long/);
  await refused(() => checkInLog(receipt, { ...good, checkpoint: `${text}\n\n` }, key), "checkpoint", "a malformed checkpoint", /at least one signature/);
  await refused(() => checkInLog(receipt, { ...good, checkpoint: good.checkpoint.replace(/\n/g, "\r\n") }, key), "checkpoint", "a malformed checkpoint");
  // the answer's form, and the log's key
  await refused(() => checkInLog(receipt, { ...good, entry: "not base64!" }, key), "malformed", "a malformed log answer", /the entry is not base64/);
  await refused(() => checkInLog(receipt, { ...good, proof: ["QQ="] }, key), "malformed", "a malformed log answer", /a proof hash is not base64/);
  await refused(() => checkInLog(receipt, { ...good, index: "3" }, key), "malformed", "a malformed log answer");
  await refused(() => checkInLog(receipt, { ...good, extra: 1 }, key), "malformed", "a malformed log answer", /extra/);
  await refused(() => checkInLog(receipt, null, key), "malformed", "a malformed log answer");
  await refused(() => checkInLog(receipt, good, key.replace("+3e708115+", "+3e708116+")), "log-key", "the log's key cannot be read");
});

test("checkInLog checks in check_in_log's order: the checkpoint, the entry, then the proof", async () => {
  const log = await built;
  const [index, receipt] = [...log.at][2] as [number, string];
  const good = await log.answer(index);
  const badSignature = good.checkpoint.replace(/[A-Za-z0-9](?=[A-Za-z0-9+/]{10}=*\n$)/, (c) => (c === "A" ? "B" : "A"));
  const otherEntry = b64encode(log.entries[index + 1] as Bytes);
  const badProof = [b64encode(new Uint8Array(32)), ...good.proof.slice(1)];
  await refused(() => checkInLog(receipt, { ...good, checkpoint: badSignature, entry: otherEntry, proof: badProof }, vectors.log_vkey), "checkpoint", "bad checkpoint signature");
  await refused(() => checkInLog(receipt, { ...good, entry: otherEntry, proof: ["QQ="] }, vectors.log_vkey), "entry", "the entry does not name this receipt");
  await refused(() => checkInLog(receipt, { ...good, entry: "%", proof: badProof }, vectors.log_vkey), "malformed", "a malformed log answer", /entry/);
});

test("checkInLog with witnesses: a quorum of cosignatures, and when", async () => {
  const log = await built;
  const [index, receipt] = [...log.at][0] as [number, string];
  const witness = await witnessSigner;
  const at = BigInt(vectors.cosigned_at);
  const cosigned = `${log.note}${await witness.line(log.text, at)}`;
  const policy = { witnesses: [witness.verifier], quorum: 1 };
  const found = await checkInLog(receipt, await log.answer(index, cosigned), vectors.log_vkey, policy);
  assert.equal(found.cosignedAt, at);
  assert.equal((await checkInLog(receipt, await log.answer(index, cosigned), vectors.log_vkey)).cosignedAt, null); // no witness asked for
  // two witnesses, a quorum of both: the time by which both had cosigned is the later one
  const second = await signer("witness.example/w2", await sha256(encoder.encode("a second witness key")), COSIGNATURE_V1);
  const twice = `${log.note}${await witness.line(log.text, at)}${await second.line(log.text, at + 7n)}`;
  const both = { witnesses: [witness.verifier, second.verifier], quorum: 2 };
  assert.equal((await checkInLog(receipt, await log.answer(index, twice), vectors.log_vkey, both)).cosignedAt, at + 7n);
  assert.equal((await checkInLog(receipt, await log.answer(index, twice), vectors.log_vkey, { ...both, quorum: 1 })).cosignedAt, at);
  const once = await log.answer(index, cosigned);
  await refused(() => checkInLog(receipt, once, vectors.log_vkey, both), "witnesses", "too few witnesses cosigned the checkpoint", /1 of the trusted witnesses cosigned the checkpoint; 2 needed/);
  const plain = await log.answer(index);
  await refused(() => checkInLog(receipt, plain, vectors.log_vkey, policy), "witnesses", "too few witnesses cosigned the checkpoint", /0 of the trusted witnesses/);
  const witnessOnly = await log.answer(index, `${log.text}\n${await witness.line(log.text, at)}`); // no log signature
  await refused(() => checkInLog(receipt, witnessOnly, vectors.log_vkey, policy), "checkpoint", "the checkpoint is not signed by the log's key", /^the checkpoint is not signed by the log's key$/);
  const raw = b64((await witness.line(log.text, at)).split(" ")[2]?.trim() ?? "");
  raw[30] = (raw[30] ?? 0) ^ 1; // in the Ed25519 signature, after the key ID and the time
  const forged = await log.answer(index, `${log.note}\u2014 ${witness.verifier.name} ${b64encode(raw)}\n`);
  await refused(() => checkInLog(receipt, forged, vectors.log_vkey, policy), "checkpoint", "bad checkpoint signature", /witness\.example\/w1 does not verify/);
});

/**
 * The page's log checks (src/tlog.ts) against the Python reference's vectors
 * (tests/vectors/log-v1.json, written by tests/vectors/make_log.py): leaf hashes, every
 * inclusion proof of the vectors' tree, the checkpoint under the log's key; and each check
 * caught when its input is changed by hand.
 */

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { b64decode, hex, inclusionRoot, leafHash, LogProofError, openCheckpoint, parseLogKey } from "../src/tlog";

const vectors = JSON.parse(readFileSync(new URL("../../../tests/vectors/log-v1.json", import.meta.url), "utf8")) as {
  entries: Array<{ entry: string; leaf_hash: string }>;
  tree: { entries: string[]; size: number; root: string; inclusion: string[][] };
  log_vkey: string;
  witness_vkey: string;
  checkpoint: string;
};
const encoder = new TextEncoder();

async function caught(run: () => Promise<unknown>, code: string): Promise<string> {
  try {
    await run();
  } catch (error) {
    assert.ok(error instanceof LogProofError, String(error));
    assert.equal(error.code, code);
    return error.message;
  }
  assert.fail("not refused");
}

test("leaf hashes are the reference's", async () => {
  for (const vector of vectors.entries) {
    assert.equal(hex(await leafHash(encoder.encode(vector.entry))), vector.leaf_hash);
  }
});

test("every audit path of the vectors' tree leads to its root", async () => {
  const { entries, size, root, inclusion } = vectors.tree;
  for (const [index, path] of inclusion.entries()) {
    const leaf = await leafHash(encoder.encode(entries[index] ?? ""));
    const found = await inclusionRoot(index, size, leaf, path.map((node) => b64decode(node, "a hash")));
    assert.equal(hex(found), hex(b64decode(root, "the root")), `entry ${index}`);
  }
});

test("a changed proof, index, size or leaf does not lead to the root", async () => {
  const { entries, size, root, inclusion } = vectors.tree;
  const want = hex(b64decode(root, "the root"));
  const path = (inclusion[3] ?? []).map((node) => b64decode(node, "a hash"));
  const leaf = await leafHash(encoder.encode(entries[3] ?? ""));
  const flipped = path.map((node, i) => (i === 1 ? node.map((b, j) => (j === 0 ? b ^ 1 : b)) : node));
  assert.notEqual(hex(await inclusionRoot(3, size, leaf, flipped)), want);
  assert.notEqual(hex(await inclusionRoot(2, size, leaf, path)), want);
  assert.notEqual(hex(await inclusionRoot(3, size, await leafHash(encoder.encode("other")), path)), want);
  await caught(() => inclusionRoot(3, size, leaf, path.slice(1)), "inclusion"); // too short
  await caught(() => inclusionRoot(3, size, leaf, [...path, path[0] as Uint8Array]), "inclusion"); // too long
  await caught(() => inclusionRoot(size, size, leaf, path), "inclusion");
  await caught(() => inclusionRoot(3, size + 1, leaf, path), "inclusion"); // another tree's shape
});

test("the checkpoint opens under the log's key, and under no other", async () => {
  const key = await parseLogKey(vectors.log_vkey);
  const opened = await openCheckpoint(vectors.checkpoint, key);
  assert.equal(opened.origin, "cardproof.example/log");
  assert.equal(opened.size, vectors.tree.size);
  assert.equal(hex(opened.root), hex(b64decode(vectors.tree.root, "the root")));
  const tampered = vectors.checkpoint.replace(`\n${vectors.tree.size}\n`, `\n${vectors.tree.size + 1}\n`);
  assert.match(await caught(() => openCheckpoint(tampered, key), "checkpoint"), /does not verify/);
  const unsigned = vectors.checkpoint.split("\n").filter((line) => !line.startsWith("\u2014 cardproof.example")).join("\n");
  assert.match(await caught(() => openCheckpoint(unsigned, key), "checkpoint"), /not signed by the log's key/);
  await caught(() => parseLogKey(vectors.witness_vkey), "checkpoint"); // a cosignature key, not a log's
  const [name, id, material] = vectors.log_vkey.split("+");
  await caught(() => parseLogKey(`other.example/log+${id ?? ""}+${material ?? ""}`), "checkpoint"); // its ID is not that name's
  assert.equal(name, "cardproof.example/log");
});

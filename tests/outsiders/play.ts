// A committed blind game of poker-squares through the client @hey-api/openapi-ts generates
// from openapi/openapi.json (tests/test_generated_clients.py generates it into ./hey next to
// a copy of this file, compiles both with tsc --strict and runs this in node).
//
// Usage: node play.js BASE_URL. Prints {"receipt", "hash", "next_index"} as JSON.

import { createClient } from "./hey/client";
import { createCommitment, createDeal, getReceipt, playMove } from "./hey/sdk.gen";
import type { MoveObject, Problem, VariantId, VariantOptions } from "./hey/types.gen";

async function main(base: string): Promise<void> {
  const client = createClient({ baseUrl: base });
  const commitment = (await createCommitment({ client, body: {}, throwOnError: true })).data;
  const variant: VariantId = "poker-squares";
  const deal = (
    await createDeal({
      client,
      body: { variant, commitment_id: commitment.commitment_id, client_seed: "hey-api client" },
      headers: { "Idempotency-Key": "hey-api-client-0001" },
      throwOnError: true,
    })
  ).data;
  // responses are typed as requests are: these assignments compile only so
  const options: VariantOptions = deal.options;
  const dealt: VariantId = deal.variant;
  if (dealt !== variant || deal.server_seed_hash !== commitment.server_seed_hash) {
    throw new Error(`not the deal asked for: ${JSON.stringify({ options, dealt })}`);
  }

  // a move for an index that is not next: 409, whose next_index the Problem type declares
  const early = await playMove({
    client,
    path: { deal_id: deal.deal_id },
    body: { index: 3, move: { row: 0, col: 0 } },
  });
  const conflict: Problem | undefined = early.response.status === 409 ? early.error : undefined;
  if (conflict?.code !== "wrong-index" || conflict.next_index !== 0) {
    throw new Error(`expected a wrong-index conflict: ${JSON.stringify(early.error)}`);
  }

  for (let index = 0; index < 25; index += 1) {
    const move: MoveObject = { row: Math.floor(index / 5), col: index % 5 };
    const played = await playMove({
      client,
      path: { deal_id: deal.deal_id },
      body: { index, move },
      throwOnError: true,
    });
    if (played.data.finished !== (index === 24)) {
      throw new Error(`move ${index}: finished is ${played.data.finished}`);
    }
  }
  const receipt = (await getReceipt({ client, path: { deal_id: deal.deal_id }, throwOnError: true }))
    .data;
  process.stdout.write(
    JSON.stringify({
      receipt: receipt.receipt,
      hash: commitment.server_seed_hash,
      next_index: conflict.next_index,
    }),
  );
}

main(process.argv[2] ?? "http://127.0.0.1:8000").catch((error: unknown) => {
  process.stderr.write(`${String(error)}\n`);
  process.exit(1);
});

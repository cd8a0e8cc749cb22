// A cardproof client on Node's built-in fetch (undici), no package.
// tests/test_client_matrix.py runs it:
//
//   node play.mjs game BASE_URL CLIENT_SEED   a committed poker-squares game, end to end
//   node play.mjs events CALLS_URL            a lockstep round's first server-sent event
//
// Each exchange is printed on one line, "STEP VERSION STATUS BODY"; fetch does not say
// which HTTP version it spoke, so VERSION is "-".

const TIMEOUT_MS = 20_000;

function report(step, response, body) {
  console.log(`${step} - ${response.status} ${body.replace(/[\r\n]/g, " ")}`);
}

async function post(step, url, body) {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(TIMEOUT_MS),
  });
  const text = await response.text();
  report(step, response, text);
  return JSON.parse(text);
}

async function game(base, clientSeed) {
  const { commitment_id } = await post("commit", `${base}/v1/commitments`, {});
  const { deal_id } = await post("deal", `${base}/v1/deals`, {
    variant: "poker-squares",
    commitment_id,
    client_seed: clientSeed,
  });
  let index = 0;
  for (const row of "12345") {
    for (const col of "abcde") {
      await post("move", `${base}/v1/deals/${deal_id}/moves`, { index, move: col + row });
      index += 1;
    }
  }
  const receipt = await fetch(`${base}/v1/deals/${deal_id}/receipt`, {
    signal: AbortSignal.timeout(TIMEOUT_MS),
  });
  report("receipt", receipt, await receipt.text());
}

async function events(url) {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), TIMEOUT_MS);
  const response = await fetch(url, {
    headers: { accept: "text/event-stream" },
    signal: controller.signal,
  });
  const prefix = `event - ${response.status} `;
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true }).replace(/\r\n?/g, "\n");
    let end;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let name = "message";
      let data = "";
      for (const line of block.split("\n")) {
        if (line.startsWith("event:")) name = line.slice(6).trim();
        else if (line.startsWith("data:")) data += line.slice(5).trim();
      }
      if (!data) continue;
      console.log(`${prefix}${name} ${data}`);
      if (name === "call") {
        clearTimeout(timer);
        controller.abort(); // the stream goes on until the round ends: leave it
        return;
      }
    }
  }
  clearTimeout(timer);
  console.log(`${prefix}(ended) -`);
}

const [mode, ...args] = process.argv.slice(2);
if (mode === "game" && args.length === 2) {
  await game(args[0], args[1]);
} else if (mode === "events" && args.length === 1) {
  await events(args[0]);
} else {
  console.error("usage: node play.mjs game BASE_URL CLIENT_SEED | events CALLS_URL");
  process.exit(2);
}
process.exit(0);

// src/cards.ts
var DECK_SIZES = {
  "standard-52": 52,
  "joker-53": 53,
  "pokerdrez-56": 56
};
var RANKS = "23456789TJQKA";
var SUITS = "CDHS";
var FIGURES = "JQTBNP";
var COLOURS = 9;
function cardText(deck, index) {
  if (!Number.isInteger(index) || index < 0 || index >= DECK_SIZES[deck]) {
    throw new RangeError(`no card ${index} in a ${deck} deck`);
  }
  if (deck === "pokerdrez-56") {
    const figures = FIGURES.length * COLOURS;
    if (index < figures) {
      return `${FIGURES[index % FIGURES.length]}${Math.floor(index / FIGURES.length) + 1}`;
    }
    return `X${index - figures + 1}`;
  }
  if (index === 52) return "JK";
  return `${RANKS[index % 13]}${SUITS[Math.floor(index / 13)]}`;
}
function rankOf(card) {
  return card === "JK" ? -1 : RANKS.indexOf(card[0] ?? "");
}
function suitOf(card) {
  return card === "JK" ? "" : card[1] ?? "";
}
var SYMBOLS = { C: "♣", D: "♦", H: "♥", S: "♠" };
var RANK_NAMES = { T: "10" };
function cardLabel(card) {
  if (card === "JK") return "Joker";
  const rank = card[0] ?? "";
  const symbol = SYMBOLS[card[1] ?? ""];
  return symbol === void 0 ? card : `${RANK_NAMES[rank] ?? rank}${symbol}`;
}
function colourClass(card, fourColours) {
  const suit = suitOf(card);
  if (!suit) return "card-joker";
  if (fourColours) return `card-${suit.toLowerCase()}`;
  return suit === "D" || suit === "H" ? "card-red" : "card-black";
}

// src/client.ts
var ApiError = class extends Error {
  status;
  code;
  problem;
  constructor(status2, problem) {
    const detail = typeof problem["detail"] === "string" ? problem["detail"] : `HTTP ${status2}`;
    super(detail);
    this.status = status2;
    this.code = typeof problem["code"] === "string" ? problem["code"] : "";
    this.problem = problem;
  }
};
async function call(method, path, options = {}) {
  let url = String(path).replace(/\{(\w+)\}/g, (_, name) => {
    const value = options.params?.[name];
    if (value === void 0) throw new TypeError(`no value for {${name}} in ${String(path)}`);
    return encodeURIComponent(String(value));
  });
  if (options.query) {
    url += `?${new URLSearchParams(Object.entries(options.query).map(([k, v]) => [k, String(v)]))}`;
  }
  const headers = { Accept: "application/json", ...options.headers };
  const init = { method: method.toUpperCase(), headers, credentials: "omit" };
  if (options.body !== void 0) {
    headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(options.body);
  }
  const response = await fetch(url, init);
  const text = await response.text();
  let parsed = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = { detail: text.slice(0, 200) };
  }
  if (!response.ok) {
    throw new ApiError(response.status, parsed ?? {});
  }
  return parsed;
}

// src/hands.ts
var CATEGORIES = [
  "high-card",
  "one-pair",
  "two-pair",
  "three-of-a-kind",
  "straight",
  "flush",
  "full-house",
  "four-of-a-kind",
  "straight-flush",
  "royal-flush",
  "five-of-a-kind"
];
var STANDARD = Array.from({ length: 52 }, (_, i) => `${"23456789TJQKA"[i % 13]}${"CDHS"[Math.floor(i / 13)]}`);
function classify(cards) {
  if (cards.length !== 5) throw new RangeError(`a poker hand has 5 cards, not ${cards.length}`);
  const ranks = cards.map(rankOf).sort((a, b) => a - b);
  const counts = /* @__PURE__ */ new Map();
  for (const rank of ranks) counts.set(rank, (counts.get(rank) ?? 0) + 1);
  const shape = [...counts.values()].sort((a, b) => b - a);
  const flush = new Set(cards.map(suitOf)).size === 1;
  const distinct = counts.size === 5;
  const wheel = ranks.join() === "0,1,2,3,12";
  const straight = distinct && (ranks[4] - ranks[0] === 4 || wheel);
  if (shape[0] === 5) return "five-of-a-kind";
  if (straight && flush) return ranks[0] === 8 ? "royal-flush" : "straight-flush";
  if (shape[0] === 4) return "four-of-a-kind";
  if (shape[0] === 3 && shape[1] === 2) return "full-house";
  if (flush) return "flush";
  if (straight) return "straight";
  if (shape[0] === 3) return "three-of-a-kind";
  if (shape[0] === 2 && shape[1] === 2) return "two-pair";
  if (shape[0] === 2) return "one-pair";
  return "high-card";
}
var points = (table, category) => table[category] ?? 0;
function bestCategory(cards, table) {
  const jokers = cards.filter((card) => card === "JK").length;
  if (jokers === 0) return classify(cards);
  if (jokers > 1) throw new RangeError("a hand may hold one joker at most");
  const rest = cards.filter((card) => card !== "JK");
  let best = "high-card";
  for (const stand of STANDARD) {
    const category = classify([...rest, stand]);
    const better = points(table, category) - points(table, best);
    if (better > 0 || better === 0 && CATEGORIES.indexOf(category) > CATEGORIES.indexOf(best)) {
      best = category;
    }
  }
  return best;
}
function scoreLine(line, cards, table) {
  const category = bestCategory(cards, table);
  return { line, cards, category, points: points(table, category) };
}

// src/grid.ts
var GRID_VARIANTS = ["poker-squares", "poker-patience", "serpent-patience"];
var SIZE = 5;
var COLUMNS = "abcde";
var key = ([r, c]) => `${r},${c}`;
var coordOf = (text) => text.split(",").map(Number);
function moveCoord(variant, text) {
  if (variant === "poker-patience") {
    const found2 = /^(-?[0-4]),(-?[0-4])$/.exec(text);
    return found2 ? [Number(found2[1]), Number(found2[2])] : null;
  }
  const found = /^([a-e])([1-5])$/.exec(text);
  return found ? [Number(found[2]) - 1, found[1].charCodeAt(0) - 97] : null;
}
function window2(variant, placed) {
  const span = (from, to) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
  if (variant !== "poker-patience") return { rows: span(0, 4), cols: span(0, 4) };
  if (placed.size === 0) return { rows: [0], cols: [0] };
  const coords = [...placed.keys()].map(coordOf);
  const rows = coords.map(([r]) => r);
  const cols = coords.map(([, c]) => c);
  return {
    rows: span(Math.max(...rows) - (SIZE - 1), Math.min(...rows) + (SIZE - 1)),
    cols: span(Math.max(...cols) - (SIZE - 1), Math.min(...cols) + (SIZE - 1))
  };
}
function scoredLines(variant, placed, diagonals) {
  const range = [0, 1, 2, 3, 4];
  if (variant !== "poker-patience") {
    const lines = [
      ...range.map((r) => [`row ${r + 1}`, range.map((c) => [r, c])]),
      ...range.map((c) => [`col ${COLUMNS[c]}`, range.map((r) => [r, c])])
    ];
    if (diagonals) {
      lines.push(["diagonal \\", range.map((i) => [i, i])]);
      lines.push(["diagonal /", range.map((i) => [i, 4 - i])]);
    }
    return lines;
  }
  const coords = [...placed.keys()].map(coordOf);
  const rows = [...new Set(coords.map(([r]) => r))].sort((a, b) => a - b);
  const cols = [...new Set(coords.map(([, c]) => c))].sort((a, b) => a - b);
  const found = [];
  const first = (list) => list[0];
  const last = (list) => list[list.length - 1];
  const wide = cols.length > 0 && last(cols) - first(cols) === SIZE - 1;
  const tall = rows.length > 0 && last(rows) - first(rows) === SIZE - 1;
  if (wide) {
    for (const r of rows) found.push([`row from ${r},${first(cols)}`, range.map((i) => [r, first(cols) + i])]);
  }
  if (tall) {
    for (const c of cols) found.push([`col from ${first(rows)},${c}`, range.map((i) => [first(rows) + i, c])]);
  }
  return found;
}
function completeLines(variant, placed, table, diagonals) {
  const lines = scoredLines(variant, placed, diagonals);
  const complete = lines.filter(([, cells]) => cells.every((cell) => placed.has(key(cell))));
  return complete.map(
    ([line, cells]) => scoreLine(line, cells.map((cell) => placed.get(key(cell))), table)
  );
}
function replayPlaced(variant, moves, deck) {
  if (moves.length !== SIZE * SIZE) return { error: `the log has ${moves.length} moves, not 25` };
  const placed = /* @__PURE__ */ new Map();
  for (const [i, move] of moves.entries()) {
    const cell = moveCoord(variant, move);
    if (cell === null) return { error: `move ${i} (${move}) is not a cell of ${variant}` };
    if (placed.has(key(cell))) return { error: `move ${i} (${move}) places a second card in one cell` };
    placed.set(key(cell), deck[i] ?? "?");
  }
  const { rows, cols } = window2(variant, placed);
  if (variant === "poker-patience" && (rows.length !== SIZE || cols.length !== SIZE)) {
    return { error: "the layout is not a 5x5 square" };
  }
  return { placed };
}
function replayReserve(moves, deck) {
  const columns = [[], [], [], []];
  deck.forEach((card, i) => columns[i % 4]?.push(card));
  const placed = /* @__PURE__ */ new Map();
  for (const [i, move] of moves.entries()) {
    const found = /^([0-3])>([0-4])$/.exec(move);
    if (!found) return { error: `move ${i} (${move}) is not a reserve move f>c` };
    const card = columns[Number(found[1])]?.pop();
    const col = Number(found[2]);
    const row = [4, 3, 2, 1, 0].find((r) => !placed.has(key([r, col])));
    if (card === void 0 || row === void 0) return { error: `move ${i} (${move}) cannot be played` };
    placed.set(key([row, col]), card);
  }
  if (placed.size !== SIZE * SIZE) return { error: `the log fills ${placed.size} cells, not 25` };
  return { placed };
}

// src/moves.ts
var soloColumn = (a) => `column ${a + 1}`;
function parseSoloMove(text) {
  if (text === "stop") return { kind: "stop" };
  const remove = /^r([0-8])$/.exec(text);
  if (remove) return { kind: "remove", column: Number(remove[1]) };
  const run = /^([0-8]):([1-9][0-9]*)>([0-8])$/.exec(text);
  if (!run) return null;
  return { kind: "run", from: Number(run[1]), count: Number(run[2]), to: Number(run[3]) };
}
function countMoves(log) {
  const moves = log.split(" ").filter(Boolean);
  const stopped = moves[moves.length - 1] === "stop";
  const played = stopped ? moves.length - 1 : moves.length;
  const words = played === 0 ? "no move" : played === 1 ? "1 move" : `${played} moves`;
  return stopped ? `${words}, then stop` : words;
}

// src/shuffle.ts
var ALGORITHM = "cardproof-shuffle-v1";
var SEED_BYTES = 32;
var MAX_CLIENT_SEED_BYTES = 256;
var TWO_32 = 2 ** 32;
var encoder = new TextEncoder();
function fromHex(text) {
  if (!/^(?:[0-9a-fA-F]{2})*$/.test(text)) throw new RangeError("not hex");
  const bytes = new Uint8Array(text.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(text.slice(2 * i, 2 * i + 2), 16);
  return bytes;
}
function toHex(bytes) {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}
async function hmacKey(key2) {
  return crypto.subtle.importKey("raw", key2, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
}
async function seedHash(serverSeed) {
  return toHex(new Uint8Array(await crypto.subtle.digest("SHA-256", serverSeed)));
}
async function streamKey(serverSeed, clientSeed, deckType, stream) {
  if (serverSeed.length !== SEED_BYTES) {
    throw new RangeError(`a server seed is ${SEED_BYTES} bytes, not ${serverSeed.length}`);
  }
  if (!(deckType in DECK_SIZES)) throw new RangeError(`unknown deck type ${deckType}`);
  const client = encoder.encode(clientSeed);
  if (client.length < 1 || client.length > MAX_CLIENT_SEED_BYTES) {
    throw new RangeError(`a client seed is 1 to ${MAX_CLIENT_SEED_BYTES} UTF-8 bytes`);
  }
  if (!/^[\x01-\x7f]*$/.test(stream)) throw new RangeError("a stream label is ASCII without NUL");
  const parts = [encoder.encode(ALGORITHM), encoder.encode(deckType), encoder.encode(stream), client];
  const message = new Uint8Array(parts.reduce((n, p) => n + p.length, 0) + parts.length - 1);
  let at = 0;
  parts.forEach((part, i) => {
    if (i > 0) message[at++] = 0;
    message.set(part, at);
    at += part.length;
  });
  const key2 = await hmacKey(serverSeed);
  return new Uint8Array(await crypto.subtle.sign("HMAC", key2, message));
}
var UniformDraws = class {
  key;
  counter = 0;
  words = [];
  constructor(key2) {
    this.key = hmacKey(key2);
  }
  /** The stream's next big-endian u32 word (a 32-byte block holds eight). */
  async nextWord() {
    if (this.words.length === 0) {
      const counter = new Uint8Array(8);
      new DataView(counter.buffer).setBigUint64(0, BigInt(this.counter++));
      const block = new DataView(await crypto.subtle.sign("HMAC", await this.key, counter));
      for (let i = 0; i < 8; i++) this.words.push(block.getUint32(4 * i));
    }
    return this.words.shift();
  }
  /** A uniform integer in [0, n), by rejection sampling. */
  async below(n) {
    if (!Number.isInteger(n) || n < 1 || n > TWO_32) throw new RangeError("n must be in 1..2**32");
    const limit = TWO_32 - TWO_32 % n;
    for (; ; ) {
      const x = await this.nextWord();
      if (x < limit) return x % n;
    }
  }
};
async function shuffle(deckType, serverSeed, clientSeed, stream = "deal") {
  const draws = new UniformDraws(await streamKey(serverSeed, clientSeed, deckType, stream));
  const deck = Array.from({ length: DECK_SIZES[deckType] }, (_, i) => i);
  for (let i = deck.length - 1; i > 0; i--) {
    const j = await draws.below(i + 1);
    [deck[i], deck[j]] = [deck[j], deck[i]];
  }
  return deck;
}
async function deckCards(deckType, serverSeed, clientSeed, stream = "deal") {
  const order = await shuffle(deckType, serverSeed, clientSeed, stream);
  return order.map((index) => cardText(deckType, index));
}

// src/points.ts
var POINTS_ALGORITHM = "cardproof-points-v1";
var STREAM = "points-v1";
var POINT_SYSTEMS = ["ameritish", "random", "hypercorner", "single-hand"];
var DRAWN = CATEGORIES.filter((category) => category !== "five-of-a-kind");
var AMERICAN = [0, 2, 5, 10, 15, 20, 25, 50, 75, 100];
var BRITISH = [0, 1, 3, 6, 12, 5, 10, 16, 30, 30];
function isPointSystem(scoring) {
  return typeof scoring === "string" && POINT_SYSTEMS.includes(scoring);
}
var floorDiv = (p, q) => (p - p % q) / q;
var ceilDiv = (p, q) => floorDiv(p + q - 1, q);
async function drawTable(system, serverSeed, clientSeed) {
  const draws = new UniformDraws(await streamKey(serverSeed, clientSeed, "standard-52", STREAM));
  const points2 = new Map(DRAWN.map((category) => [category, 0]));
  if (system === "ameritish") {
    const royal = 30 + await draws.below(71);
    for (const [i, category] of DRAWN.slice(0, -1).entries()) {
      const a = AMERICAN[i] * royal;
      const b = BRITISH[i] * royal;
      const low = Math.min(floorDiv(a, 100), floorDiv(b, 30));
      const high = Math.max(ceilDiv(a, 100), ceilDiv(b, 30));
      points2.set(category, low + await draws.below(high - low + 1));
    }
    points2.set("royal-flush", royal);
  } else if (system === "random") {
    for (const category of DRAWN) points2.set(category, await draws.below(256) - 128);
  } else if (system === "hypercorner") {
    for (const category of DRAWN) points2.set(category, 2 * await draws.below(2) - 1);
  } else {
    points2.set(DRAWN[await draws.below(DRAWN.length)], 1);
  }
  return Object.fromEntries(points2);
}
function sameTable(one, other) {
  const categories = /* @__PURE__ */ new Set([...Object.keys(one), ...Object.keys(other)]);
  return [...categories].every((category) => (one[category] ?? 0) === (other[category] ?? 0));
}

// src/solodrez.ts
var FIGURES2 = "JQTBNP";
var PAWN = 5;
var COLUMNS2 = 9;
var SOLODREZ_MAX_MOVES = 1e4;
var figureOf = (card) => card[0] === "X" ? null : FIGURES2.indexOf(card[0] ?? "");
function runStarts(cards) {
  let start = null;
  for (const [i, card] of cards.entries()) {
    const f = figureOf(card);
    if (f === null) continue;
    if (start === null) start = f - i;
    else if (f - i !== start) return [];
  }
  const starts = start === null ? [0, 1, 2, 3, 4, 5] : [start];
  return starts.filter((s) => s >= 0 && s + cards.length - 1 <= PAWN);
}
function fits(run, target) {
  const starts = runStarts(run);
  const last = target[target.length - 1];
  if (last === void 0) return starts.includes(0);
  const below = figureOf(last);
  if (below === null) return starts.some((s) => s >= 1);
  return starts.includes(below + 1);
}
var isSeries = (column) => column.length === 6 && column.every((c, i) => figureOf(c) === i);
function anyMoveLeft(columns) {
  for (const [a, column] of columns.entries()) {
    if (isSeries(column)) return true;
    for (let n = 1; n <= Math.min(6, column.length); n++) {
      const run = column.slice(-n);
      if (runStarts(run).length === 0) break;
      if (columns.some((target, b) => b !== a && fits(run, target))) return true;
    }
  }
  return false;
}
function dealColumns(deck) {
  const columns = Array.from({ length: COLUMNS2 }, () => []);
  deck.forEach((card, i) => columns[i % COLUMNS2]?.push(card));
  return columns;
}
function replaySolodrez(deck, moves) {
  const columns = dealColumns(deck);
  let removed = 0;
  const series = [];
  let over = !anyMoveLeft(columns);
  const refuse = (i, code) => ({ error: `move ${i + 1} (${moves[i]}) is refused: ${code}` });
  for (const [i, text] of moves.entries()) {
    if (i >= SOLODREZ_MAX_MOVES) return refuse(i, "too-many-moves");
    if (over) return refuse(i, "game-over");
    const move = parseSoloMove(text);
    if (move === null) return refuse(i, "not a solodrez move");
    if (move.kind === "stop") {
      over = true;
      continue;
    }
    if (move.kind === "remove") {
      const column = columns[move.column] ?? [];
      if (!isSeries(column)) return refuse(i, "not-a-series");
      series.push({ column: move.column, move: i, cards: column });
      columns[move.column] = [];
      removed += 1;
    } else {
      const from = columns[move.from] ?? [];
      const to = columns[move.to] ?? [];
      if (move.from === move.to) return refuse(i, "same-column");
      if (move.count > from.length) return refuse(i, "too-many-cards");
      const run = from.slice(-move.count);
      if (runStarts(run).length === 0) return refuse(i, "not-a-run");
      if (!fits(run, to)) return refuse(i, "not-one-higher, onto-pawn, joker-needs-empty or empty-needs-joker");
      columns[move.from] = from.slice(0, -move.count);
      columns[move.to] = [...to, ...run];
    }
    over = removed === COLUMNS2 || i + 1 >= SOLODREZ_MAX_MOVES || !anyMoveLeft(columns);
  }
  if (!over) return { error: "the log stops while moves are left (incomplete: a game is ended with stop)" };
  return { columns, seriesRemoved: removed, won: removed === COLUMNS2, series };
}

// src/strict.ts
var Refused = class extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
  code;
};
var decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
var LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
function jsonProblem(value) {
  const stack = [value];
  while (stack.length) {
    const item = stack.pop();
    if (typeof item === "number" && Number.isInteger(item) && !Number.isSafeInteger(item)) {
      return `the integer ${item} is beyond 2^53 - 1 (I-JSON)`;
    }
    if (typeof item === "string" && LONE_SURROGATE.test(item)) return "a string holds a lone surrogate";
    if (Array.isArray(item)) stack.push(...item);
    else if (item !== null && typeof item === "object") {
      for (const [name, member] of Object.entries(item)) {
        if (LONE_SURROGATE.test(name)) return "a member name holds a lone surrogate";
        stack.push(member);
      }
    }
  }
  return null;
}
function readJson(bytes) {
  let text;
  try {
    text = decoder.decode(bytes);
  } catch {
    throw new RangeError("a part is not valid UTF-8");
  }
  if (text.startsWith("\uFEFF")) throw new RangeError("a part starts with a byte order mark");
  let value;
  try {
    value = JSON.parse(text);
  } catch {
    throw new RangeError("a part is not JSON");
  }
  const problem = jsonProblem(value);
  if (problem) throw new RangeError(problem);
  return value;
}
var SCORE_MEMBERS = ["total", "hands", "levels", "won", "series_removed"];
var HAND_MEMBERS = ["line", "cards", "category", "points", "level", "removed"];
function nullScoreMember(payload) {
  const score = payload["score"];
  if (score === null || typeof score !== "object") return "the score is not an object";
  for (const [name, value] of Object.entries(score)) {
    if (value === null && SCORE_MEMBERS.includes(name)) return `score.${name} is null: a score member is absent or of its type`;
  }
  const hands = score["hands"];
  if (!Array.isArray(hands)) return "score.hands is not a list";
  for (const [i, hand] of hands.entries()) {
    if (hand === null || typeof hand !== "object") return `score.hands[${i}] is not an object`;
    for (const [name, value] of Object.entries(hand)) {
      if (value === null && HAND_MEMBERS.includes(name)) return `score.hands[${i}].${name} is null: a hand member is absent or of its type`;
    }
  }
  return null;
}
var SCORE_EXTRA = { "repeat-poker": ["levels"], solodrez: ["won", "series_removed"] };
var HAND_EXTRA = { "repeat-poker": ["level", "removed"] };
var SCORE_KNOWN = ["levels", "won", "series_removed"];
var HAND_KNOWN = ["level", "removed"];
function scoreMembersProblem(variant, score) {
  const own = SCORE_EXTRA[variant] ?? [];
  for (const name of SCORE_KNOWN) {
    if (name in score !== own.includes(name)) {
      return own.includes(name) ? `a ${variant} score has ${name}` : `a ${variant} score has no ${name}`;
    }
  }
  const ownHand = HAND_EXTRA[variant] ?? [];
  for (const hand of score["hands"] ?? []) {
    for (const name of HAND_KNOWN) {
      if (name in hand !== ownHand.includes(name)) {
        return ownHand.includes(name) ? `a ${variant} hand has ${name}` : `a ${variant} hand has no ${name}`;
      }
    }
  }
  return null;
}
var KEY_TYPES = { kty: "string", kid: "string", crv: "string", x: "string", use: "string", alg: "string", nbf: "number", exp: "number" };
function readKeySet(value) {
  const keys = value !== null && typeof value === "object" ? value.keys : void 0;
  if (!Array.isArray(keys)) throw new Refused("bad-jwks", "the key set has no list of keys");
  const problem = jsonProblem(value);
  if (problem) throw new Refused("bad-jwks", `the key set cannot be read: ${problem}`);
  for (const key2 of keys) {
    if (key2 === null || typeof key2 !== "object" || Array.isArray(key2)) throw new Refused("bad-jwks", "a key of the key set is not an object");
    for (const [name, type] of Object.entries(KEY_TYPES)) {
      if (!(name in key2)) continue;
      const member = key2[name];
      if (typeof member !== type) throw new Refused("bad-jwks", `a key's ${name} is ${JSON.stringify(member)}, not a ${type}`);
      if (type === "number" && (!Number.isSafeInteger(member) || member < 0)) {
        throw new Refused("bad-jwks", `a key's ${name} (${String(member)}) is not a whole number of seconds from 0 to 2^53 - 1`);
      }
    }
  }
  return keys;
}
var P = 2n ** 255n - 19n;
var L = 2n ** 252n + 27742317777372353535851937790883648493n;
var mod = (a) => (a % P + P) % P;
function pow(base, exp) {
  let result = 1n;
  let b = mod(base);
  let e = exp;
  while (e > 0n) {
    if (e & 1n) result = result * b % P;
    b = b * b % P;
    e >>= 1n;
  }
  return result;
}
var inv = (a) => pow(a, P - 2n);
var D = mod(-121665n * inv(121666n));
var SQRT_M1 = pow(2n, (P - 1n) / 4n);
var IDENTITY = [0n, 1n, 1n, 0n];
function decodePoint(bytes) {
  if (bytes.length !== 32) return null;
  let v = 0n;
  for (let i = 31; i >= 0; i--) v = v << 8n | BigInt(bytes[i] ?? 0);
  const sign = v >> 255n;
  const y = v & (1n << 255n) - 1n;
  if (y >= P) return null;
  const x2 = mod((y * y - 1n) * inv(D * y * y + 1n));
  if (x2 === 0n) return sign ? null : [0n, y, 1n, 0n];
  let x = pow(x2, (P + 3n) / 8n);
  if (mod(x * x - x2) !== 0n) x = x * SQRT_M1 % P;
  if (mod(x * x - x2) !== 0n) return null;
  if ((x & 1n) !== sign) x = P - x;
  return [x, y, 1n, x * y % P];
}
function add([x1, y1, z1, t1], [x2, y2, z2, t2]) {
  const a = mod((y1 - x1) * (y2 - x2));
  const b = mod((y1 + x1) * (y2 + x2));
  const c = mod(2n * t1 * t2 * D);
  const d = mod(2n * z1 * z2);
  const e = b - a;
  const f = d - c;
  const g = d + c;
  const h = b + a;
  return [mod(e * f), mod(g * h), mod(f * g), mod(e * h)];
}
function multiply(scalar, point) {
  let result = IDENTITY;
  let p = point;
  for (let k = scalar; k > 0n; k >>= 1n) {
    if (k & 1n) result = add(result, p);
    p = add(p, p);
  }
  return result;
}
var isIdentity = ([x, y, z]) => mod(x) === 0n && mod(y - z) === 0n;
function isStrictPublicKey(bytes) {
  const point = decodePoint(bytes);
  return point !== null && !isIdentity(point) && isIdentity(multiply(L, point));
}
function isCanonicalS(signature) {
  if (signature.length !== 64) return false;
  let s = 0n;
  for (let i = 63; i >= 32; i--) s = s << 8n | BigInt(signature[i] ?? 0);
  return s < L;
}

// src/receipt.ts
var decoder2 = new TextDecoder("utf-8", { fatal: true });
var CLOCK_LEEWAY = 300;
var ALG = "Ed25519";
function b64urlDecode(text) {
  if (!/^[A-Za-z0-9_-]*$/.test(text) || text.length % 4 === 1) throw new RangeError("not base64url");
  const base64 = text.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - text.length % 4) % 4);
  const raw = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
  if (b64urlEncode(raw) !== text) throw new RangeError("not canonical base64url");
  return raw;
}
function b64urlEncode(bytes) {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}
var DECK_OF = {
  "poker-squares": "standard-52",
  "poker-patience": "standard-52",
  "serpent-patience": "standard-52",
  "repeat-poker": "standard-52",
  "reserve-poker": "joker-53",
  solodrez: "pokerdrez-56"
};
function cleanReceipt(text) {
  return text.replace(/[ \t\n\r]+/g, "");
}
var RECEIPT_VERSION = 3;
var READ_VERSIONS = [2, RECEIPT_VERSION];
var COMMITTED_KINDS = ["committed-blind", "committed-open", "tournament"];
var KIND_HOLDS = {
  "committed-blind": (p) => p.committed_before_client_seed && p.blind,
  "committed-open": (p) => p.committed_before_client_seed,
  tournament: (p) => p.committed_before_client_seed && p.tournament !== null && p.tournament !== void 0
};
var REPLAYED = [...GRID_VARIANTS, "reserve-poker"];
function canonical(value) {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value).sort(([a], [b]) => a < b ? -1 : 1);
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}
var TYPES = ["cardproof-receipt+jwt", "JOSE"];
function keyPeriodProblem(payload, key2) {
  if (!Number.isSafeInteger(payload.issued_at) || payload.iat !== void 0 && payload.iat !== null && !Number.isSafeInteger(payload.iat)) {
    return "malformed: iat and issued_at are whole seconds";
  }
  if (payload.issued_at < 0 || payload.iat !== void 0 && payload.iat !== null && payload.iat < 0) {
    return "malformed: a receipt's date (issued_at, iat) is negative";
  }
  if (payload.iat !== void 0 && payload.iat !== null && payload.iat !== payload.issued_at) {
    return `malformed: iat ${payload.iat} and issued_at ${payload.issued_at} differ`;
  }
  const issued = payload.iat ?? payload.issued_at;
  if (key2.nbf !== void 0 && key2.nbf !== null && issued < key2.nbf) {
    return `key not valid: the receipt was issued at ${issued}, before key ${String(key2.kid)} signed (nbf ${key2.nbf})`;
  }
  if (issued > Date.now() / 1e3 + CLOCK_LEEWAY) {
    return `key not valid: the receipt is dated ${issued}, in the future: no key signed it yet`;
  }
  if (key2.exp !== void 0 && key2.exp !== null && issued >= key2.exp) {
    return `key not valid: the receipt was issued at ${issued}, after key ${String(key2.kid)} was retired (exp ${key2.exp})`;
  }
  return null;
}
async function verifyReceipt(token, keys, expected = {}) {
  const result = { ok: false, reasons: [], code: null, checked: [], payload: null, deck: null, pending: false, solodrez: null };
  const fail = (reason2, code) => {
    result.reasons.push(reason2);
    result.code = code;
    return result;
  };
  const parts = cleanReceipt(token).split(".");
  if (parts.length !== 3) return fail("malformed: a receipt is a compact JWS, three base64url parts", "malformed");
  const [head, body, signature] = parts;
  let header;
  let payload;
  let signatureBytes;
  try {
    header = readJson(b64urlDecode(head));
    payload = readJson(b64urlDecode(body));
    signatureBytes = b64urlDecode(signature);
  } catch (error) {
    return fail(`malformed: the receipt cannot be read (${error instanceof Error ? error.message : String(error)})`, "malformed");
  }
  if (typeof header !== "object" || header === null || Array.isArray(header) || typeof payload !== "object" || payload === null || Array.isArray(payload)) {
    return fail("malformed: the header and payload must be JSON objects", "malformed");
  }
  const nullMember = nullScoreMember(payload);
  if (nullMember) return fail(`malformed: ${nullMember}`, "malformed");
  if (header["alg"] !== ALG) return fail(`unsupported alg ${JSON.stringify(header["alg"])}: not ${ALG}`, "unsupported-alg");
  if (!TYPES.includes(header["typ"])) {
    return fail(`unsupported typ ${JSON.stringify(header["typ"])}: not ${TYPES[0]}`, "unsupported-typ");
  }
  if ("crit" in header) return fail("malformed: a critical header extension (crit) is not understood here", "malformed");
  const kid = header["kid"];
  if (typeof kid !== "string") return fail(`malformed: the header's kid ${JSON.stringify(kid)} is not a string`, "malformed");
  let strictKeys;
  try {
    strictKeys = readKeySet(keys);
  } catch (error) {
    if (error instanceof Refused) return fail(`the key set cannot be read: ${error.message}`, error.code);
    throw error;
  }
  const key2 = strictKeys.find((k) => k.kid === kid);
  if (!key2 || key2.kty !== "OKP" || key2.crv !== "Ed25519" || !key2.x) {
    return fail(`unknown key ${JSON.stringify(kid)}: not an Ed25519 key of the key set`, "unknown-key");
  }
  let keyBytes;
  try {
    keyBytes = b64urlDecode(key2.x);
  } catch {
    return fail(`unknown key ${JSON.stringify(kid)}: its x is not base64url`, "unknown-key");
  }
  if (!isStrictPublicKey(keyBytes)) {
    return fail(`unknown key ${JSON.stringify(kid)}: not a valid Ed25519 key (a canonical point of the prime-order group)`, "unknown-key");
  }
  if (signatureBytes.length !== 64) return fail(`malformed: an Ed25519 signature is 64 bytes, not ${signatureBytes.length}`, "malformed");
  if (!isCanonicalS(signatureBytes)) return fail("bad signature: its S is not below the group order (a second spelling)", "bad-signature");
  let valid = false;
  try {
    const publicKey = await crypto.subtle.importKey(
      "jwk",
      { kty: "OKP", crv: "Ed25519", x: key2.x },
      { name: "Ed25519" },
      false,
      ["verify"]
    );
    valid = await crypto.subtle.verify(
      { name: "Ed25519" },
      publicKey,
      signatureBytes,
      new TextEncoder().encode(`${head}.${body}`)
    );
  } catch (error) {
    return fail(`the signature cannot be checked here (${String(error)})`, "unsupported-alg");
  }
  if (!valid) return fail("bad signature: the signature does not match the receipt", "bad-signature");
  result.payload = payload;
  result.checked.push(`Ed25519 signature by key ${kid}`);
  const period = keyPeriodProblem(payload, key2);
  if (period) return fail(period, period.startsWith("malformed") ? "malformed" : "key-not-valid");
  const origin = expected.issuerOrigin;
  if (origin !== void 0 && typeof payload.iss === "string" && payload.iss !== origin && !payload.iss.startsWith(`${origin}/`)) {
    return fail(`issued by ${payload.iss}, not by this service (${origin}), whose key set was read`, "wrong-issuer");
  }
  const issued = new Date((payload.iat ?? payload.issued_at) * 1e3).toISOString().replace(".000Z", "Z");
  result.checked.push(`issued${payload.iss ? ` by ${payload.iss}` : ""} at ${issued}, while its key signed`);
  const kind = typeof payload.kind === "string" ? payload.kind : null;
  if (!READ_VERSIONS.includes(payload.version) || kind === null) {
    return fail(`receipt version ${String(payload.version)} is not read here (version ${RECEIPT_VERSION} says what kind of game it proves)`, "bad-version");
  }
  if (![...COMMITTED_KINDS, ...expected.allow ?? []].includes(kind)) {
    return fail(
      `this is a ${kind} receipt: it proves the score of a log on a deck, not that the deck was fixed before the player chose (accept it only knowingly)`,
      "kind-not-accepted"
    );
  }
  if (KIND_HOLDS[kind] && !KIND_HOLDS[kind](payload)) return fail(`the receipt says ${kind} but its flags do not`, "kind-mismatch");
  result.checked.push(`kind ${kind}`);
  const game = expected.game;
  if (game !== void 0) {
    const differs = [
      payload.deal_id !== game.dealId && `the deal (${String(payload.deal_id)}, not ${game.dealId})`,
      payload.variant !== game.variant && `the variant (${payload.variant}, not ${game.variant})`,
      canonical(payload.options) !== canonical(game.options) && "the options",
      payload.moves !== game.moves && "the log",
      game.total !== null && payload.score.total !== game.total && `the score (${payload.score.total}, not ${game.total})`,
      !game.kinds.includes(kind) && `the kind (${kind})`
    ].filter(Boolean);
    if (differs.length) return fail(`the receipt is not of the game played here: ${differs.join(", ")} differ`, "not-this-game");
    result.checked.push("the receipt is of the game played here (deal, variant, options, log, score)");
  }
  if (expected.serverSeedHash !== void 0 && payload.server_seed_hash !== expected.serverSeedHash) {
    return fail("the receipt's server_seed_hash is not the hash committed before the deal", "seed-mismatch");
  }
  if (expected.clientSeed !== void 0 && payload.client_seed !== expected.clientSeed) {
    return fail("the receipt's client_seed is not the client seed this page sent", "seed-mismatch");
  }
  const given = expected.serverSeed?.toLowerCase();
  const own = payload.server_seed ?? null;
  if (given !== void 0 && own !== null && own.toLowerCase() !== given) {
    return fail("the receipt's server seed is not the one its tournament revealed", "seed-mismatch");
  }
  const revealed = own ?? given ?? null;
  if (revealed === null) {
    result.pending = true;
    return fail("the server seed is not revealed yet (a tournament still open): only the signature was checked", "seed-not-revealed");
  }
  if (payload.algorithm !== ALGORITHM) return fail(`unknown deck derivation ${payload.algorithm}`, "unknown-algorithm");
  let seed;
  try {
    seed = fromHex(revealed);
  } catch {
    return fail("the server seed is not hex", "seed-mismatch");
  }
  if (await seedHash(seed) !== payload.server_seed_hash) {
    return fail(
      own === null ? "SHA-256 of the seed the tournament revealed is not the receipt's committed server_seed_hash" : "SHA-256 of the server seed is not the committed server_seed_hash",
      "seed-mismatch"
    );
  }
  result.checked.push(own === null ? "SHA-256(server seed revealed by the closed tournament) equals the receipt's committed hash" : "SHA-256(server seed) equals the committed hash");
  const deckType = DECK_OF[payload.variant];
  if (deckType === void 0) return fail(`unknown variant ${payload.variant}`, "replay-failed");
  try {
    result.deck = await deckCards(deckType, seed, payload.client_seed);
  } catch (error) {
    return fail(`the deck cannot be derived: ${String(error)}`, "replay-failed");
  }
  result.checked.push(`the ${deckType} deck re-derived by ${ALGORITHM}`);
  const reason = await checkDrawnTable(payload, seed, expected.system, result.checked);
  if (reason) return fail(reason, "table-mismatch");
  if (expected.seen !== void 0) {
    const decks = /* @__PURE__ */ new Map([["deal", result.deck]]);
    for (const { stream, index, card } of [...expected.seen].sort((a, b) => a.index - b.index)) {
      let deck = decks.get(stream);
      if (deck === void 0) {
        deck = await deckCards(deckType, seed, payload.client_seed, stream);
        decks.set(stream, deck);
      }
      if (deck[index] !== card) {
        const where = stream === "deal" ? `card ${index}` : `card ${index} of ${stream}`;
        return fail(`${where} was shown as ${card}, the deck's is ${deck[index] ?? "none"}`, "not-this-game");
      }
    }
    result.checked.push(`the ${expected.seen.length} cards shown are the deck's, each in its place`);
  }
  const logReason = logProblem(payload);
  if (logReason) return fail(`the log does not replay: ${logReason}`, "replay-failed");
  const members = scoreMembersProblem(payload.variant, payload.score);
  if (members) return fail(`the receipt's score is not its variant's: ${members}`, "score-mismatch");
  if (REPLAYED.includes(payload.variant)) {
    const reason2 = checkGridScore(payload, result.deck, expected.tables ?? {});
    if (reason2) return fail(reason2, reason2.startsWith("the log scores") ? "score-mismatch" : "replay-failed");
    result.checked.push("the deck's cards on the log's cells score the receipt's total");
  } else if (payload.variant === "solodrez") {
    const replayed = replaySolodrez(result.deck, payload.moves.split(" ").filter(Boolean));
    if ("error" in replayed) return fail(`the log does not replay: ${replayed.error}`, "replay-failed");
    const score = payload.score;
    if (score.total !== replayed.seriesRemoved || score.series_removed !== replayed.seriesRemoved || score.won !== replayed.won) {
      return fail(
        `the log removes ${replayed.seriesRemoved} series${replayed.won ? " (won)" : ""}, the receipt says ${String(score.series_removed)} (total ${score.total}${score.won ? ", won" : ""})`,
        "score-mismatch"
      );
    }
    result.solodrez = { ...replayed, dealt: dealColumns(result.deck) };
    result.checked.push(`the log replayed on the deck's nine columns removes ${replayed.seriesRemoved} of 9 series (${replayed.won ? "won" : "not won"}), as the receipt says`);
  } else {
    result.checked.push(`the ${payload.variant} log is not replayed in the page (the score is as signed; cardproof verify replays it)`);
  }
  result.ok = true;
  return result;
}
async function checkDrawnTable(payload, seed, system, checked) {
  const scoring = payload.options?.scoring;
  const table = typeof scoring === "object" && scoring !== null ? scoring : null;
  if (system !== void 0) {
    if (!isPointSystem(system)) return `${system} is not a point system drawn from the seeds`;
    if (table === null) return `the receipt does not carry the ${system} table its seeds draw`;
    if (!sameTable(table, await drawTable(system, seed, payload.client_seed))) {
      return `the point table is not the ${system} table the seeds draw (${POINTS_ALGORITHM})`;
    }
    checked.push(`the ${system} point table drawn by ${POINTS_ALGORITHM}`);
    return null;
  }
  if (table === null || !DRAWS_TABLES.includes(payload.variant)) return null;
  for (const each of POINT_SYSTEMS) {
    if (sameTable(table, await drawTable(each, seed, payload.client_seed))) {
      checked.push(`its point table is the ${each} table its seeds draw (${POINTS_ALGORITHM})`);
      return null;
    }
  }
  checked.push(`its point table is not one its seeds draw (${POINTS_ALGORITHM}): a custom table, or one picked for the deal`);
  return null;
}
var MOVE_TEXT = {
  "poker-squares": /^[a-e][1-5]$/,
  "serpent-patience": /^[a-e][1-5]$/,
  "poker-patience": /^(?:0|-?[1-4]),(?:0|-?[1-4])$/,
  "repeat-poker": /^r[1-5]$/,
  "reserve-poker": /^[0-3]>[0-4]$/,
  solodrez: /^(?:[0-8]:[1-9][0-9]*>[0-8]|r[0-8]|stop)$/
};
function logProblem(payload) {
  const moves = payload.moves;
  if (moves !== "" && !/^[^ ]+(?: [^ ]+)*$/.test(moves)) return "the moves are not separated by one space each";
  const pattern = MOVE_TEXT[payload.variant];
  const bad = pattern === void 0 ? void 0 : moves.split(" ").filter(Boolean).find((move) => !pattern.test(move));
  if (bad !== void 0) return `${JSON.stringify(bad)} is no ${payload.variant} move in its canonical text`;
  const options = payload.options ?? {};
  if (payload.variant === "reserve-poker" && "version" in options && ![1, 2, 3, 4, 5, 6].includes(options["version"])) {
    return `reserve-poker's version ${JSON.stringify(options["version"])} is not the number played (1..6)`;
  }
  if (payload.variant === "repeat-poker") {
    const rows = options["rows"] ?? 5;
    const levels = options["levels"] ?? 1;
    if (![1, 5].includes(levels)) return `repeat-poker's levels ${JSON.stringify(levels)} is not 1 or 5`;
    if (![1, 2, 3, 4, 5].includes(rows)) return `repeat-poker's rows ${JSON.stringify(rows)} is not 1..5`;
    if (levels === 5 && rows !== 5) return `repeat-poker with levels 5 has 5 rows, not ${String(rows)}`;
    const over = moves.split(" ").filter(Boolean).find((move) => Number(move.slice(1)) > rows);
    if (over !== void 0) return `${over} is no row of ${String(rows)}`;
  }
  return null;
}
var DRAWS_TABLES = GRID_VARIANTS;
function checkGridScore(payload, deck, tables) {
  const reserve = payload.variant === "reserve-poker";
  const variant = reserve ? "poker-squares" : payload.variant;
  const moves = payload.moves.split(" ").filter(Boolean);
  const replayed = reserve ? replayReserve(moves, deck) : replayPlaced(variant, moves, deck);
  if ("error" in replayed) return replayed.error;
  const options = payload.options;
  const fallback = reserve ? "reserve" : variant === "poker-squares" ? "american" : "british";
  const scoring = reserve ? "reserve" : options.scoring ?? fallback;
  const table = typeof scoring === "string" ? tables[scoring] : scoring;
  if (table === void 0) return `the point table ${String(scoring)} is not known to this page`;
  const lines = completeLines(variant, replayed.placed, table, reserve || options.diagonals === true);
  const total = lines.reduce((n, line) => n + line.points, 0);
  if (total !== payload.score.total) return `the log scores ${total}, the receipt says ${payload.score.total}`;
  return null;
}

// src/tlog.ts
var ED25519 = 1;
var COSIGNATURE_V1 = 4;
var MAX_SIGNATURES = 32;
var MAX_NOTE = 64 * 1024;
var MAX_ENTRY_BYTES = 4096;
var HASH_SIZE = 32;
var encoder2 = new TextEncoder();
var utf8 = new TextDecoder("utf-8", { fatal: true });
var NoteError = class extends Error {
  /** Which way it failed: a signature that does not verify, no known signer, or its form. */
  reason;
  constructor(message, reason = "form") {
    super(message);
    this.name = "NoteError";
    this.reason = reason;
  }
};
var EntryError = class extends Error {
  constructor(message) {
    super(message);
    this.name = "EntryError";
  }
};
var ProofError = class extends Error {
  constructor(message) {
    super(message);
    this.name = "ProofError";
  }
};
var LogProofError = class extends Error {
  code;
  check;
  constructor(code, message, check2) {
    super(message);
    this.name = "LogProofError";
    this.code = code;
    this.check = check2;
  }
};
function concat(...parts) {
  const out = new Uint8Array(parts.reduce((n, part) => n + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}
async function sha256(...parts) {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", concat(...parts)));
}
function sameBytes(a, b) {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}
function hex(bytes) {
  return [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
}
var ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
function b64decode(text) {
  if (!/^[A-Za-z0-9+/]*=*$/.test(text) || text.startsWith("=")) return null;
  const data = text.replace(/=+$/, "");
  const pads = text.length - data.length;
  const rest = data.length % 4;
  if (rest === 1 || rest === 2 && pads !== 2 || rest === 3 && pads !== 1) return null;
  const out = new Uint8Array(Math.floor(data.length * 3 / 4));
  let bits = 0;
  let held = 0;
  let at = 0;
  for (const char of data) {
    bits = bits << 6 | ALPHABET.indexOf(char);
    held += 6;
    if (held >= 8) {
      held -= 8;
      out[at++] = bits >> held & 255;
    }
  }
  return out;
}
function b64encode(bytes) {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}
function pyStrip(text) {
  const space = "\\t\\n\\v\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
  return text.replace(new RegExp(`^[${space}]+|[${space}]+$`, "g"), "");
}
function pyRepr(value) {
  if (value === null || value === void 0) return "None";
  if (typeof value !== "string") return String(value);
  const quote = value.includes("'") && !value.includes('"') ? '"' : "'";
  let out = "";
  for (const char of value) {
    const code = char.codePointAt(0) ?? 0;
    if (char === "\\" || char === quote) out += `\\${char}`;
    else if (char === "\n") out += "\\n";
    else if (char === "\r") out += "\\r";
    else if (char === "	") out += "\\t";
    else if (char !== " " && /[\p{C}\p{Z}]/u.test(char)) {
      const digits = code.toString(16);
      out += code < 256 ? `\\x${digits.padStart(2, "0")}` : code < 65536 ? `\\u${digits.padStart(4, "0")}` : `\\U${digits.padStart(8, "0")}`;
    } else out += char;
  }
  return `${quote}${out}${quote}`;
}
function hasControl(text) {
  return /[\x00-\x09\x0b-\x1f]/.test(text);
}
async function leafHash(entry) {
  return sha256(new Uint8Array([0]), entry);
}
async function nodeHash(left, right) {
  return sha256(new Uint8Array([1]), left, right);
}
async function inclusionRoot(index, size, leaf, proof) {
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
async function checkInclusion(index, size, leaf, proof, root) {
  if (!sameBytes(await inclusionRoot(index, size, leaf, proof), root)) {
    throw new ProofError("the inclusion proof does not lead to the root");
  }
}
async function keyId(name, kind, publicKey) {
  return (await sha256(encoder2.encode(`${name}
`), new Uint8Array([kind]), publicKey)).slice(0, 4);
}
function checkName(name) {
  if (!/^[^+\p{C}\p{Z}]+$/u.test(name)) {
    throw new NoteError(`a key name is not empty and has no space or '+': ${pyRepr(name)}`);
  }
}
async function parseVerifier(vkey) {
  const text = pyStrip(vkey);
  const first = text.indexOf("+");
  const second = first < 0 ? -1 : text.indexOf("+", first + 1);
  const hexId = text.slice(first + 1, second);
  if (second < 0 || !/^[0-9a-f]{8}$/.test(hexId)) throw new NoteError(`not a verifier key (name+id+key): ${pyRepr(vkey)}`);
  const name = text.slice(0, first);
  checkName(name);
  const raw = b64decode(text.slice(second + 1));
  if (raw === null) throw new NoteError("a verifier key's key is not base64");
  if (raw.length !== 33 || raw[0] !== ED25519 && raw[0] !== COSIGNATURE_V1) {
    throw new NoteError("a verifier key here is an Ed25519 key (type 0x01 or 0x04)");
  }
  const kind = raw[0];
  const publicKey = raw.slice(1);
  const id = await keyId(name, kind, publicKey);
  if (hex(id) !== hexId) throw new NoteError(`the verifier key's ID is not its name's and key's: ${pyRepr(vkey)}`);
  return { name, kind, publicKey, id };
}
function sameVerifier(a, b) {
  return a.name === b.name && a.kind === b.kind && sameBytes(a.publicKey, b.publicKey);
}
async function ed25519Verifies(publicKey, signature, message) {
  let key2;
  try {
    key2 = await crypto.subtle.importKey("raw", publicKey, { name: "Ed25519" }, false, ["verify"]);
  } catch (error) {
    if (error instanceof Error && error.name === "NotSupportedError") throw error;
    return false;
  }
  return crypto.subtle.verify({ name: "Ed25519" }, key2, signature, message);
}
function cosignedMessage(text, timestamp) {
  return encoder2.encode(`cosignature/v1
time ${timestamp}
${text}`);
}
function splitNote(note) {
  if ([...note].length > MAX_NOTE) throw new NoteError(`a note is at most ${MAX_NOTE} characters`);
  if (hasControl(note)) throw new NoteError("a note holds no control character but newlines");
  const at = note.lastIndexOf("\n\n");
  if (at < 0 || !note.endsWith("\n")) throw new NoteError("a note is its text, a blank line, and its signature lines");
  const text = note.slice(0, at + 1);
  const block = note.slice(at + 2);
  if (!block) throw new NoteError("a note has at least one signature");
  const lines = block.split(/(?<=[\n\x85\u2028\u2029])/);
  if (lines.length > MAX_SIGNATURES) throw new NoteError(`a note has at most ${MAX_SIGNATURES} signatures here`);
  for (const line of lines) {
    if (!/^\u2014 [^ +\n]+ [A-Za-z0-9+/=]+\n$/.test(line)) {
      throw new NoteError(`not a signature line: ${pyRepr(line.replace(/[\s\x85]+$/, ""))}`);
    }
  }
  return { text, lines };
}
async function openNote(note, verifiers, required = 1) {
  const { text, lines } = splitNote(note);
  const signatures = [];
  const unknown = [];
  for (const line of lines) {
    const [, name = "", encoded = ""] = line.split(" ");
    const raw = b64decode(pyStrip(encoded));
    if (raw === null) throw new NoteError(`the signature of ${name} is not base64`);
    const verifier = verifiers.find((v) => v.name === name && sameBytes(v.id, raw.slice(0, 4)));
    if (verifier === void 0) {
      unknown.push(line);
      continue;
    }
    let timestamp = null;
    let verifies;
    if (verifier.kind === COSIGNATURE_V1) {
      if (raw.length !== 4 + 8 + 64) throw new NoteError(`the cosignature of ${name} is not 76 bytes`);
      timestamp = new DataView(raw.buffer, raw.byteOffset + 4, 8).getBigUint64(0);
      verifies = await ed25519Verifies(verifier.publicKey, raw.slice(12), cosignedMessage(text, timestamp));
    } else {
      verifies = await ed25519Verifies(verifier.publicKey, raw.slice(4), encoder2.encode(text));
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
function checkpointText(checkpoint) {
  const lines = [checkpoint.origin, String(checkpoint.size), b64encode(checkpoint.root), ...checkpoint.extensions];
  return lines.map((line) => `${line}
`).join("");
}
function parseCheckpoint(text) {
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
var MEMBERS = {
  receipt: [
    ["receipt", "hex64"],
    ["deal", "id"],
    ["kind", "id"],
    ["variant", "id"],
    ["score", "int"],
    ["iat", "int"],
    ["kid", "id"],
    ["tournament", "id", true]
  ],
  "round-commitment": [
    ["tournament", "id"],
    ["round", "round"],
    ["server_seed_hash", "hex64"]
  ],
  "round-reveal": [
    ["tournament", "id"],
    ["round", "round"],
    ["server_seed", "hex64"]
  ],
  settlement: [
    ["tournament", "id"],
    ["digest", "hex64"]
  ]
};
function memberProblem(value, member) {
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
function jsonType(value) {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "int" : "float";
  if (typeof value === "boolean") return "bool";
  return typeof value === "string" ? "str" : "object";
}
function encodeEntry(entry) {
  const fields = entry;
  const parts = [`"type":${JSON.stringify(entry.type)}`];
  for (const [name, , optional] of MEMBERS[entry.type]) {
    const value = fields[name];
    if (optional && (value === void 0 || value === null)) continue;
    parts.push(`${JSON.stringify(name)}:${JSON.stringify(value)}`);
  }
  return encoder2.encode(`{${parts.join(",")}}`);
}
function parseEntry(data) {
  if (data.length > MAX_ENTRY_BYTES) throw new EntryError(`an entry is at most ${MAX_ENTRY_BYTES} bytes`);
  let value;
  try {
    value = JSON.parse(utf8.decode(data));
  } catch {
    throw new EntryError("a log entry is a JSON object");
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new EntryError(`not a log entry: Expected \`object\`, got \`${jsonType(value)}\``);
  }
  const object = value;
  if (!("type" in object)) throw new EntryError("not a log entry: Object missing required field `type`");
  const type = object["type"];
  if (typeof type !== "string" || !Object.hasOwn(MEMBERS, type)) {
    throw new EntryError(`not a log entry: Invalid value ${pyRepr(type)} - at \`$.type\``);
  }
  const members = MEMBERS[type];
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
  const entry = object;
  if (!sameBytes(encodeEntry(entry), data)) {
    throw new EntryError("not the entry's one spelling (member order, spaces, escapes)");
  }
  return entry;
}
async function receiptDigest(receipt) {
  return hex(await sha256(encoder2.encode(receipt)));
}
function unreadable(why) {
  return new LogProofError("malformed", `the receipt cannot be read: ${why}`, "the receipt cannot be read");
}
function pyStrOrEmpty(value) {
  const empty = value === null || value === void 0 || value === false || value === 0 || value === "";
  if (empty || Array.isArray(value) && value.length === 0) return "";
  if (value === true) return "True";
  return typeof value === "string" ? value : typeof value === "object" ? JSON.stringify(value) : String(value);
}
async function receiptEntry(receipt) {
  const token = pyStrip(receipt);
  const parts = token.split(".");
  if (parts.length !== 3) throw unreadable("a receipt is a compact JWS: three base64url parts");
  let header;
  let payload;
  try {
    header = JSON.parse(utf8.decode(b64urlDecode(parts[0] ?? "")));
    payload = JSON.parse(utf8.decode(b64urlDecode(parts[1] ?? "")));
  } catch (error) {
    throw unreadable(String(error));
  }
  if (header === null || typeof header !== "object" || Array.isArray(header)) throw unreadable("the header is not a JSON object");
  if (payload === null || typeof payload !== "object" || Array.isArray(payload)) throw unreadable("the payload is not a JSON object");
  const p = payload;
  const score = p["score"];
  const optionalString = (name) => p[name] === void 0 || p[name] === null || typeof p[name] === "string";
  const integer = (value) => typeof value === "number" && Number.isSafeInteger(value);
  if (!("deal_id" in p) || !optionalString("deal_id") || !optionalString("kind") || !optionalString("tournament") || typeof p["variant"] !== "string" || score === null || typeof score !== "object" || !integer(score["total"]) || !integer(p["issued_at"]) || !(p["iat"] === void 0 || p["iat"] === null || integer(p["iat"]))) {
    throw unreadable("its payload is not a receipt's");
  }
  if (typeof p["deal_id"] !== "string" || typeof p["kind"] !== "string") {
    throw new EntryError("a receipt of no deal (practice, or older than kinds) is not logged");
  }
  const entry = {
    type: "receipt",
    receipt: await receiptDigest(token),
    deal: p["deal_id"],
    kind: p["kind"],
    variant: p["variant"],
    score: score["total"],
    iat: p["iat"] ?? p["issued_at"],
    kid: pyStrOrEmpty(header["kid"])
  };
  if (typeof p["tournament"] === "string") entry.tournament = p["tournament"];
  return entry;
}
function readLogProof(log) {
  const shape = "the log answer is not {index, entry, checkpoint, proof}";
  if (log === null || typeof log !== "object" || Array.isArray(log)) throw new LogProofError("malformed", shape, "a malformed log answer");
  const answer = log;
  const known = ["index", "entry", "checkpoint", "proof"];
  const extra = Object.keys(answer).find((name) => !known.includes(name));
  const proof = answer["proof"];
  if (extra !== void 0 || !Number.isSafeInteger(answer["index"]) || typeof answer["entry"] !== "string" || typeof answer["checkpoint"] !== "string" || !Array.isArray(proof) || !proof.every((node) => typeof node === "string")) {
    throw new LogProofError("malformed", extra === void 0 ? shape : `${shape}: ${extra}`, "a malformed log answer");
  }
  return answer;
}
var NO_WITNESSES = { witnesses: [], quorum: 0 };
async function checkInLog(receipt, log, logKey, policy = NO_WITNESSES) {
  const answer = readLogProof(log);
  let key2;
  try {
    key2 = typeof logKey === "string" ? await parseVerifier(logKey) : logKey;
  } catch (error) {
    if (!(error instanceof NoteError)) throw error;
    throw new LogProofError("log-key", `the log's key: ${error.message}`, "the log's key cannot be read");
  }
  if (!(policy.quorum >= 0 && policy.quorum <= policy.witnesses.length) || policy.witnesses.some((w) => w.kind !== COSIGNATURE_V1)) {
    throw new RangeError("a witness policy is a quorum its cosignature/v1 keys can reach");
  }
  let opened;
  let checkpoint;
  try {
    opened = await openNote(answer.checkpoint, [key2, ...policy.witnesses]);
    checkpoint = parseCheckpoint(opened.text);
  } catch (error) {
    if (!(error instanceof NoteError)) throw error;
    const check2 = {
      signature: "bad checkpoint signature",
      unsigned: "the checkpoint is not signed by the log's key",
      form: "a malformed checkpoint"
    }[error.reason];
    throw new LogProofError("checkpoint", `the checkpoint: ${error.message}`, check2);
  }
  if (!opened.signatures.some((s) => sameVerifier(s.verifier, key2))) {
    throw new LogProofError("checkpoint", "the checkpoint is not signed by the log's key", "the checkpoint is not signed by the log's key");
  }
  if (checkpoint.origin !== key2.name) {
    throw new LogProofError("checkpoint", `the checkpoint is of ${pyRepr(checkpoint.origin)}, not ${pyRepr(key2.name)}`, "the checkpoint is another log's");
  }
  const times = opened.signatures.map((s) => s.timestamp).filter((t) => t !== null).sort((a, b) => a < b ? -1 : a > b ? 1 : 0);
  if (times.length < policy.quorum) {
    throw new LogProofError(
      "witnesses",
      `${times.length} of the trusted witnesses cosigned the checkpoint; ${policy.quorum} needed`,
      "too few witnesses cosigned the checkpoint"
    );
  }
  const data = b64decode(answer.entry);
  if (data === null) throw new LogProofError("malformed", "the entry is not base64", "a malformed log answer");
  let entry;
  try {
    entry = parseEntry(data);
  } catch (error) {
    if (!(error instanceof EntryError)) throw error;
    throw new LogProofError("entry", `the entry: ${error.message}`, "a malformed entry");
  }
  if (entry.type !== "receipt") throw new LogProofError("entry", "the entry is not a receipt's", "the entry is not a receipt's");
  await checkEntry(receipt, entry);
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
  const cosignedAt = policy.quorum ? times[policy.quorum - 1] ?? null : null;
  return { index: answer.index, size: checkpoint.size, origin: checkpoint.origin, entry, cosignedAt };
}
async function checkEntry(receipt, entry) {
  if (entry.receipt !== await receiptDigest(pyStrip(receipt))) {
    throw new LogProofError("entry", "the entry names another receipt", "the entry does not name this receipt");
  }
  let stated;
  try {
    stated = await receiptEntry(receipt);
  } catch (error) {
    if (!(error instanceof EntryError)) throw error;
    throw new LogProofError("entry", error.message, "the receipt is not one the log keeps");
  }
  const found = entry;
  const says = stated;
  for (const [member] of MEMBERS.receipt) {
    const value = says[member] ?? null;
    if ((found[member] ?? null) !== value) {
      throw new LogProofError(
        "entry",
        `the entry's ${member} is ${pyRepr(found[member])}; the receipt says ${pyRepr(value)}`,
        "the entry does not say what the receipt says"
      );
    }
  }
}

// src/verify-page.ts
var status = document.getElementById("verification");
var area = document.getElementById("receipt");
var details = document.getElementById("details");
var logStatus = document.getElementById("log-status");
var logAgain = document.getElementById("log-again");
var retry = document.getElementById("log-retry");
logStatus.style.overflowWrap = "anywhere";
var SEQUENCING_GRACE = 60;
async function logAnswer(token, dealId) {
  try {
    const answer = await call("get", "/v1/deals/{deal_id}/receipt", { params: { deal_id: dealId } });
    if (cleanReceipt(answer.receipt) === token) return answer.log ?? null;
  } catch (error) {
    if (!(error instanceof ApiError) || error.status >= 500) throw error;
  }
  const leaf = hex(await leafHash(encodeEntry(await receiptEntry(token))));
  try {
    return await call("get", "/log/proof/{leaf}", { params: { leaf } });
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return null;
    throw error;
  }
}
async function logCheck(token, kind, dealId, issued) {
  if (kind === "practice") return null;
  if (!dealId) {
    const refusal = `a ${String(kind)} receipt of no deal: no log holds one`;
    return { text: `Not in the log: ${refusal} (not-in-log)`, style: "not-verified", retry: false, refusal };
  }
  try {
    await receiptEntry(token);
  } catch (error) {
    if (error instanceof EntryError) return null;
    throw error;
  }
  let answer;
  let key2;
  try {
    const keyAnswer = fetch("/log/key", { credentials: "omit" });
    answer = await logAnswer(token, dealId);
    const response = await keyAnswer;
    if (!response.ok) throw new Error(`HTTP ${response.status} for /log/key`);
    key2 = await response.text();
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return { text: `The log could not be read (${why})`, style: "pending", retry: true };
  }
  if (answer === null) {
    if (Date.now() / 1e3 - issued < SEQUENCING_GRACE) {
      return { text: "Not yet in the log (sequenced within a second or two)", style: "pending", retry: true };
    }
    const text = "Not in the log: this server's transparency log does not hold this receipt, signed over a minute ago with its key (not-in-log). The service logs every receipt it signs; one it never logged was signed by someone else with its key, or before the service kept its log";
    return { text, style: "not-verified", retry: false, refusal: "it is not in the server's transparency log" };
  }
  try {
    const found = await checkInLog(token, answer, key2);
    return { text: `In the log at index ${found.index} (checkpoint of size ${found.size}, signed by ${found.origin})`, style: "verified", retry: false };
  } catch (error) {
    if (!(error instanceof LogProofError)) throw error;
    return {
      text: `Log check failed: ${error.check} (${error.code}: ${error.message})`,
      style: "not-verified",
      retry: false,
      refusal: `the log check failed: ${error.check}`
    };
  }
}
function miniGrid(placed) {
  const coords = [...placed.keys()].map((text) => text.split(",").map(Number));
  const top = Math.min(...coords.map(([r]) => r));
  const left = Math.min(...coords.map(([, c]) => c));
  const grid = document.createElement("div");
  grid.className = "mini-grid";
  grid.setAttribute("role", "img");
  const cards = [];
  for (let r = 0; r < 5; r++) {
    for (let c = 0; c < 5; c++) {
      const card = placed.get(key([top + r, left + c])) ?? null;
      const cell = document.createElement("span");
      cell.className = card ? `card ${colourClass(card, false)}` : "card";
      cell.textContent = card ? cardLabel(card) : "";
      if (card) cards.push(card);
      grid.append(cell);
    }
  }
  grid.setAttribute("aria-label", `the grid, row by row: ${cards.join(" ")}`);
  return grid;
}
function soloColumns(columns, label) {
  const table = document.createElement("div");
  table.className = "solodrez";
  table.setAttribute("role", "group");
  table.setAttribute("aria-label", label);
  columns.forEach((column, a) => {
    const box = document.createElement("div");
    box.className = "column";
    box.setAttribute("role", "list");
    box.setAttribute("aria-label", `${soloColumn(a)}: ${column.length ? column.join(" ") : "empty"}`);
    const head = document.createElement("span");
    head.className = "row-name";
    head.textContent = `${a + 1}`;
    head.setAttribute("aria-hidden", "true");
    box.append(head);
    for (const card of column) {
      const cell = document.createElement("span");
      cell.className = `card ${colourClass(card, false)}`;
      cell.setAttribute("role", "listitem");
      cell.textContent = cardLabel(card);
      box.append(cell);
    }
    table.append(box);
  });
  return table;
}
function soloChecked(solo, log) {
  const heading = (text) => {
    const h = document.createElement("h3");
    h.textContent = text;
    return h;
  };
  const shown = [heading("The deal: columns 1 to 9, first card at the top"), soloColumns(solo.dealt, "the nine columns as dealt")];
  shown.push(heading(`Series removed: ${solo.seriesRemoved} of 9`));
  if (solo.series.length) {
    const list = document.createElement("ol");
    list.id = "checked-series";
    for (const each of solo.series) {
      const item = document.createElement("li");
      item.textContent = `${each.cards.map(cardLabel).join(" ")} from ${soloColumn(each.column)} (move ${each.move + 1})`;
      list.append(item);
    }
    shown.push(list);
  }
  const left = solo.columns.reduce((n, column) => n + column.length, 0);
  const end = document.createElement("p");
  end.id = "checked-result";
  const moves = log.split(" ").filter(Boolean);
  const stopped = moves[moves.length - 1] === "stop";
  const played = countMoves(stopped ? moves.slice(0, -1).join(" ") : log);
  const ended = !stopped ? `the game ended after ${played}` : played === "no move" ? "stopped before any move" : `stopped after ${played}`;
  end.textContent = solo.won ? `Won: all nine series removed in ${countMoves(log)} (the neutrals then leave too).` : `Not won: ${solo.seriesRemoved} of 9 series removed; ${ended}, with ${left} cards on the table.`;
  shown.push(end);
  if (!solo.won && moves.length > 0) shown.push(heading("The columns as the game ended"), soloColumns(solo.columns, "the nine columns as the game ended"));
  return shown;
}
function gridOf(p, deck) {
  const moves = p.moves.split(" ").filter(Boolean);
  if (deck !== null && GRID_VARIANTS.includes(p.variant)) {
    const replayed = replayPlaced(p.variant, moves, deck);
    if (!("error" in replayed)) return replayed.placed;
  }
  if (deck !== null && p.variant === "reserve-poker") {
    const replayed = replayReserve(moves, deck);
    if (!("error" in replayed)) return replayed.placed;
  }
  const rows = [1, 2, 3, 4, 5].map((n) => p.score.hands.find((hand) => hand.line === `row ${n}` && !hand.level));
  if (rows.some((row) => row === void 0 || row.cards.length !== 5)) return null;
  const placed = /* @__PURE__ */ new Map();
  rows.forEach((row, r) => row?.cards.forEach((card, c) => placed.set(key([r, c]), card)));
  return placed;
}
function showChecked(p, checked, deck, titles, solo = null) {
  const section = document.getElementById("checked");
  section.hidden = checked.length === 0 && p === null;
  document.getElementById("checks").replaceChildren(
    ...checked.map((text) => {
      const item = document.createElement("li");
      item.textContent = text;
      return item;
    })
  );
  const kind = document.getElementById("kind");
  const place = document.getElementById("checked-grid");
  const lines = document.getElementById("checked-lines");
  place.replaceChildren();
  lines.tBodies[0]?.replaceChildren();
  lines.hidden = true;
  kind.textContent = "";
  if (p === null) return;
  const score = p.score;
  const title = titles.get(p.variant) ?? p.variant;
  const result = typeof score.series_removed === "number" ? `; ${score.won ? "won" : "not won"}, ${score.series_removed} of 9 series removed` : "";
  const named = title.endsWith(")") ? `${title.slice(0, -1)}; ${p.variant})` : `${title} (${p.variant})`;
  kind.textContent = `${named}, a ${String(p.kind ?? "version 1")} receipt: ${countMoves(p.moves)}, total ${score.total}${result}.`;
  if (solo !== null) {
    place.append(...soloChecked(solo, p.moves));
    return;
  }
  const placed = gridOf(p, deck);
  if (placed !== null) place.append(miniGrid(placed));
  if (score.hands.length === 0) return;
  for (const hand of score.hands) {
    const row = lines.tBodies[0]?.insertRow();
    const level = hand.level ? ` (level ${hand.level})` : "";
    for (const text of [`${hand.line}${level}`, hand.cards.map(cardLabel).join(" "), hand.category, String(hand.points)]) {
      if (row) row.insertCell().textContent = text;
    }
  }
  document.getElementById("checked-total").textContent = String(score.total);
  lines.hidden = false;
}
function readerHeaders(tid) {
  const held = [
    () => JSON.parse(localStorage.getItem(`cardproof:entry:${tid}`) ?? "null")?.token,
    () => sessionStorage.getItem(`cardproof:reader:${tid}`),
    () => sessionStorage.getItem(`cardproof:organizer:${tid}`)
  ];
  for (const read of held) {
    try {
      const credential = read();
      if (typeof credential === "string" && credential) {
        return /^cp[eo]_/.test(credential) ? { Authorization: `Bearer ${credential}` } : { "X-Invite-Code": credential };
      }
    } catch {
    }
  }
  return {};
}
var refused = (verdict, reason, code) => ({
  ...verdict,
  ok: false,
  pending: false,
  reasons: [reason],
  code
});
async function againstTournament(token, keys, expected, first) {
  const p = first.payload;
  const tid = String(p.tournament);
  const headers = readerHeaders(tid);
  let tournament;
  try {
    tournament = await call("get", "/v1/tournaments/{tournament_id}", { params: { tournament_id: tid }, headers });
  } catch (error) {
    if (first.ok) return { verdict: first, waiting: null };
    if (error instanceof ApiError && error.status === 404) {
      return { verdict: refused(first, `this server has no tournament ${tid} (it expired, or the receipt is another server's): its seed cannot be read`, "unknown-tournament"), waiting: null };
    }
    const why = error instanceof ApiError && (error.status === 401 || error.status === 403) ? `tournament ${tid} is invite-only and this browser holds no invite code or entry of it (open its standings page with your invite code, or verify in the browser you entered with)` : `tournament ${tid} could not be read (${error instanceof Error ? error.message : String(error)})`;
    return { verdict: first, waiting: `Not verified yet: the signature holds, but ${why}; the seed, the deck and the cards are checked with the tournament's revealed seed.` };
  }
  const round = tournament.rounds.find((r) => r.server_seed_hash === p.server_seed_hash);
  if (round === void 0) {
    return { verdict: refused(first, `no round of tournament ${tid} committed to this receipt's server_seed_hash`, "not-in-tournament"), waiting: null };
  }
  if (p.client_seed !== tournament.salt) {
    return { verdict: refused(first, "its client seed is not the tournament's salt: it was dealt another deck than the round's", "seed-mismatch"), waiting: null };
  }
  if (p.variant !== tournament.variant) {
    return { verdict: refused(first, `it is ${p.variant}, the tournament plays ${tournament.variant}`, "not-this-game"), waiting: null };
  }
  const issued = p.iat ?? p.issued_at;
  const end = tournament.closed_at ?? tournament.closes_at;
  if (issued < Date.parse(tournament.created_at) / 1e3 - 1 || issued > Date.parse(end) / 1e3 + 1) {
    return { verdict: refused(first, `it is dated outside its tournament's life (${tournament.created_at} to ${end})`, "bad-date"), waiting: null };
  }
  const ofRound = `round ${round.round} of ${JSON.stringify(tournament.name)} (${tid}) committed to its seed hash; its client seed is the tournament's salt; issued while the tournament stood`;
  if (round.server_seed === null) {
    if (p.server_seed !== null && p.server_seed !== void 0) {
      return { verdict: refused(first, `it shows round ${round.round}'s seed while the tournament is open: the service shows a tournament game's seed only after the close`, "early-seed"), waiting: null };
    }
    first.checked.push(ofRound);
    const waiting = `Not verified yet: the signature holds; ${JSON.stringify(tournament.name)} is still open (it closes at ${tournament.closes_at}): round ${round.round}'s seed, the deck and the cards are checked once it closes.`;
    return { verdict: first, waiting };
  }
  const scoring = tournament.options?.scoring;
  const verdict = await verifyReceipt(token, keys, { ...expected, serverSeed: round.server_seed, ...isPointSystem(scoring) ? { system: scoring } : {} });
  if (!verdict.ok) return { verdict, waiting: null };
  verdict.checked.push(ofRound);
  try {
    const standings = await call("get", "/v1/tournaments/{tournament_id}/standings", {
      params: { tournament_id: tid },
      query: { player: String(p.player) },
      headers
    });
    const game = standings.player === p.player ? standings.games?.find((g) => g.round === round.round) : void 0;
    if (game?.total !== p.score.total) {
      const said = game === void 0 ? "no game of round " + String(round.round) : `a total of ${game.total}`;
      return { verdict: refused(verdict, `the closed tournament's standings give ${JSON.stringify(p.player)} ${said}, not this receipt's ${p.score.total}`, "not-in-standings"), waiting: null };
    }
    verdict.checked.push(`the closed tournament's standings count it: ${String(p.player)}, round ${round.round}, ${p.score.total}`);
  } catch {
  }
  return { verdict, waiting: null };
}
var generation = 0;
var lastReceipt = null;
function showLog(line, mine) {
  if (mine !== generation) return;
  if (line === null) {
    logStatus.textContent = "A practice receipt names no deal: it is not in the log.";
    logStatus.className = "";
    logAgain.hidden = true;
    return;
  }
  logStatus.textContent = line.text;
  logStatus.className = line.style;
  logAgain.hidden = !line.retry;
  if (line.refusal) {
    status.textContent = `Not verified: ${line.refusal}.`;
    status.className = "not-verified";
  } else if (line.style === "pending" && status.className === "verified") {
    status.textContent = "Not verified yet: the receipt checks out, but it is not in the server's transparency log yet (check the log again in a moment).";
    status.className = "pending";
  }
}
async function checkLog() {
  if (lastReceipt === null) return;
  const mine = ++generation;
  logAgain.hidden = true;
  logStatus.textContent = "Checking the transparency log…";
  logStatus.className = "";
  const { token, kind, dealId, issued } = lastReceipt;
  try {
    showLog(await logCheck(token, kind, dealId, issued), mine);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    showLog({ text: `The log could not be checked here (${why})`, style: "pending", retry: true }, mine);
  }
}
async function check() {
  const mine = ++generation;
  lastReceipt = null;
  status.textContent = "Verifying…";
  status.className = "";
  details.textContent = "";
  showChecked(null, [], null, /* @__PURE__ */ new Map());
  logStatus.textContent = "";
  logStatus.className = "";
  logAgain.hidden = true;
  try {
    const [keys, variants] = await Promise.all([call("get", "/.well-known/jwks.json"), call("get", "/v1/variants")]);
    const tables = {};
    for (const info of variants) Object.assign(tables, info.tables);
    const allow = [...document.querySelectorAll("input[name=allow]:checked")].map((box) => box.value);
    const token = cleanReceipt(area.value);
    const expected = { tables, allow, issuerOrigin: window.location.origin };
    let verdict = await verifyReceipt(token, keys, expected);
    let waiting = null;
    if ((verdict.ok || verdict.pending) && verdict.payload?.tournament) {
      ({ verdict, waiting } = await againstTournament(token, keys, expected, verdict));
    }
    if (mine !== generation) return;
    if (verdict.ok) status.textContent = "Verified: every check below holds.";
    else if (verdict.pending) {
      status.textContent = waiting ?? "Not verified yet: the signature holds; the seed, the deck and the cards are checked once the tournament closes.";
    } else status.textContent = `Not verified: ${verdict.reasons.join("; ")}.`;
    const titles = new Map(variants.map((info) => [info.id, info.title]));
    showChecked(verdict.ok || verdict.pending ? verdict.payload : null, verdict.ok || verdict.pending ? verdict.checked : [], verdict.deck, titles, verdict.ok ? verdict.solodrez : null);
    status.className = verdict.ok ? "verified" : verdict.pending ? "pending" : "not-verified";
    if (verdict.payload) {
      const p = verdict.payload;
      const scoring = p.options.scoring;
      const table = scoring !== null && typeof scoring === "object" ? `, a custom point table ${JSON.stringify(scoring)}` : "";
      details.textContent = `${p.variant} (${String(p.kind)}), score ${p.score.total}, ${countMoves(p.moves)}, client seed ${JSON.stringify(p.client_seed)}${p.player ? `, player ${p.player}` : ""}${table}`;
    }
    if (verdict.payload && (verdict.ok || verdict.pending)) {
      const p = verdict.payload;
      lastReceipt = { token, kind: p.kind, dealId: p.deal_id, issued: Number(p.iat ?? p.issued_at) };
      await checkLog();
    }
  } catch (error) {
    if (mine !== generation) return;
    status.textContent = `Not verified: ${error instanceof Error ? error.message : String(error)}.`;
    status.className = "not-verified";
  }
}
document.getElementById("verify")?.addEventListener("click", () => void check());
retry.addEventListener("click", () => void checkLog());
document.body.dataset["ready"] = "1";

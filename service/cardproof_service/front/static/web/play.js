// src/client.ts
var ApiError = class extends Error {
  status;
  code;
  problem;
  constructor(status, problem) {
    const detail = typeof problem["detail"] === "string" ? problem["detail"] : `HTTP ${status}`;
    super(detail);
    this.status = status;
    this.code = typeof problem["code"] === "string" ? problem["code"] : "";
    this.problem = problem;
  }
};
function newKey() {
  return crypto.randomUUID();
}
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
function colourClass(card, fourColours2) {
  const suit = suitOf(card);
  if (!suit) return "card-joker";
  if (fourColours2) return `card-${suit.toLowerCase()}`;
  return suit === "D" || suit === "H" ? "card-red" : "card-black";
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
var points = (table2, category) => table2[category] ?? 0;
function bestCategory(cards, table2) {
  const jokers = cards.filter((card) => card === "JK").length;
  if (jokers === 0) return classify(cards);
  if (jokers > 1) throw new RangeError("a hand may hold one joker at most");
  const rest = cards.filter((card) => card !== "JK");
  let best = "high-card";
  for (const stand of STANDARD) {
    const category = classify([...rest, stand]);
    const better = points(table2, category) - points(table2, best);
    if (better > 0 || better === 0 && CATEGORIES.indexOf(category) > CATEGORIES.indexOf(best)) {
      best = category;
    }
  }
  return best;
}
function scoreLine(line, cards, table2) {
  const category = bestCategory(cards, table2);
  return { line, cards, category, points: points(table2, category) };
}

// src/grid.ts
var GRID_VARIANTS = ["poker-squares", "poker-patience", "serpent-patience"];
var SIZE = 5;
var COLUMNS = "abcde";
var key = ([r, c]) => `${r},${c}`;
function placedCards(view) {
  const top = view.origin?.[0] ?? 0;
  const left = view.origin?.[1] ?? 0;
  const placed = /* @__PURE__ */ new Map();
  view.layout.forEach(
    (row, r) => row.forEach((card, c) => {
      if (card !== null) placed.set(key([top + r, left + c]), card);
    })
  );
  return placed;
}
var coordOf = (text) => text.split(",").map(Number);
function moveText(variant, [r, c]) {
  return variant === "poker-patience" ? `${r},${c}` : `${COLUMNS[c]}${r + 1}`;
}
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
function playableCells(variant, placed, last) {
  const free = /* @__PURE__ */ new Set();
  if (variant === "poker-patience") {
    if (placed.size === 0) return /* @__PURE__ */ new Set([key([0, 0])]);
    const coords = [...placed.keys()].map(coordOf);
    const rows = coords.map(([r]) => r);
    const cols = coords.map(([, c]) => c);
    for (const [r, c] of coords) {
      for (const dr of [-1, 0, 1]) {
        for (const dc of [-1, 0, 1]) {
          const cell = [r + dr, c + dc];
          const fits2 = Math.max(...rows, cell[0]) - Math.min(...rows, cell[0]) < SIZE && Math.max(...cols, cell[1]) - Math.min(...cols, cell[1]) < SIZE;
          if (!placed.has(key(cell)) && fits2) free.add(key(cell));
        }
      }
    }
    return free;
  }
  for (let r = 0; r < SIZE; r++) for (let c = 0; c < SIZE; c++) if (!placed.has(key([r, c]))) free.add(key([r, c]));
  if (variant === "serpent-patience" && last !== null) {
    const [r, c] = last;
    const next = /* @__PURE__ */ new Set([key([r - 1, c]), key([r + 1, c]), key([r, c - 1]), key([r, c + 1])]);
    return new Set([...free].filter((cell) => next.has(cell)));
  }
  return free;
}
function deadEnd(placed, cell, cardsLeftAfter) {
  if (cardsLeftAfter === 0) return false;
  const after = new Map(placed);
  after.set(key(cell), "?");
  return playableCells("serpent-patience", after, cell).size === 0;
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
function completeLines(variant, placed, table2, diagonals) {
  const lines = scoredLines(variant, placed, diagonals);
  const complete = lines.filter(([, cells]) => cells.every((cell) => placed.has(key(cell))));
  return complete.map(
    ([line, cells]) => scoreLine(line, cells.map((cell) => placed.get(key(cell))), table2)
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

// src/moves.ts
var LETTERS = "abcde";
var gridColumn = (c) => `col ${LETTERS[c] ?? "?"}`;
var reserveName = (f) => `Reserve ${f + 1}`;
var soloColumn = (a) => `column ${a + 1}`;
function parseSoloMove(text) {
  if (text === "stop") return { kind: "stop" };
  const remove = /^r([0-8])$/.exec(text);
  if (remove) return { kind: "remove", column: Number(remove[1]) };
  const run = /^([0-8]):([1-9][0-9]*)>([0-8])$/.exec(text);
  if (!run) return null;
  return { kind: "run", from: Number(run[1]), count: Number(run[2]), to: Number(run[3]) };
}
var cardsWord = (n) => n === 1 ? "1 card" : `${n} cards`;
function describeSoloMove(text) {
  const move = parseSoloMove(text);
  if (move === null) return `Played ${text}`;
  if (move.kind === "stop") return "Stopped";
  if (move.kind === "remove") return `Removed the series in ${soloColumn(move.column)}`;
  return `Moved ${cardsWord(move.count)} from ${soloColumn(move.from)} to ${soloColumn(move.to)}`;
}
function adviseSoloMove(text) {
  const move = parseSoloMove(text);
  if (move === null) return text;
  if (move.kind === "stop") return "stop";
  if (move.kind === "remove") return `remove the series in ${soloColumn(move.column)}`;
  return `move ${cardsWord(move.count)} from ${soloColumn(move.from)} to ${soloColumn(move.to)}`;
}
function describeReserveMove(text) {
  const found = /^([0-3])>([0-4])$/.exec(text);
  if (!found) return `Played ${text}`;
  return `Played ${reserveName(Number(found[1]))} to ${gridColumn(Number(found[2]))}`;
}
function soloRefusal(text, code) {
  const move = parseSoloMove(text);
  if (move === null || move.kind === "stop") return null;
  if (move.kind === "remove") {
    return code === "not-a-series" ? `${soloColumn(move.column)} does not hold exactly one series, J Q T B N P with no neutral: nothing removed.` : null;
  }
  const from = soloColumn(move.from);
  const to = soloColumn(move.to);
  const why = {
    "not-a-run": `the cards taken from ${from} are not a run (each one figure below the one before)`,
    "not-one-higher": `the last card of ${to} is not one figure above the run's first card`,
    "onto-pawn": `${to} ends in a Pawn, and nothing goes on a Pawn`,
    "joker-needs-empty": `a run from a Joker goes only into an empty column, and ${to} is not empty`,
    "empty-needs-joker": `${to} is empty, and an empty column takes only a run from a Joker`,
    "same-column": "a run moves to another column",
    "too-many-cards": `${from} holds fewer cards than that`
  };
  const reason = why[code];
  return reason === void 0 ? null : `Not moved: ${reason}.`;
}
function reserveRefusal(text, code) {
  const found = /^([0-3])>([0-4])$/.exec(text);
  if (!found) return null;
  const why = {
    "reserve-empty": `${reserveName(Number(found[1]))} is empty`,
    "column-full": `${gridColumn(Number(found[2]))} is full`
  };
  const reason = why[code];
  return reason === void 0 ? null : `Not played: ${reason}.`;
}

// src/solodrez.ts
var FIGURES2 = "JQTBNP";
var PAWN = 5;
var COLUMNS2 = 9;
var SOLODREZ_MAX_MOVES = 1e4;
var figureOf = (card) => card[0] === "X" ? null : FIGURES2.indexOf(card[0] ?? "");
function runStarts(cards) {
  let start2 = null;
  for (const [i, card] of cards.entries()) {
    const f = figureOf(card);
    if (f === null) continue;
    if (start2 === null) start2 = f - i;
    else if (f - i !== start2) return [];
  }
  const starts = start2 === null ? [0, 1, 2, 3, 4, 5] : [start2];
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
  const table2 = typeof scoring === "object" && scoring !== null ? scoring : null;
  if (system !== void 0) {
    if (!isPointSystem(system)) return `${system} is not a point system drawn from the seeds`;
    if (table2 === null) return `the receipt does not carry the ${system} table its seeds draw`;
    if (!sameTable(table2, await drawTable(system, seed, payload.client_seed))) {
      return `the point table is not the ${system} table the seeds draw (${POINTS_ALGORITHM})`;
    }
    checked.push(`the ${system} point table drawn by ${POINTS_ALGORITHM}`);
    return null;
  }
  if (table2 === null || !DRAWS_TABLES.includes(payload.variant)) return null;
  for (const each of POINT_SYSTEMS) {
    if (sameTable(table2, await drawTable(each, seed, payload.client_seed))) {
      checked.push(`its point table is the ${each} table its seeds draw (${POINTS_ALGORITHM})`);
      return null;
    }
  }
  checked.push(`its point table is not one its seeds draw (${POINTS_ALGORITHM}): a custom table, or one picked for the deal`);
  return null;
}
async function offTable(system, serverSeed, clientSeed, games) {
  const drawn = await drawTable(system, serverSeed, clientSeed);
  return games.filter(({ receipt }) => {
    try {
      const payload = JSON.parse(decoder2.decode(b64urlDecode(receipt.split(".")[1] ?? "")));
      const table2 = payload.options?.scoring;
      return typeof table2 !== "object" || table2 === null || !sameTable(table2, drawn);
    } catch {
      return true;
    }
  }).map(({ player }) => player);
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
  const table2 = typeof scoring === "string" ? tables[scoring] : scoring;
  if (table2 === void 0) return `the point table ${String(scoring)} is not known to this page`;
  const lines = completeLines(variant, replayed.placed, table2, reserve || options.diagonals === true);
  const total = lines.reduce((n, line) => n + line.points, 0);
  if (total !== payload.score.total) return `the log scores ${total}, the receipt says ${payload.score.total}`;
  return null;
}

// src/session.ts
var $ = (id) => {
  const element = document.getElementById(id);
  if (!element) throw new Error(`the page has no #${id}`);
  return element;
};
function say(message) {
  $("message").textContent = message;
}
function describe(error) {
  if (error instanceof ApiError) return `${error.message}${error.code ? ` (${error.code})` : ""}`;
  return error instanceof Error ? error.message : String(error);
}
var Session = class {
  constructor(state, board3, promised, tables, token = null, changed = () => void 0, placedForYou = () => void 0) {
    this.state = state;
    this.board = board3;
    this.promised = promised;
    this.tables = tables;
    this.token = token;
    this.changed = changed;
    this.placedForYou = placedForYou;
    this.view = state.view;
    this.next = state.next_index;
    this.finished = state.finished;
    this.log = state.moves.split(" ").filter(Boolean);
    board3.adopt?.(state.options);
    this.remember(state.view);
  }
  state;
  board;
  promised;
  tables;
  token;
  changed;
  placedForYou;
  view;
  next;
  finished;
  seen = /* @__PURE__ */ new Map();
  /** The log as played here (with any card the server placed for the player). */
  log;
  busy = false;
  /** The receipt fetched at the end, and whether its check waits on a seed not revealed yet. */
  receipt = null;
  /** Whether the last check of the receipt waits on the seed (a tournament still open). */
  pending = false;
  /** The final score once the game is over (`null`: not over, or unscored). */
  total = null;
  /** What the last move says when it ends the game (a lockstep seat's call line says it
   * already, with the score: nothing). */
  overWords = "The game is over.";
  get dealId() {
    return this.state.deal_id;
  }
  headers() {
    return this.token ? { Authorization: `Bearer ${this.token}` } : {};
  }
  /** Whether a move can be made now (a lockstep seat waits for each call). */
  get playing() {
    if (this.finished) return false;
    return this.board.next(this.view) !== null || !("next" in this.view);
  }
  remember(view) {
    for (const card of this.board.seen(view, this.next)) this.seen.set(`${card.stream}:${card.index}`, card);
  }
  /** The deal as the server has it now (a lockstep call, a card placed for the player). */
  async refresh() {
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
  async play(move) {
    if (this.finished || this.busy) return;
    this.busy = true;
    try {
      const answer = await call("post", "/v1/deals/{deal_id}/moves", {
        params: { deal_id: this.dealId },
        body: { index: this.next, move },
        headers: this.headers()
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
  async finish(score) {
    this.total = score?.total ?? null;
    $("result").hidden = false;
    $("final-score").textContent = score ? `Final score: ${score.total}` : "Final score: none";
    $("receipt-box").hidden = !score;
    const status = $("verification");
    void this.board.finished?.(this.view, [...this.seen.values()]).then((words) => $("par").textContent = words).catch((error) => $("par").textContent = `Par unavailable: ${describe(error)}.`);
    if (!score) {
      status.textContent = "The game ended with no legal move for the next card (a dead end): it is unscored, and an unscored game has no receipt to verify.";
      status.className = "";
      return;
    }
    status.textContent = "Verifying…";
    status.className = "";
    try {
      const receipt = await call("get", "/v1/deals/{deal_id}/receipt", {
        params: { deal_id: this.dealId },
        headers: this.headers()
      });
      $("receipt").value = receipt.receipt;
      const download = $("download");
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
  async check(serverSeed) {
    if (this.receipt === null) return;
    const status = $("verification");
    const { token, score } = this.receipt;
    try {
      const keys = await call("get", "/.well-known/jwks.json");
      const verdict = await verifyReceipt(token, keys, {
        ...this.promised,
        ...serverSeed === void 0 ? {} : { serverSeed },
        issuerOrigin: window.location.origin,
        seen: [...this.seen.values()],
        tables: this.tables,
        game: {
          dealId: this.dealId,
          variant: this.state.variant,
          options: this.state.options,
          moves: this.log.join(" "),
          total: score.total,
          kinds: this.token ? ["tournament"] : ["committed-blind", "committed-open"]
        }
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
};

// src/draw.ts
function fourColours() {
  return $("four-colours").checked;
}
function drawGame(board3, view, next, playing) {
  board3?.draw(view, playing);
  const due = $("next-card");
  const card = playing && board3 && view ? board3.next(view) : null;
  due.className = card ? `card ${colourClass(card, fourColours())}` : "card";
  due.textContent = card ? cardLabel(card) : "";
  $("next-label").textContent = view && board3 && (playing || card) ? board3.progress(view, next) : "";
  const later = $("later");
  const upcoming = playing && view && "later" in view ? view.later ?? [] : [];
  later.replaceChildren(
    ...upcoming.map((text) => {
      const item = document.createElement("li");
      item.className = `card ${colourClass(text, fourColours())}`;
      item.textContent = cardLabel(text);
      return item;
    })
  );
  $("later-label").hidden = upcoming.length === 0;
  const score = view && board3 ? board3.score(view) : { summary: "", lines: [] };
  $("running").textContent = score.summary;
  $("lines").replaceChildren(
    ...score.lines.map((line) => {
      const item = document.createElement("li");
      item.textContent = line;
      return item;
    })
  );
}

// src/board.ts
function cardFace(card, fourColours2, tag = "span") {
  const element = document.createElement(tag);
  element.className = "card";
  if (card !== null) {
    element.classList.add(colourClass(card, fourColours2));
    element.textContent = cardLabel(card);
  }
  return element;
}
function textButton(className, move, ...parts) {
  const button = document.createElement("button");
  button.type = "button";
  button.className = className;
  button.dataset["move"] = move;
  const shown2 = (part) => (typeof part === "string" ? part : part.textContent) !== "";
  parts.forEach((part, i) => button.append(...i > 0 && shown2(part) ? [" "] : [], part));
  return button;
}
function buttonOf(area, move) {
  return move ? area.querySelector(`button[data-move='${CSS.escape(move)}']`) : null;
}
var plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;
function handLines(hands) {
  return hands.map((hand) => {
    const level = hand.level ? ` (level ${hand.level})` : "";
    return `${hand.line}: ${hand.category}, ${plural(hand.points, "point")}${level}`;
  });
}

// src/boards/columns-board.ts
var COLUMNS3 = 9;
var SERIES = "JQTBNP";
var HINT_SECONDS = 2;
function isSeries2(column) {
  return column.length === SERIES.length && column.every((card, i) => card[0] === SERIES[i]);
}
var ColumnsBoard = class {
  constructor(area, context) {
    this.area = area;
    this.context = context;
    area.replaceChildren();
  }
  area;
  context;
  run = null;
  stopAsked = false;
  view = null;
  playing = false;
  /** The solver's next move, drawn on the board until the position changes. */
  hinted = null;
  /** SoloDrez takes no options. */
  static optionsForm() {
    const note = document.createElement("p");
    note.className = "options-note";
    note.textContent = "SoloDrez has no options: all 56 cards are dealt face up into nine columns.";
    return note;
  }
  options() {
    return {};
  }
  describe(move) {
    return describeSoloMove(move);
  }
  refused(move, code) {
    return soloRefusal(move, code);
  }
  draw(view, playing) {
    this.view = view;
    this.playing = playing;
    let board3 = this.area.querySelector("#columns");
    if (!board3) {
      board3 = document.createElement("div");
      board3.id = "columns";
      this.area.append(board3);
    }
    const focused = board3.contains(document.activeElement) ? document.activeElement.dataset["move"] : null;
    board3.replaceChildren(this.tools(), this.table());
    buttonOf(board3, focused)?.focus();
  }
  tools() {
    const tools = document.createElement("div");
    tools.className = "tools";
    const hint = textButton("", "hint", "hint");
    hint.setAttribute("aria-disabled", this.playing ? "false" : "true");
    hint.addEventListener("click", () => void this.hint());
    const stop = textButton("", "stop", "stop");
    stop.setAttribute("aria-disabled", this.playing ? "false" : "true");
    stop.addEventListener("click", () => this.stop());
    tools.append(hint, stop);
    (this.view?.columns ?? []).forEach((column, a) => {
      if (!this.playing || !isSeries2(column)) return;
      const remove = textButton("remove", `r${a}`, `remove ${soloColumn(a)}`);
      remove.title = `remove the series J Q T B N P in ${soloColumn(a)}`;
      remove.classList.toggle("hinted", this.hinted?.kind === "remove" && this.hinted.column === a);
      remove.addEventListener("click", () => {
        if (this.playing) this.context.play(`r${a}`);
      });
      tools.append(remove);
    });
    const removed = document.createElement("span");
    removed.textContent = `Series removed: ${this.view?.series_removed ?? 0} of 9`;
    tools.append(removed);
    return tools;
  }
  table() {
    const table2 = document.createElement("div");
    table2.className = "solodrez";
    table2.setAttribute("role", "group");
    table2.setAttribute("aria-label", "Nine columns, first card at the top, the exposed card last");
    const columns = this.view?.columns ?? Array.from({ length: COLUMNS3 }, () => []);
    const four = this.context.fourColours();
    const hint = this.hinted;
    columns.forEach((column, a) => {
      const box = document.createElement("div");
      box.className = "column";
      box.setAttribute("role", "group");
      box.setAttribute("aria-label", soloColumn(a));
      const head = document.createElement("span");
      head.className = "row-name";
      head.textContent = `${a + 1}`;
      box.append(head);
      column.forEach((card, i) => {
        const count = column.length - i;
        const button = textButton("pick", `${a}:${count}`, cardFace(card, four));
        button.title = `take ${plural(count, "card")} from ${soloColumn(a)}`;
        button.setAttribute("aria-disabled", this.playing ? "false" : "true");
        const chosen2 = this.run && this.run.from === a && i >= column.length - this.run.count;
        button.setAttribute("aria-pressed", chosen2 ? "true" : "false");
        const hinted = hint?.kind === "run" && hint.from === a && i >= column.length - hint.count || hint?.kind === "remove" && hint.column === a;
        button.classList.toggle("hinted", hinted);
        button.addEventListener("click", () => {
          if (!this.playing) return;
          this.run = { from: a, count };
          const run2 = column.slice(i).join(" ");
          this.context.say(`${run2} chosen (${plural(count, "card")} from ${soloColumn(a)}): now a column to put them on.`);
          this.draw(this.view, this.playing);
        });
        box.append(button);
      });
      const run = this.run;
      const drop = textButton("drop", `to ${a}`, `to ${a + 1}`);
      drop.title = run ? `put the run from ${soloColumn(run.from)} on ${soloColumn(a)}` : "choose a card first";
      drop.setAttribute("aria-disabled", this.playing && run && run.from !== a ? "false" : "true");
      drop.classList.toggle("hinted", hint?.kind === "run" && hint.to === a);
      drop.addEventListener("click", () => {
        if (!this.playing || !run || run.from === a) return;
        this.run = null;
        this.context.play(`${run.from}:${run.count}>${a}`);
      });
      box.append(drop);
      table2.append(box);
    });
    return table2;
  }
  stop() {
    if (!this.playing) return;
    if (!this.stopAsked) {
      this.stopAsked = true;
      const removed = this.view?.series_removed ?? 0;
      this.context.say(`Stop ends the game with ${removed} series removed, not won. Choose stop again to end it.`);
      return;
    }
    this.stopAsked = false;
    this.context.play("stop");
  }
  async hint() {
    if (!this.playing || !this.view) return;
    const asked = this.view;
    this.context.say("Looking for a winning line…");
    try {
      const found = await call("post", "/v1/solve", {
        body: { variant: "solodrez", columns: asked.columns.map((c) => [...c]), budget: HINT_SECONDS }
      });
      if (this.view !== asked) return;
      const first = found.log.split(" ").filter(Boolean)[0];
      const searched = `${found.states_searched.toLocaleString("en")} positions searched`;
      if (found.result === "won" && first) {
        this.hinted = parseSoloMove(first);
        this.draw(this.view, this.playing);
        this.context.say(
          `hint: ${adviseSoloMove(first)}, marked on the board; a win is ${plural(found.moves.length, "move")} away (${searched}).`
        );
      } else if (found.result === "lost") {
        this.context.say(`hint: this position cannot be won (${searched}); stop ends the game.`);
      } else {
        this.context.say(`hint: no win found within ${HINT_SECONDS} s (${searched}).`);
      }
    } catch (error) {
      this.context.say(`hint unavailable: ${error instanceof ApiError ? error.message : String(error)}`);
    }
  }
  placed(_move) {
    this.run = null;
    this.stopAsked = false;
    this.hinted = null;
  }
  progress(_view, nextIndex) {
    return `Move ${nextIndex + 1}`;
  }
  next(_view) {
    return null;
  }
  score(view) {
    const removed = view.series_removed;
    return { summary: `Series removed: ${removed} of 9`, lines: [] };
  }
  seen(view, nextIndex) {
    if (nextIndex !== 0) return [];
    const found = [];
    view.columns.forEach(
      (column, c) => column.forEach((card, i) => found.push({ stream: "deal", index: i * COLUMNS3 + c, card }))
    );
    return found;
  }
  async finished(view) {
    const removed = view.series_removed;
    return removed === COLUMNS3 ? "Won: all nine series removed." : `Not won: ${removed} of 9 series removed.`;
  }
};

// src/boards/grid-board.ts
var TOTAL = 25;
var OTHER_VARIANTS_TABLES = /* @__PURE__ */ new Set(["repeat", "reserve"]);
var GridBoard = class {
  constructor(variant, area, context) {
    this.variant = variant;
    this.area = area;
    this.context = context;
    area.replaceChildren();
  }
  variant;
  area;
  context;
  focus = [0, 0];
  last = null;
  warned = null;
  view = null;
  playing = false;
  adopted = null;
  /** The variant's options, as a form for the page's "New game" section. */
  static optionsForm(variant, context) {
    const form = document.createElement("div");
    form.className = "options";
    const label = document.createElement("label");
    label.htmlFor = "scoring";
    label.textContent = "Scoring";
    const select = document.createElement("select");
    select.id = "scoring";
    for (const name of Object.keys(context.tables).filter((name2) => !OTHER_VARIANTS_TABLES.has(name2))) {
      select.append(new Option(name, name));
    }
    for (const name of context.pointSystems ?? []) {
      select.append(new Option(`${name} (drawn from the deal's seeds)`, name));
    }
    select.value = variant === "poker-squares" ? "american" : "british";
    form.append(label, select);
    if (variant === "poker-squares") {
      const check = document.createElement("label");
      check.className = "check";
      const box = document.createElement("input");
      box.type = "checkbox";
      box.id = "diagonals";
      check.append(box, " Score the two diagonals");
      form.append(check);
    }
    return form;
  }
  adopt(options) {
    this.adopted = options;
  }
  options() {
    if (this.adopted) return this.adopted;
    const scoring = document.getElementById("scoring").value;
    const diagonals = document.getElementById("diagonals");
    return this.variant === "poker-squares" ? { scoring, diagonals: diagonals?.checked ?? false } : { scoring };
  }
  draw(view, playing) {
    this.view = view;
    this.playing = playing;
    let grid2 = this.area.querySelector("#grid");
    if (!grid2) {
      grid2 = document.createElement("div");
      grid2.id = "grid";
      grid2.setAttribute("role", "group");
      grid2.setAttribute("aria-label", "Grid: each cell is named by its move, then its card");
      grid2.addEventListener("keydown", (event) => this.onKey(event));
      grid2.addEventListener("focusin", (event) => {
        const cell = event.target.dataset["cell"];
        if (cell !== void 0) this.focus = cell.split(",").map(Number);
      });
      this.area.append(grid2);
    }
    const hadFocus = grid2.contains(document.activeElement);
    grid2.replaceChildren();
    const placed = this.view ? placedCards(this.view) : /* @__PURE__ */ new Map();
    const open = playing ? playableCells(this.variant, placed, this.last) : /* @__PURE__ */ new Set();
    const { rows, cols } = window2(this.variant, placed);
    grid2.style.gridTemplateColumns = `repeat(${cols.length}, var(--cell))`;
    grid2.classList.toggle("floating", this.variant === "poker-patience");
    if (!rows.includes(this.focus[0]) || !cols.includes(this.focus[1])) this.focus = [rows[0] ?? 0, cols[0] ?? 0];
    for (const row of rows) {
      for (const col of cols) {
        const cell = [row, col];
        const name = moveText(this.variant, cell);
        const card = placed.get(key(cell)) ?? null;
        const label = document.createElement("span");
        label.className = "cell-name";
        label.textContent = name;
        const button = textButton("cell", name, label, cardFace(card, this.context.fourColours()));
        button.dataset["cell"] = key(cell);
        button.setAttribute("aria-disabled", open.has(key(cell)) ? "false" : "true");
        button.tabIndex = row === this.focus[0] && col === this.focus[1] ? 0 : -1;
        if (card !== null) button.classList.add("filled");
        if (this.warned === key(cell)) button.classList.add("warned");
        button.addEventListener("click", () => this.pick(cell));
        grid2.append(button);
      }
    }
    if (hadFocus || playing && placed.size === 0) this.focusCell();
  }
  pick(cell) {
    const view = this.view;
    if (!view || !this.playing) return;
    const name = moveText(this.variant, cell);
    const placed = placedCards(view);
    if (!playableCells(this.variant, placed, this.last).has(key(cell))) {
      this.context.say(placed.has(key(cell)) ? `${name} is taken: choose an empty cell.` : `${name} is not open for this card.`);
      return;
    }
    if (this.variant === "serpent-patience" && this.warned !== key(cell)) {
      if (deadEnd(placed, cell, TOTAL - placed.size - 1)) {
        this.warned = key(cell);
        this.context.say(
          `Careful: a card on ${name} leaves no way on, and the game would end unscored. Choose ${name} again to place it anyway.`
        );
        this.draw(view, this.playing);
        return;
      }
    }
    this.focus = cell;
    this.context.play(name);
  }
  placed(move) {
    this.last = moveCoord(this.variant, move);
    this.warned = null;
  }
  focusCell() {
    const grid2 = this.area.querySelector("#grid");
    const button = grid2?.querySelector(`button[data-cell='${key(this.focus)}']`);
    grid2?.querySelectorAll("button").forEach((b) => b.tabIndex = -1);
    if (button) {
      button.tabIndex = 0;
      button.focus();
    }
  }
  onKey(event) {
    const steps = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
    const step = steps[event.key];
    if (!step) return;
    event.preventDefault();
    const { rows, cols } = window2(this.variant, this.view ? placedCards(this.view) : /* @__PURE__ */ new Map());
    const clamp = (value, list) => Math.min(list[list.length - 1], Math.max(list[0], value));
    this.focus = [clamp(this.focus[0] + step[0], rows), clamp(this.focus[1] + step[1], cols)];
    this.focusCell();
  }
  progress(_view, nextIndex) {
    return `Card ${nextIndex + 1} of ${TOTAL}`;
  }
  next(view) {
    return view.next;
  }
  score(view) {
    const options = this.options();
    const scoring = options["scoring"];
    const table2 = typeof scoring === "string" ? this.context.tables[scoring] : scoring;
    if (!table2) return { summary: "", lines: [] };
    const lines = completeLines(this.variant, placedCards(view), table2, options["diagonals"] === true);
    const total = lines.reduce((n, line) => n + line.points, 0);
    return {
      summary: `Score of complete lines: ${total} (${plural(lines.length, "line")} complete)`,
      lines: lines.map((line) => `${line.line}: ${line.category}, ${plural(line.points, "point")}`)
    };
  }
  seen(view, nextIndex) {
    const grid2 = view;
    const cards = grid2.next ? [grid2.next, ...grid2.later ?? []] : [];
    return cards.map((card, i) => ({ stream: "deal", index: nextIndex + i, card }));
  }
  async finished(_view, cards) {
    if (this.variant !== "serpent-patience") return "";
    const deal2 = [...cards].filter((c) => c.stream === "deal").sort((a, b) => a.index - b.index).map((c) => c.card);
    const solved = await call("post", "/v1/solve", {
      body: {
        variant: "serpent-patience",
        cards: deal2,
        options: this.options()
      }
    });
    return `Par for this deal: ${solved.score.total}${solved.optimal ? " (the best possible)" : ""}.`;
  }
};

// src/boards/reserve-board.ts
var COLUMNS4 = 4;
var SIZE2 = 5;
var ReserveBoard = class {
  constructor(area, context) {
    this.area = area;
    this.context = context;
    area.replaceChildren();
  }
  area;
  context;
  chosen = null;
  pending = null;
  view = null;
  playing = false;
  /** The variant's options, as a form for the page's "New game" section. */
  static optionsForm() {
    const form = document.createElement("div");
    form.className = "options";
    const label = document.createElement("label");
    label.htmlFor = "version";
    label.textContent = "Version";
    const select = document.createElement("select");
    select.id = "version";
    const names = ["1 card face up", "2 cards face up", "3 cards face up", "4 cards face up", "all face up", "all face down"];
    names.forEach((name, i) => select.append(new Option(`${i + 1}: ${name}`, String(i + 1))));
    select.append(new Option("a die roll (random)", "random"));
    form.append(label, select);
    return form;
  }
  options() {
    const version = document.getElementById("version").value;
    return { version: version === "random" ? "random" : Number(version) };
  }
  draw(view, playing) {
    this.view = view;
    this.playing = playing;
    let board3 = this.area.querySelector("#reserve-board");
    if (!board3) {
      board3 = document.createElement("div");
      board3.id = "reserve-board";
      this.area.append(board3);
    }
    const focused = board3.contains(document.activeElement) ? document.activeElement.dataset["move"] : null;
    board3.replaceChildren(this.reserveColumns(), this.grid());
    buttonOf(board3, focused)?.focus();
  }
  describe(move) {
    return describeReserveMove(move);
  }
  refused(move, code) {
    return reserveRefusal(move, code);
  }
  reserveColumns() {
    const reserve = document.createElement("div");
    reserve.className = "reserve";
    reserve.setAttribute("role", "group");
    reserve.setAttribute("aria-label", "Reserve: choose a column, its bottom card is taken");
    const four = this.context.fourColours();
    (this.view?.reserve ?? [[], [], [], []]).forEach((column, f) => {
      const open = this.playing && column.length > 0;
      const name = document.createElement("span");
      name.className = "row-name";
      name.textContent = reserveName(f);
      const parts = [name];
      let down = 0;
      const flush = () => {
        if (down === 0) return;
        const backs = document.createElement("span");
        backs.className = "card back";
        backs.textContent = `${down} face down`;
        parts.push(backs);
        down = 0;
      };
      for (const card of column) {
        if (card === null) down += 1;
        else {
          flush();
          parts.push(cardFace(card, four));
        }
      }
      flush();
      if (column.length === 0 && this.view) {
        const empty = document.createElement("span");
        empty.className = "empty";
        empty.textContent = "empty";
        parts.push(empty);
      }
      const button = textButton("reserve-column", `reserve ${f}`, ...parts);
      button.setAttribute("aria-pressed", this.chosen === f ? "true" : "false");
      button.setAttribute("aria-disabled", open ? "false" : "true");
      button.addEventListener("click", () => {
        if (!open) return;
        this.chosen = f;
        this.context.say(`${reserveName(f)} chosen: now a grid column, ${gridColumn(0)} to ${gridColumn(SIZE2 - 1)}.`);
        this.draw(this.view, this.playing);
      });
      reserve.append(button);
    });
    return reserve;
  }
  grid() {
    const wrap = document.createElement("div");
    wrap.className = "gravity";
    const drops = document.createElement("div");
    drops.className = "drops";
    drops.setAttribute("role", "group");
    drops.setAttribute("aria-label", "Drop into a grid column");
    const grid2 = this.view?.grid ?? Array.from({ length: SIZE2 }, () => Array(SIZE2).fill(null));
    for (let c = 0; c < SIZE2; c++) {
      const full = grid2.every((row) => row[c] !== null);
      const from = this.chosen;
      const button = textButton("drop", `drop ${c}`, gridColumn(c));
      button.title = from === null ? "choose a reserve column first" : `drop ${reserveName(from)}'s bottom card into ${gridColumn(c)}`;
      button.setAttribute("aria-disabled", this.playing && from !== null && !full ? "false" : "true");
      button.addEventListener("click", () => {
        if (!this.playing || from === null || full || !this.view) return;
        const column = this.view.reserve[from] ?? [];
        this.pending = { index: (column.length - 1) * COLUMNS4 + from, to: c };
        this.chosen = null;
        this.context.play(`${from}>${c}`);
      });
      drops.append(button);
    }
    const cells = document.createElement("div");
    cells.className = "cells";
    cells.setAttribute("role", "table");
    cells.setAttribute("aria-label", "Grid, row 1 on top: cards fall to the lowest empty cell");
    const four = this.context.fourColours();
    grid2.forEach((row, r) => {
      const line = document.createElement("div");
      line.className = "grid-row";
      line.setAttribute("role", "row");
      row.forEach((card, c) => {
        const cell = document.createElement("div");
        cell.className = card === null ? "cell-box" : "cell-box filled";
        cell.setAttribute("role", "cell");
        const label = document.createElement("span");
        label.className = "cell-name";
        label.textContent = `${"abcde"[c]}${r + 1}`;
        cell.append(label, ...card === null ? [] : [" "], cardFace(card, four));
        line.append(cell);
      });
      cells.append(line);
    });
    wrap.append(drops, cells);
    return wrap;
  }
  progress(view, nextIndex) {
    const reserve = view;
    return `Card ${nextIndex + 1} of 25 (version ${reserve.version})`;
  }
  next(_view) {
    return null;
  }
  score(view) {
    const placed = /* @__PURE__ */ new Map();
    view.grid.forEach(
      (row, r) => row.forEach((card, c) => {
        if (card !== null) placed.set(key([r, c]), card);
      })
    );
    const table2 = this.context.tables["reserve"];
    if (!table2) return { summary: "", lines: [] };
    const lines = completeLines("poker-squares", placed, table2, true);
    const total = lines.reduce((n, line) => n + line.points, 0);
    return {
      summary: `Score of complete lines: ${total} (${plural(lines.length, "line")} complete)`,
      lines: lines.map((line) => `${line.line}: ${line.category}, ${plural(line.points, "point")}`)
    };
  }
  seen(view, _nextIndex) {
    const reserve = view;
    const found = [];
    reserve.reserve.forEach(
      (column, f) => column.forEach((card, i) => {
        if (card !== null) found.push({ stream: "deal", index: i * COLUMNS4 + f, card });
      })
    );
    if (this.pending) {
      const { index, to } = this.pending;
      const card = reserve.grid.map((row) => row[to]).find((cell) => cell !== null && cell !== void 0);
      if (card) found.push({ stream: "deal", index, card });
      this.pending = null;
    }
    return found;
  }
};

// src/boards/rows-board.ts
var DECK = 52;
var LADDER = [5, 4, 3, 2, 1];
var levelStream = (level) => level === 1 ? "deal" : `level-${level}`;
var RowsBoard = class {
  constructor(area, context) {
    this.area = area;
    this.context = context;
    area.replaceChildren();
  }
  area;
  context;
  levels = 1;
  /** The variant's options, as a form for the page's "New game" section. */
  static optionsForm() {
    const form = document.createElement("div");
    form.className = "options";
    const label = document.createElement("label");
    label.htmlFor = "levels";
    label.textContent = "Levels";
    const select = document.createElement("select");
    select.id = "levels";
    select.append(new Option("1 level, 5 rows", "1"), new Option("the ladder: 5 levels, 5 to 1 rows", "5"));
    const highLabel = document.createElement("label");
    highLabel.htmlFor = "high-card";
    highLabel.textContent = "A row with no hand";
    const high = document.createElement("select");
    high.id = "high-card";
    high.append(
      new Option("loses its highest card", "drop-top"),
      new Option("loses all five cards", "clear-row")
    );
    form.append(label, select, highLabel, high);
    return form;
  }
  adopt(options) {
    this.levels = Number(options["levels"] ?? 1);
  }
  options() {
    this.levels = Number(document.getElementById("levels").value);
    const high = document.getElementById("high-card")?.value ?? "drop-top";
    return high === "drop-top" ? { levels: this.levels } : { levels: this.levels, high_card: high };
  }
  draw(view, playing) {
    const rows = view;
    let board3 = this.area.querySelector("#rows");
    if (!board3) {
      board3 = document.createElement("div");
      board3.id = "rows";
      board3.setAttribute("role", "group");
      board3.setAttribute("aria-label", "Rows: each row is named by its move, then its cards");
      this.area.append(board3);
    }
    const hadFocus = board3.contains(document.activeElement);
    const focused = document.activeElement?.dataset?.["move"];
    board3.replaceChildren();
    const ladder = document.createElement("ol");
    ladder.className = "ladder";
    ladder.setAttribute("aria-label", "The ladder of levels");
    const totals = this.levelTotals(rows);
    LADDER.slice(0, this.levels === 5 ? 5 : 1).forEach((count, i) => {
      const item = document.createElement("li");
      const level = i + 1;
      const current = rows?.level === level;
      item.textContent = `Level ${level}: ${plural(this.levels === 5 ? count : rows?.rows.length ?? 5, "row")}, ${plural(totals[i] ?? 0, "point")}`;
      if (current) item.setAttribute("aria-current", "step");
      ladder.append(item);
    });
    board3.append(ladder);
    for (const [r, cards] of (rows?.rows ?? []).entries()) {
      const name = `r${r + 1}`;
      const label = document.createElement("span");
      label.className = "row-name";
      label.textContent = name;
      const faces = cards.map((card) => cardFace(card, this.context.fourColours()));
      const button = textButton("row", name, label, ...faces);
      button.setAttribute("aria-disabled", playing ? "false" : "true");
      button.addEventListener("click", () => {
        if (playing) this.context.play(name);
      });
      board3.append(button);
    }
    if (hadFocus && focused) buttonOf(board3, focused)?.focus();
    else if (playing && rows && rows.cards_left === DECK && rows.level === 1) board3.querySelector("button")?.focus();
  }
  levelTotals(view) {
    const totals = [0, 0, 0, 0, 0];
    for (const hand of view?.scored ?? []) {
      const at = (hand.level ?? 1) - 1;
      totals[at] = (totals[at] ?? 0) + hand.points;
    }
    return totals;
  }
  progress(view, _nextIndex) {
    const rows = view;
    const levels = this.levels === 5 ? " of 5" : "";
    return `Level ${rows.level}${levels}, card ${DECK - rows.cards_left + 1} of ${DECK}`;
  }
  next(view) {
    return view.next;
  }
  score(view) {
    const scored = view.scored;
    const total = scored.reduce((n, hand) => n + hand.points, 0);
    return { summary: `Score so far: ${total} (${plural(scored.length, "hand")} scored)`, lines: handLines(scored) };
  }
  seen(view, _nextIndex) {
    const rows = view;
    if (!rows.next) return [];
    return [{ stream: levelStream(rows.level), index: DECK - rows.cards_left, card: rows.next }];
  }
};

// src/kinds.ts
var grid = (variant) => ({
  board: (area, context) => new GridBoard(variant, area, context),
  form: (context) => GridBoard.optionsForm(variant, context)
});
var KINDS = {
  "poker-squares": grid("poker-squares"),
  "poker-patience": grid("poker-patience"),
  "serpent-patience": grid("serpent-patience"),
  "repeat-poker": { board: (area, context) => new RowsBoard(area, context), form: () => RowsBoard.optionsForm() },
  "reserve-poker": { board: (area, context) => new ReserveBoard(area, context), form: () => ReserveBoard.optionsForm() },
  solodrez: { board: (area, context) => new ColumnsBoard(area, context), form: () => ColumnsBoard.optionsForm() }
};

// src/rules.ts
var RULES = {
  "poker-squares": [
    "25 cards are turned up one at a time. Put each in any empty cell of the 5×5 grid: a1 is the top left cell, e5 the bottom right. A card never moves.",
    "At the end each row (row 1 to row 5) and each column (col a to col e) is a poker hand, scored with the point table chosen; with the diagonals on, the two long diagonals score too."
  ],
  "poker-patience": [
    "25 cards are turned up one at a time. The first goes anywhere: it is cell 0,0, and every other cell is named by its offset from it, row then column (-1,2 is one row up and two columns right).",
    "Each card must touch a card already laid (across, up, down or diagonally), and the layout must fit in a 5×5 square: only the cells the rules allow are open.",
    "The final square's 5 rows and 5 columns are scored as poker hands."
  ],
  "serpent-patience": [
    "All 25 cards are shown from the start, in the order they are laid.",
    "The first card goes anywhere; each next card goes in an empty cell beside the one before (above, below, left or right), so the cards make one path through all 25 cells.",
    "A path with no way on ends the game unscored (the page warns first). The 5 rows and 5 columns are scored as poker hands; the deal's par, its best possible score, shows at the end."
  ],
  "repeat-poker": [
    "All 52 cards are turned up one at a time: put each in a row, r1 to r5, of up to 5 cards.",
    "A row of 5 cards scores its poker hand at once, and the cards that make the hand leave (a pair its 2 cards, two pair 4; a straight, flush or full house all 5); the other cards stay.",
    "A row with no hand scores 0 and loses its highest card (or all 5, by the option). The ladder plays 5 levels of 5, 4, 3, 2 and 1 rows, each with a fresh deck."
  ],
  "reserve-poker": [
    "53 cards, the 52 and a wild joker, are dealt into 4 reserve columns, Reserve 1 to Reserve 4. Only the bottom card of a reserve column can be taken.",
    "Choose a reserve column, then a grid column, col a to col e: the card falls to the lowest empty cell of that column (row 5 first).",
    "The version sets what you see: 1 to 4, that many bottom cards of each reserve column face up; 5, every card; 6, none. After 25 cards the 5 rows, 5 columns and 2 diagonals are scored."
  ],
  solodrez: [
    "56 cards, all face up, in 9 columns, column 1 to column 9; the last card of a column is its exposed one.",
    "A card is a figure, then a colour from 1 to 9: J Joker, Q Queen, T Tower, B Bishop, N Knight, P Pawn, high to low (T2 is a Tower of colour 2). Colours never matter for play. X1 and X2 are neutrals, wild: each stands for the figure a run needs.",
    "Choose a card to take it with the cards after it, if they make a run (each one figure below the one before), then a column whose last card is one figure above the run's first. Nothing goes on a Pawn; an empty column takes only a run from a Joker.",
    "A column holding exactly J Q T B N P, no neutral among them, can be removed. Remove all nine series to win; stop ends the game. The score is the series removed."
  ]
};
function rulesOf(variant) {
  return RULES[variant] ?? [];
}
var hasSuits = (variant) => DECK_OF[variant] !== "pokerdrez-56";
function showRules(variant, title) {
  const lines = variant ? rulesOf(variant) : [];
  $("rules").hidden = lines.length === 0;
  $("rules-title").textContent = title ? `How to play ${title}` : "How to play";
  $("rules-text").replaceChildren(
    ...lines.map((line) => {
      const item = document.createElement("li");
      item.textContent = line;
      return item;
    })
  );
  const suits = variant === null || hasSuits(variant);
  $("four-colours-label").hidden = !suits;
  $("t-colours").hidden = !suits || document.body.dataset["tournament"] === void 0;
}

// src/tournament.ts
var POLL_MS = 1e3;
var TICK_MS = 250;
var storageKey = (id) => `cardproof:entry:${id}`;
var organizerStorageKey = (id) => `cardproof:organizer:${id}`;
function kept(id) {
  try {
    const text = localStorage.getItem(storageKey(id));
    return text ? JSON.parse(text) : null;
  } catch {
    return null;
  }
}
function keep(id, entry) {
  localStorage.setItem(storageKey(id), JSON.stringify(entry));
}
function organizerKey(id) {
  try {
    return sessionStorage.getItem(organizerStorageKey(id));
  } catch {
    return null;
  }
}
var tid = "";
var variantList = [];
var session = null;
var board = null;
var following = null;
var ticking;
var seat = null;
var watch = null;
var clockOffset = 0;
var rendering = Promise.resolve();
function draw() {
  drawGame(board, session?.view ?? null, session?.next ?? 0, session?.playing ?? false);
}
var oneOff = null;
function notice(text) {
  say(text);
  oneOff = text;
}
function clearNotice() {
  if (oneOff !== null && $("message").textContent === oneOff) say("");
  oneOff = null;
}
async function startTournament(id, variants2) {
  tid = id;
  variantList = variants2;
  document.body.dataset["tournament"] = "1";
  $("setup").hidden = true;
  $("tournament").hidden = false;
  $("four-colours-tournament").addEventListener("change", () => {
    $("four-colours").checked = $("four-colours-tournament").checked;
    draw();
  });
  $("t-enter-button").addEventListener("click", () => void enter());
  $("t-organizer-button").addEventListener("click", () => void organize());
  $("t-forget").addEventListener("click", () => {
    sessionStorage.removeItem(organizerStorageKey(tid));
    void rerender();
  });
  $("t-start").addEventListener("click", () => void startRound());
  $("t-close").addEventListener("click", () => void closeTournament());
  await rerender();
  document.body.dataset["ready"] = "1";
}
function rerender() {
  rendering = rendering.then(show).catch((error) => say(describe(error)));
  return rendering;
}
function bearer(entry, organizer = null) {
  const token = entry?.token ?? organizer;
  return token ? { Authorization: `Bearer ${token}` } : {};
}
async function show() {
  const entry = kept(tid);
  const organizer = organizerKey(tid);
  const headers = bearer(entry, organizer);
  let tournament;
  try {
    tournament = await call("get", "/v1/tournaments/{tournament_id}", { params: { tournament_id: tid }, headers });
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) {
      notFound();
      return;
    }
    $("page-title").textContent = "A tournament";
    $("t-status").textContent = entry || organizer ? describe(error) : "Enter with your invite code to see this tournament.";
    showEntry(entry, organizer, "invite");
    $("t-start").hidden = true;
    $("t-seated").textContent = "";
    return;
  }
  $("page-title").textContent = tournament.name;
  document.title = `${tournament.name} · cardproof`;
  const info = variantList.find((v) => v.id === tournament.variant);
  showRules(tournament.variant, info?.title ?? tournament.variant);
  const lockstep = tournament.format === "lockstep";
  const format = lockstep ? `lockstep, ${tournament.card_seconds} s a card` : "each at their own pace";
  $("t-status").textContent = `${tournament.variant}, ${tournament.rounds.length} round${tournament.rounds.length === 1 ? "" : "s"}, ${format}; ${tournament.closed_at ? `closed at ${tournament.closed_at}` : `${tournament.status}, closes ${tournament.closes_at}`}.`;
  const standingsPage = `/tournaments/${encodeURIComponent(tid)}`;
  $("t-standings-link").href = standingsPage;
  showEntry(entry, organizer, tournament.entry, tournament);
  const closed = tournament.status === "closed";
  document.body.toggleAttribute("data-closed", closed);
  $("t-closed").hidden = !closed;
  $("t-links").hidden = closed;
  if (closed) {
    const link = document.createElement("a");
    link.href = standingsPage;
    link.textContent = "standings page";
    $("t-closed").replaceChildren(
      "This tournament is closed: every round's seed is revealed, every game is below and on the ",
      link,
      "."
    );
    watchRound(null);
    $("t-note").textContent = "";
    $("t-standings").replaceChildren();
    await showClosed(tournament, headers, entry);
    return;
  }
  const { current, played } = lockstep ? await currentRound(tournament, headers) : { current: null, played: 0 };
  const waits = entry !== null || organizer !== null || (tournament.entries_closed_at ?? null) === null;
  watchRound(lockstep && waits ? current : null);
  if (organizer !== null) await readEntrants(headers);
  showSeats(lockstep ? current : null, lockstep);
  showRounds(tournament, entry, current);
  await showStandings(played, lockstep, headers);
}
function notFound() {
  watchRound(null);
  document.title = "No such tournament · cardproof";
  $("page-title").textContent = "No such tournament";
  $("t-status").textContent = `This server has no tournament ${tid}: check the link you were sent (it may have been mistyped, or the tournament has expired).`;
  for (const id of ["t-enter", "t-organizer", "t-organize", "rules", "t-links", "t-closed"]) $(id).hidden = true;
  for (const id of ["t-entered", "t-note"]) $(id).textContent = "";
  $("t-rounds").replaceChildren();
  $("t-standings").replaceChildren();
}
async function currentRound(tournament, headers) {
  for (const round of tournament.rounds) {
    const status = await call("get", "/v1/tournaments/{tournament_id}/rounds/{round_number}", {
      params: { tournament_id: tid, round_number: round.round },
      headers
    });
    if (status.status !== "finished") return { current: status, played: round.round - 1 };
  }
  return { current: null, played: tournament.rounds.length };
}
function showEntry(entry, organizer, kind, tournament = null) {
  const closedAt = tournament?.entries_closed_at ?? null;
  const over = tournament?.status === "closed";
  $("t-enter").hidden = entry !== null || organizer !== null || closedAt !== null || over;
  $("t-invite-field").hidden = kind !== "invite";
  $("t-organizer").hidden = entry !== null || organizer !== null || over;
  $("t-organize").hidden = organizer === null || over;
  let text = "";
  if (entry) text = `Entered as ${entry.name}.`;
  else if (organizer !== null) text = "You organize this tournament: your key is kept in this tab only.";
  else if (closedAt !== null && !over) {
    text = `Entries closed at ${closedAt}, when round 1 started: every entrant is seated before the first call.`;
  } else if (tournament?.format === "lockstep" && !over) {
    text = "Entries close when round 1 starts.";
  }
  $("t-entered").textContent = text;
}
function showRounds(tournament, entry, current) {
  const rounds = $("t-rounds");
  rounds.replaceChildren();
  $("t-note").textContent = "";
  if (!entry) return;
  let playable = tournament.rounds.map((round) => round.round);
  if (tournament.format === "lockstep") {
    playable = [];
    const seated = current !== null && entry.keys[String(current.round)] !== void 0;
    if (current && seated && seat?.round !== current.round) void openRound(tournament, current.round);
    else if (current && !seated && current.status === "waiting") {
      playable = [current.round];
      const starts = current.starts_at ? `, or by itself at ${current.starts_at}` : "";
      $("t-note").textContent = `Round ${current.round} starts when the organizer starts it${starts}: take your seat before then.`;
    } else if (current && !seated) {
      $("t-note").textContent = `Round ${current.round} started before you took a seat: you play the rounds after it.`;
    } else if (!current) {
      $("t-note").textContent = `Every round has been played: the tournament closes at ${tournament.closes_at}.`;
    }
  }
  for (const round of playable) {
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = tournament.format === "lockstep" ? seatWords(round) : `Play round ${round}`;
    button.addEventListener("click", () => void openRound(tournament, round));
    const item = document.createElement("li");
    item.append(button);
    rounds.append(item);
  }
}
var seatWords = (round) => `Take your seat for round ${round}`;
async function showStandings(played, lockstep, headers) {
  const place = $("t-standings");
  if (!lockstep || played === 0) {
    place.replaceChildren();
    return;
  }
  const standings = await call("get", "/v1/tournaments/{tournament_id}/standings", {
    params: { tournament_id: tid },
    headers
  });
  place.replaceChildren(standingsTable(`Standings after round ${played}`, standings));
}
async function enter() {
  const name = $("t-entrant-name").value.trim();
  const code = $("t-invite-code").value.trim();
  try {
    const answer = await call("post", "/v1/tournaments/{tournament_id}/entries", {
      params: { tournament_id: tid },
      body: code ? { name, invite_code: code } : { name },
      headers: { "Idempotency-Key": newKey() }
    });
    const hashes = {};
    for (const round of answer.rounds ?? []) hashes[String(round.round)] = round.server_seed_hash;
    keep(tid, { token: answer.token, name: answer.name, hashes, salt: answer.salt ?? "", keys: {} });
    notice("Your entry's token is kept in this browser: open this page here to play your rounds.");
    await rerender();
  } catch (error) {
    say(describe(error));
  }
}
async function organize() {
  const input = $("t-organizer-key");
  const given = input.value.trim();
  if (!given.startsWith("cpo_")) {
    say("An organizer's key starts with cpo_ (`cardproof keys organizer create` prints it).");
    return;
  }
  sessionStorage.setItem(organizerStorageKey(tid), given);
  input.value = "";
  say("");
  await rerender();
}
async function startRound() {
  const organizer = organizerKey(tid);
  const round = watch?.round;
  if (organizer === null || round === void 0) return;
  try {
    await call("post", "/v1/tournaments/{tournament_id}/rounds/{round_number}/start", {
      params: { tournament_id: tid, round_number: round },
      body: {},
      headers: bearer(null, organizer)
    });
  } catch (error) {
    say(describe(error));
  }
  await rerender();
}
async function closeTournament() {
  const organizer = organizerKey(tid);
  if (organizer === null || !await confirmClose()) return;
  try {
    await call("post", "/v1/tournaments/{tournament_id}/close", {
      params: { tournament_id: tid },
      body: {},
      headers: bearer(null, organizer)
    });
    notice("The tournament is closed.");
  } catch (error) {
    say(describe(error));
  }
  await rerender();
}
function confirmClose() {
  const dialog = $("close-dialog");
  return new Promise((resolve) => {
    const done = (answer) => {
      $("close-yes").removeEventListener("click", yes);
      $("close-no").removeEventListener("click", no);
      dialog.removeEventListener("cancel", no);
      if (dialog.open) dialog.close();
      resolve(answer);
    };
    const yes = () => done(true);
    const no = () => done(false);
    $("close-yes").addEventListener("click", yes);
    $("close-no").addEventListener("click", no);
    dialog.addEventListener("cancel", no);
    dialog.showModal();
    $("close-no").focus();
  });
}
function watchRound(current) {
  if (watch && current && watch.round === current.round) {
    watch.status = current;
    return;
  }
  watch?.stop.abort();
  watch = null;
  if (!current) return;
  const stop = new AbortController();
  let woken = false;
  let wake = () => void (woken = true);
  const mine = { round: current.round, status: current, asked: performance.now(), stop, wake: () => wake() };
  watch = mine;
  const headers = bearer(kept(tid), organizerKey(tid));
  void (async () => {
    while (!stop.signal.aborted) {
      if (!woken) {
        await new Promise((resolve) => {
          const timer = setTimeout(resolve, POLL_MS);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
      woken = false;
      wake = () => void (woken = true);
      if (stop.signal.aborted) return;
      const asked = performance.now();
      let status;
      try {
        status = await call("get", "/v1/tournaments/{tournament_id}/rounds/{round_number}", {
          params: { tournament_id: tid, round_number: mine.round },
          headers
        });
      } catch (error) {
        if (!(error instanceof ApiError && error.status < 500 && error.status !== 429)) continue;
        if (watch === mine) watch = null;
        return;
      }
      if (stop.signal.aborted) return;
      const moved = status.status !== mine.status.status;
      mine.status = status;
      mine.asked = asked;
      if (status.deadline && typeof status.seconds_left === "number") {
        clockOffset = Date.parse(status.deadline) - status.seconds_left * 1e3 - Date.now();
      }
      if (seat?.round === status.round && status.status === "finished") seat.over = true;
      if (organizerKey(tid) !== null && status.status === "waiting") await readEntrants(headers);
      if (moved) clearNotice();
      showSeats(status, true);
      showCall();
      if (moved) void rerender();
    }
  })();
}
var entrants = [];
async function readEntrants(headers) {
  try {
    const standings = await call("get", "/v1/tournaments/{tournament_id}/standings", { params: { tournament_id: tid }, headers });
    entrants = standings.entrants.map((line) => line.name).sort((a, b) => a.localeCompare(b));
  } catch {
  }
}
function enteredWords() {
  const shown2 = entrants.slice(0, 12);
  const more = entrants.length > shown2.length ? ` and ${entrants.length - shown2.length} more` : "";
  return entrants.length === 0 ? "nobody has entered yet" : `${entrants.length} entered (${shown2.join(", ")}${more})`;
}
function showSeats(status, lockstep) {
  const start2 = $("t-start");
  start2.hidden = status?.status !== "waiting" || status.seats === 0;
  let text = lockstep ? "Every round has been played." : "Each entrant plays at their own pace: nothing to start.";
  let hint = "";
  if (status) {
    start2.textContent = `Start round ${status.round}`;
    const starts = status.starts_at ? ` It starts by itself at ${status.starts_at}.` : "";
    if (status.status === "waiting") {
      const seated = status.seats === 0 ? "nobody seated yet" : `${status.seats} seated`;
      text = `Round ${status.round}: ${enteredWords()}; ${seated}.${starts}`;
      const late = status.round === 1 ? " and entries close" : "";
      hint = status.seats === 0 ? `The Start round ${status.round} button appears here once an entrant takes a seat (on their page: ${seatWords(status.round)}).` : `Start round ${status.round} calls its first card to the ${status.seats} seated${late}; an entrant who takes no seat before then sits this round out.`;
    } else if (status.status === "playing") {
      text = `Round ${status.round}: card ${(status.call ?? 0) + 1} of ${status.calls} called, ${status.placed ?? 0} of ${status.seats} placed.`;
    } else if (status.closed) {
      text = `Round ${status.round} was cut short by the tournament's close: ${status.called} of its ${status.calls} cards were called.`;
    } else {
      text = `Round ${status.round} is over.`;
    }
  }
  $("t-seated").textContent = text;
  $("t-start-hint").textContent = hint;
}
async function openRound(tournament, round) {
  const entry = kept(tid);
  const info = variantList.find((v) => v.id === tournament.variant);
  const kind = KINDS[tournament.variant];
  if (!entry || !info || !kind) return;
  const lockstep = tournament.format === "lockstep";
  entry.keys[String(round)] ??= newKey();
  keep(tid, entry);
  following?.abort();
  clearInterval(ticking);
  seat = lockstep ? { round, call: null, cards: /* @__PURE__ */ new Map(), placedForYou: [], over: false, closedAfter: null, changedAt: performance.now() } : null;
  $("result").hidden = true;
  let state;
  try {
    state = await call("post", "/v1/tournaments/{tournament_id}/rounds/{round_number}/deal", {
      params: { tournament_id: tid, round_number: round },
      body: {},
      headers: { ...bearer(entry), "Idempotency-Key": entry.keys[String(round)] }
    });
  } catch (error) {
    const problem = error.problem;
    const first = problem?.["deal_id"];
    if (typeof first !== "string") {
      if (problem?.["code"] === "round-started") {
        delete entry.keys[String(round)];
        keep(tid, entry);
      }
      seat = null;
      say(describe(error));
      await rerender();
      return;
    }
    state = await call("get", "/v1/deals/{deal_id}", { params: { deal_id: first }, headers: bearer(entry) });
  }
  const promised = entry.hashes[String(round)];
  if (state.server_seed_hash !== promised || state.client_seed !== entry.salt) {
    say(`Round ${round} is not the deal the tournament committed to: stop here.`);
    return;
  }
  $("commitment").textContent = state.server_seed_hash;
  $("commitment-words").textContent = `Round ${round}'s commitment (SHA-256 of its server seed, fixed when the tournament was created): `;
  $("commitment-line").hidden = false;
  const tables = info.tables ?? {};
  board = kind.board($("board"), {
    play: (move) => void session?.play(move),
    say,
    fourColours,
    tables
  });
  board.adopt?.(state.options);
  const system = tournament.options?.scoring;
  const shown2 = state.options?.scoring;
  if (isPointSystem(system) && (typeof shown2 !== "object" || shown2 === null)) {
    say(`Round ${round} does not show the ${system} table drawn for it: stop here.`);
    return;
  }
  const promise = { serverSeedHash: promised, clientSeed: entry.salt, ...isPointSystem(system) ? { system } : {} };
  const changed = () => {
    draw();
    if (seat) seat.changedAt = performance.now();
    watch?.wake();
    showCall();
  };
  session = new Session(state, board, promise, tables, entry.token, changed, (placed) => tellPlaced(round, placed));
  if (lockstep) session.overWords = "";
  document.body.dataset["table"] = "1";
  $("t-call").hidden = !lockstep;
  notice(state.finished ? `Your game of round ${round} is over.` : `Your game of round ${round} is open here.`);
  draw();
  if (seat) seat.over = state.finished;
  showCall();
  if (lockstep && !state.finished) {
    ticking = window.setInterval(showCall, TICK_MS);
    void follow(round, entry, session);
  }
  void rerender();
}
async function follow(round, entry, game) {
  following = new AbortController();
  const signal = following.signal;
  let after = Math.max(-1, game.next - 2);
  while (!signal.aborted) {
    const ended = await followOnce(round, entry, game, after, signal, (index) => after = Math.max(after, index));
    if (ended || signal.aborted) return;
    await new Promise((resolve) => setTimeout(resolve, 1e3));
  }
}
async function followOnce(round, entry, game, after, signal, seen) {
  const url = `/v1/tournaments/${encodeURIComponent(tid)}/rounds/${round}/calls?after=${after}`;
  try {
    const response = await fetch(url, {
      headers: { Accept: "text/event-stream", ...bearer(entry) },
      signal,
      credentials: "omit"
    });
    if (response.status >= 400 && response.status < 500) {
      say(`The calls cannot be followed (HTTP ${response.status}).`);
      return true;
    }
    if (!response.ok || !response.body) throw new Error(`the calls could not be followed (HTTP ${response.status})`);
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    for (; ; ) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value;
      let end;
      while ((end = buffer.search(/\r?\n\r?\n/)) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end).replace(/^\r?\n\r?\n/, "");
        const fields = Object.fromEntries(
          block.split(/\r?\n/).filter((line) => line && !line.startsWith(":")).map((line) => {
            const at = line.indexOf(":");
            return [line.slice(0, at), line.slice(at + 1).trimStart()];
          })
        );
        if (fields["event"] === "call" && fields["data"]) {
          const called = JSON.parse(fields["data"]);
          seen(called.index);
          if (seat?.round === round) seat.cards.set(called.index, called.card ?? null);
          if (seat?.round === round && (seat.call === null || called.index > seat.call.index)) seat.call = called;
          if (seat?.round === round && seat.call === called) clearNotice();
          if (called.index >= game.next) await game.refresh();
          showCall();
        } else if (fields["event"] === "end") {
          if (seat?.round === round) {
            seat.over = true;
            seat.closedAfter = await closedAfter(round, entry);
          }
          clearInterval(ticking);
          await game.refresh();
          showCall();
          return true;
        }
      }
    }
  } catch (error) {
    if (!signal.aborted) say(`The calls: ${describe(error)}; following them again…`);
  }
  return false;
}
async function closedAfter(round, entry) {
  try {
    const status = await call("get", "/v1/tournaments/{tournament_id}/rounds/{round_number}", {
      params: { tournament_id: tid, round_number: round },
      headers: bearer(entry)
    });
    return status.closed ? { called: status.called ?? 0, calls: status.calls } : null;
  } catch {
    return null;
  }
}
var closedWords = (closed) => `The organizer closed the tournament after ${closed.called} of the round's ${closed.calls} cards were called: the rest of your game was placed for you (the first open place each time) and scored.`;
function tellPlaced(round, placed) {
  if (!seat || seat.round !== round || !session) return;
  if (seat.over && seat.closedAfter !== null) {
    say(`Your game of round ${round} is over: the organizer closed the tournament.`);
    showCall();
    return;
  }
  const board3 = session.board;
  const words = placed.map(({ index, move }) => {
    const described = board3.describe?.(move);
    if (described !== void 0) return `${described.replace(/^Played /, "")} was played for you`;
    const card = seat?.cards.get(index);
    return `${card ? cardLabel(card) : `card ${index + 1}`} was placed for you at ${move}`;
  });
  seat.placedForYou.push(...words.map((text) => text.replace(/ was (placed|played) for you( at)?/, "$2")));
  notice(`Time's up: ${words.join("; ")}.`);
  showCall();
}
function showCall() {
  if (!seat || !session) return;
  const called = seat.call;
  const status = watch?.round === seat.round ? watch.status : null;
  let timer = "Seated: waiting for the first call.";
  let placed = status?.status === "waiting" ? `${status.seats} seated so far.` : "";
  if (seat.over) {
    const total = session.finished ? session.total : null;
    const scored = total === null ? "" : ` Your final score: ${total}.`;
    timer = seat.closedAfter !== null ? `${closedWords(seat.closedAfter)}${scored}` : `The round is over.${scored}`;
    placed = "";
  } else if (called) {
    const left = Math.max(0, Math.ceil((Date.parse(called.deadline) - Date.now() - clockOffset) / 1e3));
    const mine = session.next > called.index;
    const late = left === 0 ? " (it is placed for you at the deadline)" : "";
    timer = mine ? `Placed: the next call comes within ${left} s.` : `${left} s left to place it${late}.`;
    const fresh = status?.status === "playing" && status.call === called.index && watch !== null && watch.asked > seat.changedAt;
    const [done, seats] = fresh ? [status.placed ?? 0, status.seats] : [null, 0];
    if (mine) placed = done === null ? "Waiting for the others." : `Waiting for ${seats - done} of ${seats}.`;
    else placed = done === null ? "" : `${done} of ${seats} placed`;
  }
  $("deadline").textContent = timer;
  $("t-placed").textContent = placed;
  const auto = $("t-auto");
  auto.hidden = seat.placedForYou.length === 0;
  const all = seat.placedForYou;
  const count = all.length > 1 ? ` (${all.length} cards so far)` : "";
  auto.textContent = `Placed for you when time ran out: ${all[all.length - 1] ?? ""}${count}.`;
  $("t-call").toggleAttribute("data-live", !seat.over);
}
function table(caption, head, rows) {
  const element = document.createElement("table");
  element.createCaption().textContent = caption;
  const top = element.createTHead().insertRow();
  for (const text of head) {
    const cell = document.createElement("th");
    cell.scope = "col";
    cell.textContent = text;
    top.append(cell);
  }
  const body = element.createTBody();
  for (const row of rows) {
    const line = body.insertRow();
    for (const value of row) line.insertCell().textContent = String(value);
  }
  return element;
}
function standingsTable(caption, standings) {
  const lines = standings.entrants;
  return lines.some((s) => s.percent_of_par !== void 0 && s.percent_of_par !== null) ? table(caption, ["rank", "name", "total", "games", "% of par"], lines.map((s) => [s.rank, s.name, s.total, s.games_finished, percent(s.percent_of_par)])) : table(caption, ["rank", "name", "total", "games"], lines.map((s) => [s.rank, s.name, s.total, s.games_finished]));
}
var PARS_POLL_MS = 3e3;
var parsTimer;
function parWords(par) {
  const earlier = par.method === "earlier-solver" ? ", earlier solver" : "";
  return `par ${par.score} (${par.optimal ? "optimal" : `at most ${par.upper_bound}`}${earlier})`;
}
async function showClosed(tournament, headers, entry) {
  $("t-rounds").replaceChildren();
  const after = $("t-after");
  after.hidden = false;
  const [standings, settlement, exported] = await Promise.all([
    call("get", "/v1/tournaments/{tournament_id}/standings", { params: { tournament_id: tid }, headers }),
    call("get", "/v1/tournaments/{tournament_id}/settlement", { params: { tournament_id: tid }, headers }),
    call("get", "/v1/tournaments/{tournament_id}/export", { params: { tournament_id: tid }, headers })
  ]);
  const cuts = /* @__PURE__ */ new Map();
  for (const round of tournament.rounds) cuts.set(round.round, await cutShort(tournament, round.round, headers));
  const drawn = GRID_VARIANTS.includes(tournament.variant) || tournament.variant === "reserve-poker";
  const parts = [];
  if (entry !== null) parts.push(await yourGames(tournament, exported, entry.name, cuts, drawn));
  parts.push(standingsTable("Standings", standings));
  const pending = standings.pars_pending ?? 0;
  if (pending > 0) {
    const note = document.createElement("p");
    note.id = "t-pars-pending";
    note.textContent = `Par: ${pending === 1 ? "a round's par is" : `${pending} rounds' pars are`} being computed; this page shows ${pending === 1 ? "it" : "them"} when known.`;
    parts.push(note);
  }
  parts.push(table("Settlement (each entrant's net)", ["name", "net"], Object.entries(settlement.nets).map(([name, net]) => [name, net])));
  if (drawn) parts.push(...await grids(tournament, exported, cuts));
  after.replaceChildren(...parts);
  await recheckHere(tournament, exported, entry);
  clearTimeout(parsTimer);
  if (pending > 0) parsTimer = window.setTimeout(() => void rerender(), PARS_POLL_MS);
}
async function recheckHere(tournament, exported, entry) {
  if (!session?.finished) return;
  const hash = session.state.server_seed_hash;
  const round = tournament.rounds.find((r) => r.server_seed_hash === hash);
  if (!round?.server_seed) return;
  if (session.pending) await session.check(round.server_seed);
  const par = exported.pars?.find((p) => p.round === round.round);
  const mine = exported.games.find((g) => g.round === round.round && g.player === entry?.name);
  if (par) {
    const share = mine?.percent_of_par === void 0 || mine.percent_of_par === null ? "" : `: your ${mine.total} is ${percent(mine.percent_of_par)} of it`;
    $("par").textContent = `Round ${round.round}'s ${parWords(par)}${share}.`;
  }
}
async function yourGames(tournament, exported, name, cuts, drawn) {
  const section = document.createElement("section");
  section.id = "t-yours";
  section.setAttribute("aria-labelledby", "t-yours-title");
  const title = document.createElement("h2");
  title.id = "t-yours-title";
  title.textContent = `Your games, ${name}`;
  section.append(title);
  const games = exported.games.filter((g) => g.player === name);
  if (games.length === 0) {
    const none = document.createElement("p");
    none.textContent = "You finished no game in this tournament.";
    section.append(none);
    return section;
  }
  for (const game of games) {
    const par = exported.pars?.find((p) => p.round === game.round);
    const share = game.percent_of_par === void 0 || game.percent_of_par === null ? "" : `, ${percent(game.percent_of_par)} of par`;
    const words = `Round ${game.round}${(cuts.get(game.round) ?? "").replace("for each player", "for you")}: ${game.total}${par ? ` (${parWords(par)}${share})` : ""}`;
    const round = tournament.rounds.find((r) => r.round === game.round);
    const grid2 = drawn && round?.server_seed ? await gridOfGame(tournament, round.server_seed, game.moves) : null;
    const figure = document.createElement(grid2 ? "figure" : "p");
    figure.className = grid2 ? "your-grid" : "";
    if (grid2) {
      const caption = document.createElement("figcaption");
      caption.textContent = words;
      figure.append(caption, grid2);
    } else {
      figure.textContent = words;
    }
    section.append(figure);
  }
  return section;
}
async function gridOfGame(tournament, serverSeed, log) {
  const variant = tournament.variant;
  const deck = await deckCards(DECK_OF[variant] ?? "standard-52", fromHex(serverSeed), tournament.salt);
  const moves = log.split(" ").filter(Boolean);
  const replayed = variant === "reserve-poker" ? replayReserve(moves, deck) : replayPlaced(variant, moves, deck);
  return "error" in replayed ? null : gridOf(replayed.placed);
}
async function drawnTableNote(system, serverSeed, salt, games) {
  const other = await offTable(system, fromHex(serverSeed), salt, games);
  const note = document.createElement("p");
  note.className = other.length ? "not-verified" : "verified";
  note.textContent = other.length ? `Not the ${system} table this round's seed draws: the games of ${other.join(", ")}.` : `Every game was scored with the ${system} table this round's seed draws (${POINTS_ALGORITHM}).`;
  return note;
}
async function cutShort(tournament, round, headers) {
  if (tournament.format !== "lockstep") return "";
  try {
    const status = await call("get", "/v1/tournaments/{tournament_id}/rounds/{round_number}", {
      params: { tournament_id: tid, round_number: round },
      headers
    });
    const called = status.called;
    if (typeof called !== "number" || called >= status.calls) return "";
    return called === 0 ? " (never played: the tournament closed before it started)" : ` (cut short by the close: ${called} of ${status.calls} cards called, the rest placed for each player)`;
  } catch {
    return "";
  }
}
async function grids(tournament, exported, cuts) {
  const system = tournament.options?.scoring;
  const sections = [];
  for (const round of tournament.rounds) {
    if (!round.server_seed) continue;
    const section = document.createElement("section");
    const title = document.createElement("h3");
    const par = exported.pars?.find((p) => p.round === round.round);
    title.textContent = `Round ${round.round}${cuts.get(round.round) ?? ""}${par ? `: ${parWords(par)}` : ""}`;
    section.append(title);
    const games = exported.games.filter((g) => g.round === round.round);
    if (isPointSystem(system)) section.append(await drawnTableNote(system, round.server_seed, tournament.salt, games));
    for (const game of games) {
      const grid2 = await gridOfGame(tournament, round.server_seed, game.moves);
      if (grid2 === null) continue;
      const figure = document.createElement("figure");
      figure.className = "final-grid";
      const caption = document.createElement("figcaption");
      const share = game.percent_of_par === void 0 || game.percent_of_par === null ? "" : ` (${percent(game.percent_of_par)} of par)`;
      caption.textContent = `${game.player}: ${game.total}${share}`;
      figure.append(caption, grid2);
      section.append(figure);
    }
    sections.push(section);
  }
  return sections;
}
function percent(value) {
  return value === void 0 || value === null ? "–" : `${value.toFixed(1)}%`;
}
function gridOf(placed) {
  const coords = [...placed.keys()].map((text) => text.split(",").map(Number));
  const top = Math.min(...coords.map(([r]) => r));
  const left = Math.min(...coords.map(([, c]) => c));
  const grid2 = document.createElement("div");
  grid2.className = "mini-grid";
  grid2.setAttribute("role", "img");
  const cards = [];
  for (let r = 0; r < 5; r++) {
    for (let c = 0; c < 5; c++) {
      const card = placed.get(key([top + r, left + c])) ?? null;
      const cell = document.createElement("span");
      cell.className = card ? `card ${colourClass(card, fourColours())}` : "card";
      cell.textContent = card ? cardLabel(card) : "";
      if (card) cards.push(card);
      grid2.append(cell);
    }
  }
  grid2.setAttribute("aria-label", `grid, row by row: ${cards.join(" ")}`);
  return grid2;
}

// src/play.ts
var variants = [];
var board2 = null;
var session2 = null;
var shown = "";
var lastSeed = null;
var seedTyped = false;
var contextOf = (info, play) => ({
  play,
  say,
  fourColours,
  tables: info.tables ?? {},
  pointSystems: info.point_systems ?? []
});
function chosen() {
  return variants.find((v) => v.id === $("variant").value) ?? null;
}
function draw2() {
  drawGame(board2, session2?.view ?? null, session2?.next ?? 0, session2?.playing ?? false);
}
var randomSeed = () => toHex(crypto.getRandomValues(new Uint8Array(16)));
var inProgress = () => session2 !== null && !session2.finished && session2.next > 0;
function mayAbandon() {
  if (!inProgress()) return Promise.resolve(true);
  const dialog = $("abandon");
  return new Promise((resolve) => {
    const done = (answer) => {
      $("abandon-yes").removeEventListener("click", yes);
      $("abandon-no").removeEventListener("click", no);
      dialog.removeEventListener("cancel", no);
      if (dialog.open) dialog.close();
      resolve(answer);
    };
    const yes = () => done(true);
    const no = () => done(false);
    $("abandon-yes").addEventListener("click", yes);
    $("abandon-no").addEventListener("click", no);
    dialog.addEventListener("cancel", no);
    dialog.showModal();
    $("abandon-no").focus();
  });
}
async function chooseVariant() {
  const select = $("variant");
  if (select.value !== shown && !await mayAbandon()) {
    select.value = shown;
    return;
  }
  shown = select.value;
  const info = chosen();
  const kind = info ? KINDS[info.id] : void 0;
  $("options").replaceChildren(...info && kind ? [kind.form(contextOf(info, () => void 0))] : []);
  showRules(info?.id ?? null, info?.title ?? "");
  newBoard();
}
function newBoard() {
  const info = chosen();
  const kind = info ? KINDS[info.id] : void 0;
  session2 = null;
  board2 = info && kind ? kind.board($("board"), contextOf(info, (move) => void session2?.play(move))) : null;
  draw2();
}
async function deal() {
  const info = chosen();
  if (!info) return;
  if (!await mayAbandon()) return;
  const field = $("client-seed");
  if (lastSeed !== null && !seedTyped) field.value = randomSeed();
  const clientSeed = field.value;
  lastSeed = clientSeed;
  seedTyped = false;
  $("deal").setAttribute("disabled", "");
  $("result").hidden = true;
  $("verification").textContent = "";
  $("par").textContent = "";
  newBoard();
  try {
    const options = board2?.options() ?? {};
    const commitment = await call("post", "/v1/commitments", { body: {} });
    $("commitment").textContent = commitment.server_seed_hash;
    $("commitment-line").hidden = false;
    const state = await call("post", "/v1/deals", {
      body: {
        variant: info.id,
        options,
        commitment_id: commitment.commitment_id,
        client_seed: clientSeed
      },
      headers: { "Idempotency-Key": newKey() }
    });
    const asked = options.scoring;
    const shown2 = state.options?.scoring;
    const broken = [
      state.server_seed_hash !== commitment.server_seed_hash && "its hash is not the one committed",
      state.client_seed !== clientSeed && "its client seed is not the one sent",
      !state.committed_before_client_seed && "it was not committed before the client seed",
      state.variant !== info.id && "it is another variant",
      asked !== void 0 && (isPointSystem(asked) ? typeof shown2 !== "object" || shown2 === null : shown2 !== asked) && "its point table is not the one asked (a drawn system shows the table it drew)"
    ].filter(Boolean);
    if (broken.length) throw new Error(`the server dealt another game than it promised: ${broken.join("; ")}`);
    const tables = {};
    for (const each of variants) Object.assign(tables, each.tables);
    session2 = new Session(
      state,
      board2,
      { serverSeedHash: commitment.server_seed_hash, clientSeed, ...isPointSystem(asked) ? { system: asked } : {} },
      tables,
      null,
      draw2
    );
    say(`Dealt ${state.deal_id}.`);
    document.body.dataset["dealt"] = "1";
    draw2();
  } catch (error) {
    say(describe(error));
  } finally {
    $("deal").removeAttribute("disabled");
  }
}
async function start() {
  const params = new URLSearchParams(location.search);
  variants = (await call("get", "/v1/variants")).filter((v) => v.id in KINDS);
  $("copy").addEventListener("click", () => {
    void navigator.clipboard?.writeText($("receipt").value);
    say("The receipt was copied.");
  });
  const tournament = params.get("tournament");
  if (tournament) {
    await startTournament(tournament, variants);
    return;
  }
  const select = $("variant");
  for (const info of variants) select.append(new Option(info.title, info.id));
  const asked = params.get("variant");
  if (asked && asked in KINDS) select.value = asked;
  else if (asked) say(`This page does not play ${asked}; it plays ${Object.keys(KINDS).join(", ")}.`);
  const seed = $("client-seed");
  seed.value = randomSeed();
  seed.addEventListener("input", () => seedTyped = true);
  select.addEventListener("change", () => void chooseVariant());
  $("deal").addEventListener("click", () => void deal());
  $("four-colours").addEventListener("change", draw2);
  shown = select.value;
  await chooseVariant();
  document.body.dataset["ready"] = "1";
}
void start().catch((error) => say(describe(error)));

// Clean-room rules for replaying and scoring receipts (docs/rules.md): poker hands with the
// wild joker (section 1), the grid variants (sections 2-4), reserve-poker (section 6) and
// repeat-poker (section 5) in full, and solodrez's result (section 7) in part.
import { ALL_CATEGORIES, NAMED_TABLES, SYSTEMS, cardText } from './derive.mjs';
import { isJsonInt } from './json.mjs';

export class ReplayError extends Error {
  constructor(message, moveIndex = null) {
    super(moveIndex === null ? message : `move ${moveIndex}: ${message}`);
    this.moveIndex = moveIndex;
  }
}

// ---- cards and hands (rules.md section 1) -----------------------------------------------

const RANK_VALUE = Object.fromEntries([...'23456789TJQKA'].map((r, i) => [r, i + 2]));
const STANDARD = Array.from({ length: 52 }, (_, i) => cardText('standard-52', i));

function parseStandard(card) {
  if (typeof card !== 'string' || card.length !== 2 || !(card[0] in RANK_VALUE) || !'CDHS'.includes(card[1])) {
    throw new ReplayError(`not a canonical card: ${JSON.stringify(card)}`);
  }
  return { rank: RANK_VALUE[card[0]], suit: card[1] };
}

/** The category of five cards without a joker (five equal ranks only arise from a joker). */
export function categoryOf(cards) {
  if (cards.length !== 5) throw new ReplayError('a hand is 5 cards');
  const parsed = cards.map(parseStandard);
  const counts = {};
  for (const { rank } of parsed) counts[rank] = (counts[rank] || 0) + 1;
  const shape = Object.values(counts).sort((a, b) => b - a).join('');
  const flush = parsed.every((c) => c.suit === parsed[0].suit);
  const ranks = [...new Set(parsed.map((c) => c.rank))].sort((a, b) => a - b);
  const straight = ranks.length === 5
    && (ranks[4] - ranks[0] === 4 || ranks.join() === '2,3,4,5,14');
  if (shape === '5') return 'five-of-a-kind';
  if (straight && flush) return ranks[0] === 10 ? 'royal-flush' : 'straight-flush';
  if (shape === '41') return 'four-of-a-kind';
  if (shape === '32') return 'full-house';
  if (flush) return 'flush';
  if (straight) return 'straight';
  if (shape === '311') return 'three-of-a-kind';
  if (shape === '221') return 'two-pair';
  if (shape === '2111') return 'one-pair';
  return 'high-card';
}

/** Points of a category under a table; a category left out scores 0 (rules.md section 1). */
export function pointsOf(table, category) {
  const p = table[category];
  return p === undefined ? 0 : p;
}

/**
 * The category and points of a hand under `table`. A joker is wild: it stands for the card
 * (duplicates allowed) giving the highest points; equal points take the higher category,
 * five of a kind being the highest (rules.md section 1, "Joker", a Decision).
 */
export function scoreHand(cards, table) {
  const jokers = cards.filter((c) => c === 'JK').length;
  if (jokers === 0) {
    const category = categoryOf(cards);
    return { category, points: pointsOf(table, category) };
  }
  if (jokers > 1) throw new ReplayError('more than one joker in a hand');
  const rest = cards.filter((c) => c !== 'JK');
  let best = null;
  for (const stand of STANDARD) {
    const category = categoryOf([...rest, stand]);
    const points = pointsOf(table, category);
    const rank = ALL_CATEGORIES.indexOf(category);
    if (best === null || points > best.points || (points === best.points && rank > best.rank)) {
      best = { category, points, rank };
    }
  }
  return { category: best.category, points: best.points };
}

// ---- tables -----------------------------------------------------------------------------

const CATEGORY_SET = new Set(ALL_CATEGORIES);

/** A table named in `options.scoring`: a named table or a custom table (integers -1000..1000). */
export function resolveTable(scoring) {
  if (typeof scoring === 'string') {
    const t = NAMED_TABLES[scoring];
    if (!t) throw new ReplayError(`unknown or unresolved scoring ${JSON.stringify(scoring)}`);
    return t;
  }
  if (scoring === null || typeof scoring !== 'object' || Array.isArray(scoring)) {
    throw new ReplayError('options.scoring is neither a table name nor a table');
  }
  for (const [k, v] of Object.entries(scoring)) {
    if (!CATEGORY_SET.has(k)) throw new ReplayError(`unknown category ${k} in the table`);
    if (!isJsonInt(v) || v < -1000 || v > 1000) throw new ReplayError(`points of ${k} not an integer -1000..1000`);
  }
  return Object.fromEntries(ALL_CATEGORIES.map((c) => [c, Number(scoring[c] ?? 0)]));
}

// ---- the 5x5 grid: lines (rules.md section 1, "Cells, lines and the log") ----------------

const COLS = 'abcde';

/** The lines of a 5x5 grid `grid[row][col]`, named as in version 3 receipts. */
export function gridLines(grid, diagonals) {
  const lines = [];
  for (let r = 0; r < 5; r += 1) lines.push({ line: `row ${r + 1}`, cards: grid[r].slice() });
  for (let c = 0; c < 5; c += 1) lines.push({ line: `col ${COLS[c]}`, cards: grid.map((row) => row[c]) });
  if (diagonals) {
    lines.push({ line: 'diagonal \\', cards: [0, 1, 2, 3, 4].map((i) => grid[i][i]) });
    lines.push({ line: 'diagonal /', cards: [0, 1, 2, 3, 4].map((i) => grid[i][4 - i]) });
  }
  return lines;
}

/**
 * protocol.md 4.3.4: a version 2 receipt's line names (`col 1`..`col 5`, `diagonal 1` for
 * a1-e5, `diagonal 2` for e1-a5) renamed as version 3 names them; every other name is left
 * as it is (so a version 2 receipt using version 3 names verifies).
 */
export function v3LineName(name) {
  const col = typeof name === 'string' && /^col ([1-5])$/.exec(name);
  if (col) return `col ${COLS[Number(col[1]) - 1]}`;
  if (name === 'diagonal 1') return 'diagonal \\';
  if (name === 'diagonal 2') return 'diagonal /';
  return name;
}

function scoreLines(lines, table) {
  const hands = lines.map(({ line, cards }) => ({ line, cards, ...scoreHand(cards, table) }));
  return { total: hands.reduce((s, h) => s + h.points, 0), hands };
}

// ---- logs -------------------------------------------------------------------------------

/**
 * The moves of a log: separated by JSON's four white space characters only (space, tab, line
 * feed, carriage return: rules.md 1), each token read by `read` into its canonical text or
 * refused. (A receipt's log must also be in canonical form, protocol.md 4.5 step 8.)
 */
export function splitLog(moves, read) {
  if (typeof moves !== 'string') throw new ReplayError('moves is not a string');
  const text = moves.replace(/^[ \t\n\r]+|[ \t\n\r]+$/g, '');
  const tokens = text === '' ? [] : text.split(/[ \t\n\r]+/);
  return tokens.map((t, i) => {
    const canonical = read(t);
    if (canonical === null) throw new ReplayError(`not a move: ${JSON.stringify(t)}`, i);
    return canonical;
  });
}

// Readers: a move's text as the variant reads it -> its canonical text, or null.
/** rules.md 1: a cell, column letter then row number; upper case is read too. */
const readCell = (t) => (/^[a-eA-E][1-5]$/.test(t) ? t.toLowerCase() : null);
/** rules.md 3: each number one digit 0..4 with an optional sign; written without + or -0. */
function readOffset(t) {
  const m = /^([+-]?[0-4]),([+-]?[0-4])$/.exec(t);
  if (!m) return null;
  const n = (x) => { const v = Number(x); return v === 0 ? 0 : v; };
  return `${n(m[1])},${n(m[2])}`;
}
/** rules.md 6: `f>c`. Columns outside the board are read and refused as off-board. */
const readReserve = (t) => (/^[0-9]>[0-9]$/.test(t) ? t : null);
/** rules.md 5: `r1`..`r5`; `R1` is read too, written `r1`. */
const readRow = (t) => (/^[rR][1-9]$/.test(t) ? t.toLowerCase() : null);
/** rules.md 7 (solodrez): lower case only (`R4`, `STOP` are not moves). */
const readSolodrez = (t) => (/^(?:[0-8]:[1-9][0-9]*>[0-8]|r[0-8]|stop)$/.test(t) ? t : null);

export const MOVE_READERS = {
  'poker-squares': readCell,
  'poker-patience': readOffset,
  'serpent-patience': readCell,
  'repeat-poker': readRow,
  'reserve-poker': readReserve,
  solodrez: readSolodrez,
};

/** A move object (0-based JSON fields, rules.md 2-7) as its text. */
function moveObjectText(variant, m) {
  const int = (v) => Number.isInteger(v);
  if (m === null || typeof m !== 'object') return null;
  switch (variant) {
    case 'poker-squares': case 'serpent-patience':
      return int(m.row) && int(m.col) && m.row >= 0 && m.row < 5 && m.col >= 0 && m.col < 5 ? `${COLS[m.col]}${m.row + 1}` : null;
    case 'poker-patience':
      return int(m.row) && int(m.col) ? readOffset(`${m.row},${m.col}`) : null;
    case 'repeat-poker':
      return int(m.row) && m.row >= 0 ? `r${m.row + 1}` : null;
    case 'reserve-poker':
      return int(m.from) && int(m.to) ? `${m.from}>${m.to}` : null;
    case 'solodrez':
      if (m.stop === true) return 'stop';
      if (int(m.remove)) return `r${m.remove}`;
      return int(m.from) && int(m.count) && int(m.to) ? `${m.from}:${m.count}>${m.to}` : null;
    default: return null;
  }
}

/**
 * The canonical text of a log (protocol.md 4.5 step 6, `moves`): a log as text, or a list of
 * move texts and move objects; moves separated by one space.
 */
export function canonicalLog(variant, moves) {
  const read = MOVE_READERS[variant];
  if (!read) throw new ReplayError(`unknown variant ${variant}`);
  if (typeof moves === 'string') return splitLog(moves, read).join(' ');
  if (!Array.isArray(moves)) throw new ReplayError('a log is a text or a list of moves');
  return moves.map((m, i) => {
    const t = typeof m === 'string' ? read(m.replace(/^[ \t\n\r]+|[ \t\n\r]+$/g, '')) : moveObjectText(variant, m);
    if (t === null) throw new ReplayError(`not a move: ${JSON.stringify(m)}`, i);
    return t;
  }).join(' ');
}

const cellOf = (t) => ({ row: Number(t[1]) - 1, col: COLS.indexOf(t[0]) });
const emptyGrid = () => Array.from({ length: 5 }, () => Array(5).fill(null));

// ---- poker-squares (rules.md section 2) ------------------------------------------------

export function replayPokerSquares(deck, moves, options) {
  const log = splitLog(moves, readCell);
  if (log.length !== 25) throw new ReplayError(`a complete game is 25 placements, not ${log.length}`);
  const grid = emptyGrid();
  log.forEach((t, i) => {
    const { row, col } = cellOf(t);
    if (grid[row][col] !== null) throw new ReplayError('cell-taken', i);
    grid[row][col] = deck[i];
  });
  return scoreLines(gridLines(grid, options.diagonals === true), resolveTable(options.scoring));
}

// ---- poker-patience (rules.md section 3) -----------------------------------------------

export function replayPokerPatience(deck, moves, options) {
  const log = splitLog(moves, readOffset);
  if (log.length !== 25) throw new ReplayError(`a complete game is 25 placements, not ${log.length}`);
  const laid = new Map();
  let minR = 0; let maxR = 0; let minC = 0; let maxC = 0;
  log.forEach((t, i) => {
    const [row, col] = t.split(',').map(Number);
    const key = `${row},${col}`;
    if (i === 0) {
      if (row !== 0 || col !== 0) throw new ReplayError('first-not-origin', i);
    } else {
      if (laid.has(key)) throw new ReplayError('cell-taken', i);
      let touches = false;
      for (let dr = -1; dr <= 1; dr += 1) {
        for (let dc = -1; dc <= 1; dc += 1) {
          if ((dr || dc) && laid.has(`${row + dr},${col + dc}`)) touches = true;
        }
      }
      if (!touches) throw new ReplayError('not-adjacent', i);
      if (Math.max(maxR, row) - Math.min(minR, row) > 4 || Math.max(maxC, col) - Math.min(minC, col) > 4) {
        throw new ReplayError('outside-square', i);
      }
    }
    laid.set(key, deck[i]);
    minR = Math.min(minR, row); maxR = Math.max(maxR, row);
    minC = Math.min(minC, col); maxC = Math.max(maxC, col);
  });
  if (maxR - minR !== 4 || maxC - minC !== 4) throw new ReplayError('the layout is not a 5x5 square');
  const grid = emptyGrid();
  for (let r = 0; r < 5; r += 1) {
    for (let c = 0; c < 5; c += 1) grid[r][c] = laid.get(`${minR + r},${minC + c}`);
  }
  return scoreLines(gridLines(grid, false), resolveTable(options.scoring));
}

// ---- serpent-patience (rules.md section 4) ---------------------------------------------

export function replaySerpentPatience(deck, moves, options) {
  const log = splitLog(moves, readCell);
  if (log.length !== 25) throw new ReplayError(`a complete game is 25 placements, not ${log.length}`);
  const grid = emptyGrid();
  let previous = null;
  log.forEach((t, i) => {
    const { row, col } = cellOf(t);
    if (grid[row][col] !== null) throw new ReplayError('cell-taken', i);
    if (previous && Math.abs(previous.row - row) + Math.abs(previous.col - col) !== 1) {
      throw new ReplayError('not-adjacent', i);
    }
    grid[row][col] = deck[i];
    previous = { row, col };
  });
  return scoreLines(gridLines(grid, false), resolveTable(options.scoring));
}

// ---- reserve-poker (rules.md section 6) ------------------------------------------------

/** The reserve columns of a joker-53 deal: card i to column i mod 4, the last dealt at the bottom. */
export function reserveColumns(deck) {
  const columns = [[], [], [], []];
  deck.forEach((card, i) => columns[i % 4].push({ card, index: i }));
  return columns;
}

export function replayReservePoker(deck, moves, options) {
  const version = options.version;
  if (!Number.isInteger(version) || version < 1 || version > 6) {
    throw new ReplayError(`options.version ${JSON.stringify(version)} is not a number 1..6`);
  }
  const log = splitLog(moves, readReserve);
  if (log.length !== 25) throw new ReplayError(`a complete game is 25 cards in the grid, not ${log.length}`);
  const columns = reserveColumns(deck);
  const grid = emptyGrid();
  const heights = [0, 0, 0, 0, 0];
  const taken = [];
  log.forEach((t, i) => {
    const [f, c] = t.split('>').map(Number);
    if (f > 3 || c > 4) throw new ReplayError('off-board', i);
    if (columns[f].length === 0) throw new ReplayError('reserve-empty', i);
    if (heights[c] >= 5) throw new ReplayError('column-full', i);
    const { card, index } = columns[f].pop();
    grid[4 - heights[c]][c] = card;
    heights[c] += 1;
    taken.push(index);
  });
  const score = scoreLines(gridLines(grid, true), NAMED_TABLES.reserve);
  return { ...score, taken };
}

/** The deal indices a reserve-poker player has seen by the end of the game (rules.md 6). */
export function reserveSeen(deckSize, moves, version) {
  const log = splitLog(moves, readReserve);
  const columns = reserveColumns(Array(deckSize).fill(null)).map((col) => col.map((x) => x.index));
  const takes = [0, 0, 0, 0];
  for (const t of log) takes[Number(t[0])] += 1;
  const seen = new Set();
  columns.forEach((col, f) => {
    let shown;
    if (version === 5) shown = col.length;
    else if (version === 6) shown = takes[f];
    else shown = Math.min(col.length, takes[f] + version);
    col.slice(col.length - shown).forEach((i) => seen.add(i));
  });
  return [...seen].sort((a, b) => a - b);
}

// ---- repeat-poker (rules.md section 5) -------------------------------------------------

function removedCards(cards, category, highCard) {
  const ranks = cards.map((c) => parseStandard(c).rank);
  const counts = {};
  for (const r of ranks) counts[r] = (counts[r] || 0) + 1;
  const inGroups = (min) => cards.filter((c, i) => counts[ranks[i]] >= min);
  switch (category) {
    case 'one-pair': case 'two-pair': case 'three-of-a-kind': case 'four-of-a-kind':
      return inGroups(2);
    case 'high-card': {
      if (highCard === 'clear-row') return cards.slice();
      const top = Math.max(...ranks);
      return [cards[ranks.indexOf(top)]];
    }
    default:
      return cards.slice();
  }
}

/**
 * Repeat-poker in full (rules.md 5, protocol.md 4.3.3): hands in the order rows complete,
 * `row k` within the level, cards in row order (kickers kept first), `removed` in row order.
 */
export function replayRepeatPoker(decks, moves, options) {
  const levels = options.levels === undefined ? 1 : options.levels;
  if (levels !== 1 && levels !== 5) throw new ReplayError('options.levels is 1 or 5');
  const highCard = options.high_card === undefined ? 'drop-top' : options.high_card;
  if (highCard !== 'drop-top' && highCard !== 'clear-row') throw new ReplayError('bad options.high_card');
  if (levels === 5 && options.rows !== undefined && options.rows !== 5) throw new ReplayError('rows with levels 5');
  const rows0 = options.rows === undefined ? 5 : options.rows;
  if (!Number.isInteger(rows0) || rows0 < 1 || rows0 > 5) throw new ReplayError('options.rows is 1..5');
  const log = splitLog(moves, readRow);
  if (log.length !== 52 * levels) throw new ReplayError(`a complete game is ${52 * levels} moves, not ${log.length}`);
  const hands = [];
  const levelTotals = [];
  for (let level = 1; level <= levels; level += 1) {
    const rows = levels === 5 ? 6 - level : rows0;
    const layout = Array.from({ length: rows }, () => []);
    const deck = decks[level - 1];
    let total = 0;
    for (let k = 0; k < 52; k += 1) {
      const i = (level - 1) * 52 + k;
      const row = Number(log[i][1]) - 1;
      if (row >= rows) throw new ReplayError('off-board', i);
      if (layout[row].length >= 5) throw new ReplayError('the row is full', i);
      layout[row].push(deck[k]);
      if (layout[row].length === 5) {
        const cards = layout[row];
        const { category, points } = scoreHand(cards, NAMED_TABLES.repeat);
        const removed = removedCards(cards, category, highCard);
        layout[row] = cards.filter((c) => !removed.includes(c));
        hands.push({ line: `row ${row + 1}`, cards: cards.slice(), category, points, level, removed });
        total += points;
      }
    }
    levelTotals.push(total);
  }
  return { total: levelTotals.reduce((a, b) => a + b, 0), hands, levels: levelTotals };
}

// ---- solodrez (rules.md section 7) -----------------------------------------------------

/** Figures high to low (rules.md 7): Joker 0, Queen 1, Tower 2, Bishop 3, Knight 4, Pawn 5. */
const FIGURES = 'JQTBNP';
const PAWN = 5;
/** A card's figure 0..5, or null for a neutral (`X1`, `X2`). */
const figureOf = (card) => (card[0] === 'X' ? null : FIGURES.indexOf(card[0]));

/**
 * The figures a run's first card can stand for (rules.md 7, "A run"; neutrals are wild): the
 * cards, first to last, each exactly one figure below the one before, all within Joker..Pawn.
 * Empty when the cards are no run.
 */
export function runStarts(cards) {
  let start = null;
  for (let i = 0; i < cards.length; i += 1) {
    const f = figureOf(cards[i]);
    if (f === null) continue;
    if (start === null) start = f - i;
    else if (f - i !== start) return [];
  }
  const starts = start === null ? [0, 1, 2, 3, 4, 5] : [start];
  return starts.filter((s) => s >= 0 && s + cards.length - 1 <= PAWN);
}

/**
 * Whether the run `cards` may go onto `columns[to]` (rules.md 7, move `a:n>b`): onto a card
 * exactly one figure above its first card (a neutral there stands for whatever makes this
 * true; nothing goes onto a Pawn, as no run starts below one); a run that starts with a Joker
 * (or a neutral standing for one) only into an empty column, which takes only such a run.
 */
export function fits(cards, target) {
  const starts = runStarts(cards);
  if (target.length === 0) return starts.includes(0);
  const below = figureOf(target[target.length - 1]);
  if (below === null) return starts.some((s) => s >= 1);
  return starts.includes(below + 1);
}

/** Exactly one complete series, J Q T B N P first to last, no neutral, nothing else. */
const isSeries = (column) => column.length === 6 && column.every((c, i) => figureOf(c) === i);

export const SOLODREZ_MAX_MOVES = 10000;

/** Whether any move but `stop` is legal (rules.md 7, "End"). */
function anyMoveLeft(columns) {
  for (let a = 0; a < 9; a += 1) {
    if (isSeries(columns[a])) return true;
    for (let n = 1; n <= Math.min(6, columns[a].length); n += 1) {
      const run = columns[a].slice(-n);
      if (runStarts(run).length === 0) break; // a longer tail holds this one: no run either
      for (let b = 0; b < 9; b += 1) if (b !== a && fits(run, columns[b])) return true;
    }
  }
  return false;
}

/**
 * Replays a solodrez log on the 56-card deal (card i to column i mod 9, the last card of a
 * column exposed) and returns the score the rules give: `{total, hands: [], won,
 * series_removed}`, total = series_removed (protocol.md 4.3.3). Throws ReplayError on an
 * illegal move, a move after the end, or a log that stops while moves are left (`incomplete`).
 */
export function replaySolodrez(deck, moves) {
  const columns = Array.from({ length: 9 }, () => []);
  deck.forEach((card, i) => columns[i % 9].push(card));
  const log = splitLog(moves, readSolodrez);
  let removed = 0;
  let over = !anyMoveLeft(columns); // a deal may leave no move at all
  log.forEach((move, i) => {
    if (over) throw new ReplayError('game-over', i);
    if (move === 'stop') {
      over = true;
      return;
    }
    if (move[0] === 'r') {
      const a = Number(move.slice(1));
      if (!isSeries(columns[a])) throw new ReplayError('not-a-series', i);
      columns[a] = [];
      removed += 1;
    } else {
      const [, from, count, to] = /^(\d+):(\d+)>(\d+)$/.exec(move).map(Number);
      if (from > 8 || to > 8) throw new ReplayError('off-board', i);
      if (from === to) throw new ReplayError('same-column', i);
      if (count > columns[from].length) throw new ReplayError('too-many-cards', i);
      const run = columns[from].slice(-count);
      if (runStarts(run).length === 0) throw new ReplayError('not-a-run', i);
      if (!fits(run, columns[to])) throw new ReplayError('not-one-higher, onto-pawn, joker-needs-empty or empty-needs-joker', i);
      columns[from] = columns[from].slice(0, -count);
      columns[to] = [...columns[to], ...run];
    }
    over = removed === 9 || i + 1 >= SOLODREZ_MAX_MOVES || !anyMoveLeft(columns);
  });
  if (!over) throw new ReplayError('incomplete', log.length);
  return { total: removed, hands: [], won: removed === 9, series_removed: removed };
}

// ---- variants ---------------------------------------------------------------------------

export const VARIANTS = {
  'poker-squares': { deckType: 'standard-52', open: false },
  'poker-patience': { deckType: 'standard-52', open: false },
  'serpent-patience': { deckType: 'standard-52', open: true },
  'repeat-poker': { deckType: 'standard-52', open: false },
  'reserve-poker': { deckType: 'joker-53', open: null }, // open only with version 5
  solodrez: { deckType: 'pokerdrez-56', open: true },
};

export const GRID_VARIANTS = new Set(['poker-squares', 'poker-patience', 'serpent-patience']);

const OPTION_NAMES = {
  'poker-squares': ['scoring', 'diagonals'],
  'poker-patience': ['scoring'],
  'serpent-patience': ['scoring'],
  'repeat-poker': ['rows', 'levels', 'high_card'],
  'reserve-poker': ['version'],
  solodrez: [],
};

/** Step 6 without a seed: what a drawn system or a "random" version asked for matches. */
export const ANY_TABLE = Symbol('any drawn table');
export const ANY_VERSION = Symbol('any rolled version');

/**
 * The options as the variant reads them (protocol.md 4.3.2, rules.md 1-7): an option the
 * variant does not take, or a value of the wrong type or range, is refused; a missing option
 * is its default. `scoring` stays a named table's *name* (a named table is not a custom table
 * with its points, 4.5 step 6), a custom table becomes all eleven categories (left out: 0).
 * `draw` ({table(system), version()}) resolves a drawn system's name and a "random" version;
 * without it both are refused (a receipt carries what was drawn). A `null` option value is
 * refused as the wrong type (not said, NOTES.md).
 */
export function readOptions(variant, options, draw = null) {
  const names = OPTION_NAMES[variant];
  if (!names) throw new ReplayError(`unknown variant ${variant}`);
  if (options === null || typeof options !== 'object' || Array.isArray(options)) throw new ReplayError('options is not an object');
  for (const k of Object.keys(options)) if (!names.includes(k)) throw new ReplayError(`unknown-option ${k} for ${variant}`);
  const has = (k) => Object.prototype.hasOwnProperty.call(options, k);
  const o = {};
  if (names.includes('scoring')) {
    const scoring = has('scoring') ? options.scoring : (variant === 'poker-squares' ? 'american' : 'british');
    if (typeof scoring === 'string' && SYSTEMS.includes(scoring)) {
      if (!draw) throw new ReplayError(`generated-needs-seeds: ${scoring}`);
      const t = draw.table(scoring);
      o.scoring = t === ANY_TABLE ? t : resolveTable(t);
    } else if (typeof scoring === 'string') {
      if (!(scoring in NAMED_TABLES)) throw new ReplayError(`bad-option: unknown table ${scoring}`);
      o.scoring = scoring;
    } else {
      o.scoring = resolveTable(scoring);
    }
  }
  if (variant === 'poker-squares') {
    o.diagonals = has('diagonals') ? options.diagonals : false;
    if (typeof o.diagonals !== 'boolean') throw new ReplayError('bad-option: diagonals is a boolean');
  }
  if (variant === 'reserve-poker') {
    let version = has('version') ? options.version : 1;
    if (version === 'random') {
      if (!draw) throw new ReplayError('a "random" version needs seeds');
      version = draw.version();
    }
    if (version !== ANY_VERSION && (!isJsonInt(version) || version < 1 || version > 6)) {
      throw new ReplayError('bad-option: version is 1..6');
    }
    o.version = typeof version === 'bigint' ? Number(version) : version;
  }
  if (variant === 'repeat-poker') {
    o.levels = has('levels') ? options.levels : 1;
    if (o.levels !== 1 && o.levels !== 5) throw new ReplayError('bad-option: levels is 1 or 5');
    o.rows = has('rows') ? options.rows : 5;
    if (typeof o.rows !== 'number' || !Number.isInteger(o.rows) || o.rows < 1 || o.rows > 5) throw new ReplayError('bad-option: rows is 1..5');
    if (o.levels === 5 && o.rows !== 5) throw new ReplayError('bad-option: rows is 5 or left out with levels 5');
    o.high_card = has('high_card') ? options.high_card : 'drop-top';
    if (o.high_card !== 'drop-top' && o.high_card !== 'clear-row') throw new ReplayError('bad-option: high_card');
  }
  return o;
}

export function isOpen(variant, options) {
  if (variant === 'reserve-poker') return options.version === 5;
  return VARIANTS[variant].open;
}

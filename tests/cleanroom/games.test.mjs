// Hands and replays against the examples docs/rules.md itself gives.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { NAMED_TABLES } from './derive.mjs';
import {
  categoryOf, replayRepeatPoker, replayReservePoker, reserveSeen, scoreHand, v3LineName,
} from './games.mjs';

test('straights: the ace high or low, nothing wraps (rules.md 1)', () => {
  assert.equal(categoryOf(['AH', '2C', '3D', '4S', '5H']), 'straight');
  assert.equal(categoryOf(['TH', 'JC', 'QD', 'KS', 'AH']), 'straight');
  assert.equal(categoryOf(['QH', 'KC', 'AD', '2S', '3H']), 'high-card');
  assert.equal(categoryOf(['AH', '2H', '3H', '4H', '5H']), 'straight-flush');
  assert.equal(categoryOf(['TH', 'JH', 'QH', 'KH', 'AH']), 'royal-flush');
  assert.equal(categoryOf(['9H', 'TH', 'JH', 'QH', 'KH']), 'straight-flush');
});

test('each category once, as its highest', () => {
  const cases = {
    'high-card': ['2C', '5D', '9H', 'JS', 'KC'], 'one-pair': ['2C', '2D', '9H', 'JS', 'KC'],
    'two-pair': ['2C', '2D', '9H', '9S', 'KC'], 'three-of-a-kind': ['2C', '2D', '2H', '9S', 'KC'],
    flush: ['2C', '5C', '9C', 'JC', 'KC'], 'full-house': ['2C', '2D', '2H', '9S', '9C'],
    'four-of-a-kind': ['2C', '2D', '2H', '2S', '9C'],
  };
  for (const [category, cards] of Object.entries(cases)) assert.equal(categoryOf(cards), category);
});

test('the joker is wild and may duplicate a card (rules.md 1)', () => {
  assert.deepEqual(scoreHand(['AH', 'AD', 'AC', 'AS', 'JK'], NAMED_TABLES.reserve), { category: 'five-of-a-kind', points: 28 });
  assert.deepEqual(scoreHand(['TH', 'JH', 'QH', 'KH', 'JK'], NAMED_TABLES.reserve), { category: 'royal-flush', points: 30 });
  assert.deepEqual(scoreHand(['4C', '4D', '5S', 'JK', '9C'], NAMED_TABLES.reserve), { category: 'three-of-a-kind', points: 8 });
  // Equal points: the higher category (a Decision in rules.md 1).
  const flat = { 'one-pair': 1, straight: 1 };
  assert.deepEqual(scoreHand(['2C', '3D', '4H', '9S', 'JK'], flat), { category: 'one-pair', points: 1 });
  assert.deepEqual(scoreHand(['2C', '3D', '4H', '5S', 'JK'], flat), { category: 'straight', points: 1 });
  // A table that prefers a worse hand: the joker serves the table, not the poker order.
  assert.deepEqual(scoreHand(['AH', 'AD', 'AC', 'KS', 'JK'], { 'three-of-a-kind': 5, 'four-of-a-kind': 1 }),
    { category: 'three-of-a-kind', points: 5 });
});

test('version 2 line names', () => {
  assert.equal(v3LineName('col 1'), 'col a');
  assert.equal(v3LineName('col 5'), 'col e');
  assert.equal(v3LineName('diagonal 1'), 'diagonal \\');
  assert.equal(v3LineName('diagonal 2'), 'diagonal /');
  assert.equal(v3LineName('row 3'), 'row 3');
  // protocol.md 4.3.4: every other name is left as it is.
  assert.equal(v3LineName('col a'), 'col a');
  assert.equal(v3LineName('diagonal \\'), 'diagonal \\');
});

test('reserve-poker: round-robin columns, gravity, the bottom card taken first', () => {
  const deck = Array.from({ length: 53 }, (_, i) => `c${i}`);
  assert.throws(() => replayReservePoker(deck, '0>0 0>0 1>4', { version: 1 })); // incomplete
  assert.deepEqual(reserveSeen(53, '', 1), [49, 50, 51, 52]);
  assert.deepEqual(reserveSeen(53, '0>0', 2), [44, 45, 46, 47, 48, 49, 50, 51, 52]);
  assert.deepEqual(reserveSeen(53, '0>0', 6), [52]);
  assert.equal(reserveSeen(53, '', 5).length, 53);
});

test('repeat-poker: hand cards removed, kickers stay, drop-top on a high card', () => {
  const { hands } = (() => {
    const cards = ['2C', '2D', '9H', 'JS', 'KC', '5H', '7D', '8C', 'JD', '3S', '4S', '6S'];
    const standard = [];
    for (const s of 'CDHS') for (const r of '23456789TJQKA') standard.push(r + s);
    const rest = standard.filter((c) => !cards.includes(c));
    const all = [...cards, ...rest];
    return replayRepeatPoker([all], Array(52).fill('r1').join(' '), {});
  })();
  assert.deepEqual(hands[0], {
    line: 'row 1', cards: ['2C', '2D', '9H', 'JS', 'KC'], category: 'one-pair', points: 20, level: 1, removed: ['2C', '2D'],
  });
  // 9H JS KC stay; 5H 7D join: high card, the king goes.
  assert.deepEqual(hands[1].removed, ['KC']);
  assert.equal(hands[1].category, 'high-card');
});

test('solodrez runs, neutrals and where a run may go (rules.md 7)', async () => {
  const { runStarts, replaySolodrez } = await import('./games.mjs');
  assert.deepEqual(runStarts(['Q1', 'T2', 'B3']), [1]);
  assert.deepEqual(runStarts(['Q1', 'X1', 'B3']), [1]); // the neutral stands for the Tower
  assert.deepEqual(runStarts(['Q1', 'B3']), []); // a figure skipped
  assert.deepEqual(runStarts(['X1', 'X2']), [0, 1, 2, 3, 4]); // room down to the Pawn
  assert.deepEqual(runStarts(['N1', 'P2', 'X1']), []); // nothing below the Pawn
  assert.deepEqual(runStarts(['J1', 'Q2', 'T3', 'B4', 'N5', 'P6']), [0]);
  // A deal where column 2 (6 cards) is J..P of colour 1 from its first card: r2 removes it.
  const figures = 'JQTBNP';
  const deck = Array(56).fill(null);
  for (let j = 0; j < 6; j += 1) deck[9 * j + 2] = `${figures[j]}1`;
  const rest = [];
  for (let c = 2; c <= 9; c += 1) for (const f of figures) rest.push(`${f}${c}`);
  rest.push('X1', 'X2');
  for (let i = 0; i < 56; i += 1) if (deck[i] === null) deck[i] = rest.shift();
  assert.equal(replaySolodrez(deck, 'r2 stop').series_removed, 1);
  assert.throws(() => replaySolodrez(deck, 'r0 stop'), /not-a-series/); // 7 cards
  assert.throws(() => replaySolodrez(deck, 'r2'), /incomplete/);
  assert.throws(() => replaySolodrez(deck, 'stop r2'), /game-over/);
  assert.throws(() => replaySolodrez(deck, '2:6>3 stop'), /joker-needs-empty/); // a whole series onto a card
});

test('solodrez: where a run may go, and a deal with no move at all (rules.md 7)', async () => {
  const { fits, replaySolodrez } = await import('./games.mjs');
  assert.equal(fits(['Q1'], ['J2']), true);
  assert.equal(fits(['T1'], ['J2']), false); // not one higher
  assert.equal(fits(['X1'], ['P2']), false); // nothing onto a Pawn
  assert.equal(fits(['Q1'], ['X1']), true); // the neutral below stands for a Joker
  assert.equal(fits(['J1'], ['X1']), false); // a Joker only into an empty column
  assert.equal(fits(['J1', 'Q2'], ['Q3']), false);
  assert.equal(fits(['J1', 'Q2'], []), true);
  assert.equal(fits(['X1', 'Q2'], []), true); // the neutral stands for a Joker
  assert.equal(fits(['Q1'], []), false); // an empty column takes only a Joker's run
  assert.equal(fits(['X1', 'X2'], ['B3']), true); // neutrals for Knight and Pawn
  // Every exposed card a Pawn, no column empty, no series: no legal move from the deal, so the
  // empty log is a whole game (scored 0) and any move is after the end (the SDK agrees).
  const deck = ['J1', 'Q1', 'T1', 'B1', 'N1', 'J2', 'Q2', 'T2', 'B2', 'N2', 'J3', 'Q3', 'T3', 'B3',
    'N3', 'J4', 'Q4', 'T4', 'B4', 'N4', 'J5', 'Q5', 'T5', 'B5', 'N5', 'J6', 'Q6', 'T6', 'B6', 'N6',
    'J7', 'Q7', 'T7', 'B7', 'N7', 'J8', 'Q8', 'T8', 'B8', 'N8', 'J9', 'Q9', 'T9', 'B9', 'N9', 'X1',
    'X2', 'P3', 'P4', 'P5', 'P6', 'P7', 'P8', 'P9', 'P1', 'P2'];
  assert.deepEqual(replaySolodrez(deck, ''), { total: 0, hands: [], won: false, series_removed: 0 });
  assert.throws(() => replaySolodrez(deck, 'stop'), /game-over/);
});

"""Five-card hand classification speed: cardproof against treys and phevaluator.

Measures nanoseconds per hand for ``cardproof.hands.classify_indices`` (one call a hand),
treys ``Evaluator().evaluate(cards, [])`` and ``phevaluator.evaluate_cards(a, b, c, d, e)``
on the same 200,000 random hands (``random.Random(2026)``), each converted up front into
the evaluator's native input, timed in interleaved rounds with the order rotated. Then
the joker-wild path ``best_category(cards, TABLES["reserve"])`` on hands holding the joker.
The speed ratio target (issue 13: treys/cardproof >= 4.0) is judged on the median of the
per-round ratios, each round timing both evaluators back to back; the best-of-rounds
and median ratios are printed beside it. ``--exhaustive``
also checks cardproof's category against treys' hand class on all 2,598,960 hands.

Run: ``.venv/bin/python bench/hands.py [--exhaustive] [--rounds N]``
"""

from __future__ import annotations

import argparse
import itertools
import math
import random
import time
from collections.abc import Callable, Sequence

from phevaluator import _pheval, evaluate_cards
from treys import Card as TreysCard
from treys import Evaluator

from _common import load_average, median, print_machine, time_ns, verdict
from cardproof.cards import ALL_CARDS, JOKER, RANKS, STANDARD_DECK, SUITS, Card
from cardproof.hands import TABLES, Category, best_category, classify, classify_indices
from cardproof.progress import bar

HANDS = 200_000
JOKER_HANDS = 50_000
SEED = 2026
TARGET_TREYS_RATIO = 4.0
TARGET_JOKER_NS = 2_000

Hand = tuple[int, int, int, int, int]
TREYS = Evaluator()  # builds treys' lookup tables once, outside any timing

# treys hand classes by name (treys 0.1.8 has a "Royal Flush" class 0; older treys
# has none and a royal flush is the straight flush of rank 1, which is handled below).
TREYS_CLASS: dict[str, Category] = {
    "Royal Flush": Category.ROYAL_FLUSH,
    "Straight Flush": Category.STRAIGHT_FLUSH,
    "Four of a Kind": Category.FOUR_OF_A_KIND,
    "Full House": Category.FULL_HOUSE,
    "Flush": Category.FLUSH,
    "Straight": Category.STRAIGHT,
    "Three of a Kind": Category.THREE_OF_A_KIND,
    "Two Pair": Category.TWO_PAIR,
    "Pair": Category.ONE_PAIR,
    "High Card": Category.HIGH_CARD,
}


# --- native encodings -------------------------------------------------------------


def treys_card(index: int) -> int:
    """treys' int for a cardproof index (``Card.new('Ah')``: rank letter, lower-case suit)."""
    return TreysCard.new(RANKS[index % 13] + SUITS[index // 13].lower())  # type: ignore[no-any-return]


def ph_card(index: int) -> int:
    """phevaluator's id for a cardproof index: ``rank * 4 + suit``, suits c d h s = 0..3."""
    return (index % 13) * 4 + index // 13


def check_encodings() -> None:
    """Check both peer encodings against the peers' own string parsers, card by card."""
    from phevaluator.card import Card as PhCard

    for card in STANDARD_DECK:
        rank, suit = card.text[0], card.text[1]
        assert ph_card(card.index) == PhCard(rank + suit.lower()).id_, card
        assert TreysCard.int_to_str(treys_card(card.index)) == rank + suit.lower(), card


def treys_category(evaluator: Evaluator, rank: int) -> Category:
    """The cardproof category of a treys hand rank (1 is a royal flush)."""
    name = evaluator.class_to_string(evaluator.get_rank_class(rank))
    category = TREYS_CLASS[name]
    if category is Category.STRAIGHT_FLUSH and rank == 1:  # treys without a royal class
        return Category.ROYAL_FLUSH
    return category


# --- the timed loops -------------------------------------------------------------------
# Each takes the hands in its evaluator's native form and calls the evaluator once a hand.


def run_empty(hands: Sequence[Hand]) -> None:
    for _hand in hands:
        pass


def run_cardproof(hands: Sequence[Hand]) -> None:
    classify = classify_indices
    for hand in hands:
        classify(hand)


def run_treys(hands: Sequence[list[int]]) -> None:
    # evaluate(hand, board) concatenates hand + board and dispatches on the length:
    # 5 cards go to Evaluator._five, so evaluate(cards, []) is the 5-card call.
    evaluate = TREYS.evaluate
    for hand in hands:
        evaluate(hand, [])


def run_phevaluator(hands: Sequence[Hand]) -> None:
    evaluate = evaluate_cards
    for a, b, c, d, e in hands:
        evaluate(a, b, c, d, e)


def run_ph_core(hands: Sequence[Hand]) -> None:
    evaluate = _pheval.evaluate_5cards
    for a, b, c, d, e in hands:
        evaluate(a, b, c, d, e)


def run_best_category(hands: Sequence[list[Card]]) -> None:
    best, table = best_category, TABLES["reserve"]
    for hand in hands:
        best(hand, table)


def run_classify(hands: Sequence[list[Card]]) -> None:
    plain = classify
    for hand in hands:
        plain(hand)


def interleaved(
    runs: dict[str, Callable[[], object]], count: int, rounds: int
) -> dict[str, list[float]]:
    """ns per hand of each run (each over ``count`` hands), the order rotated every round."""
    names = list(runs)
    per_hand: dict[str, list[float]] = {name: [] for name in names}
    with bar(rounds * len(names), "timed runs", unit="run") as done:  # on a terminal only
        for r in range(rounds):
            order = names[r % len(names) :] + names[: r % len(names)]
            for name in order:
                per_hand[name].append(time_ns(runs[name]) / count)
                done.advance()
    return per_hand


def report(per_hand: dict[str, list[float]], labels: dict[str, str]) -> None:
    print(f"  {'evaluator':<44} {'best ns':>9} {'median ns':>10} {'worst ns':>9}")
    for name, values in per_hand.items():
        print(
            f"  {labels[name]:<44} {min(values):>9.0f} {median(values):>10.0f} {max(values):>9.0f}"
        )


# --- main --------------------------------------------------------------------------------


def exhaustive(evaluator: Evaluator) -> int:
    """Compare cardproof's category with treys' class on every 5-card hand; mismatches."""
    treys_of = [treys_card(i) for i in range(52)]
    evaluate = evaluator.evaluate
    category_of_rank = [Category.HIGH_CARD] + [treys_category(evaluator, r) for r in range(1, 7463)]
    hands = 0
    mismatches = 0
    start = time.perf_counter()
    with bar(math.comb(52, 5), "hands", unit="hand") as done:  # on a terminal only
        for hand in itertools.combinations(range(52), 5):
            hands += 1
            if not hands % 100_000:
                done.advance(100_000)
            ours = classify_indices(hand)
            theirs = category_of_rank[evaluate([treys_of[i] for i in hand], [])]
            if ours != theirs:
                mismatches += 1
                if mismatches <= 10:
                    cards = " ".join(ALL_CARDS[i].text for i in hand)
                    print(f"  MISMATCH {cards}: cardproof {Category(ours).id}, treys {theirs.id}")
    seconds = time.perf_counter() - start
    print(f"  hands checked:    {hands:,}")
    print(f"  mismatches:       {mismatches}")
    print(f"  time:             {seconds:.1f} s (cardproof + treys + the loop)")
    return mismatches


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--exhaustive", action="store_true", help="check all 2,598,960 hands")
    parser.add_argument("--rounds", type=int, default=7, help="interleaved rounds (default 7)")
    args = parser.parse_args()

    print_machine("bench/hands.py: five-card hand classification")
    check_encodings()

    rng = random.Random(SEED)
    hands: list[Hand] = [tuple(rng.sample(range(52), 5)) for _ in range(HANDS)]  # type: ignore[misc]
    treys_hands = [[treys_card(i) for i in hand] for hand in hands]
    ph_hands: list[Hand] = [tuple(ph_card(i) for i in hand) for hand in hands]  # type: ignore[misc]

    # Sanity (untimed): all three agree on every hand; this also warms every evaluator.
    evaluator = TREYS
    disagreements = 0
    for hand, t_hand, p_hand in zip(hands, treys_hands, ph_hands, strict=True):
        t_rank = evaluator.evaluate(t_hand, [])
        if evaluate_cards(*p_hand) != t_rank or classify_indices(hand) != treys_category(
            evaluator, t_rank
        ):
            disagreements += 1
    print(f"{HANDS:,} random hands (random.Random({SEED})), each converted to native input up")
    print(f"front; evaluators disagreeing on category/rank: {disagreements}")
    print()

    labels = {
        "empty": "loop only (for hand in hands: pass)",
        "cardproof": "cardproof classify_indices(hand)",
        "treys": "treys Evaluator().evaluate(hand, [])",
        "phevaluator": "phevaluator evaluate_cards(a, b, c, d, e)",
        "ph_core": "phevaluator _pheval.evaluate_5cards (C core)",
    }
    per_hand = interleaved(
        {
            "empty": lambda: run_empty(hands),
            "cardproof": lambda: run_cardproof(hands),
            "treys": lambda: run_treys(treys_hands),
            "phevaluator": lambda: run_phevaluator(ph_hands),
            "ph_core": lambda: run_ph_core(ph_hands),
        },
        HANDS,
        args.rounds,
    )
    print(f"ns per hand, {args.rounds} interleaved rounds over {HANDS:,} hands each:")
    report(per_hand, labels)
    print("  (the C core is a private API, shown for reference only)")
    print()

    best = {name: min(values) for name, values in per_hand.items()}
    mid = {name: median(values) for name, values in per_hand.items()}
    ratios: dict[str, tuple[float, float, float]] = {}
    for peer in ("treys", "phevaluator", "ph_core"):
        paired = median([p / c for p, c in zip(per_hand[peer], per_hand["cardproof"], strict=True)])
        ratios[peer] = (best[peer] / best["cardproof"], mid[peer] / mid["cardproof"], paired)
        name = "phevaluator C core" if peer == "ph_core" else peer
        print(
            f"ratio {name}/cardproof: {ratios[peer][0]:.2f} (best)  {ratios[peer][1]:.2f} "
            f"(median)  {ratios[peer][2]:.2f} (median of per-round ratios)"
        )
    print()

    # Joker-wild evaluation.
    joker_hands: list[list[Card]] = []
    plain_hands: list[list[Card]] = []
    for _ in range(JOKER_HANDS):
        five = rng.sample(STANDARD_DECK, 5)
        plain_hands.append(five)
        with_joker = [*five[:4], JOKER]
        rng.shuffle(with_joker)
        joker_hands.append(with_joker)
    run_best_category(joker_hands)  # warm
    joker = interleaved(
        {
            "joker": lambda: run_best_category(joker_hands),
            "no_joker": lambda: run_best_category(plain_hands),
            "classify": lambda: run_classify(plain_hands),
        },
        JOKER_HANDS,
        3 * args.rounds,
    )
    print(
        f"joker-wild, {3 * args.rounds} interleaved rounds over {JOKER_HANDS:,} hands "
        "of Card objects, ns per hand:"
    )
    report(
        joker,
        {
            "joker": 'best_category(hand, TABLES["reserve"]), joker',
            "no_joker": "best_category(hand, reserve), no joker",
            "classify": "classify(hand), no joker (plain classifier)",
        },
    )
    joker_median = median(joker["joker"])
    print(
        f"  joker median {joker_median:.0f} ns vs plain classify median "
        f"{median(joker['classify']):.0f} ns "
        f"(x{joker_median / median(joker['classify']):.1f}; "
        f"classify_indices median {mid['cardproof']:.0f} ns)"
    )
    print()

    mismatches = None
    if args.exhaustive:
        print("exhaustive check against treys' hand class (all 2,598,960 hands):")
        mismatches = exhaustive(evaluator)
        print()

    treys_best, treys_median, treys_paired = ratios["treys"]
    print(f"load average at the end: {load_average()} (2 logical CPUs; other work skews figures)")
    print(
        verdict(
            f"treys/cardproof >= {TARGET_TREYS_RATIO}",
            treys_paired >= TARGET_TREYS_RATIO,
            f"{treys_paired:.2f} (median of per-round ratios; best {treys_best:.2f}, "
            f"median {treys_median:.2f})",
        )
    )
    print(
        verdict(
            f"joker best_category median <= {TARGET_JOKER_NS} ns",
            joker_median <= TARGET_JOKER_NS,
            f"{joker_median:.0f} ns",
        )
    )
    if mismatches is not None:
        print(verdict("exhaustive mismatches == 0", mismatches == 0, f"{mismatches}"))


if __name__ == "__main__":
    main()

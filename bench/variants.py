"""Verify and score repeat-poker and reserve-poker games in-process.

One iteration is what a verifier does with a finished game: parse the text log, replay
it on the deal with the options given as a mapping, and score it::

    cls.replay(cards, options, cls.parse_log(text)).score()

Deals come from the engine's own shuffle on fixed seeds (server seeds from
``random.Random(2026)``, client seeds ``bench-<i>``, ``cls.deal_cards``); each log is
built beforehand by a random legal policy (``random.Random``) playing move by move, and
its ``play``-built total is the check the timed replay must reproduce.

1. repeat-poker, ``{"levels": 5}`` (the ladder: 260 moves) and ``{"levels": 1}`` (52
   moves), on 200 deals;
2. reserve-poker, ``{"version": v}`` for every v in 1..6 (25 moves), on 300 deals, beside
   poker-squares (``None`` options, 25 moves, as in ``bench/score.py``) on deals from the
   same seeds as a named reference. The reserve logs are version-independent (the
   versions differ only in what the player sees), so each deal's log is replayed under
   all six versions.

Each group is timed in interleaved rounds: per round, per step, one call of every
workload of the group, in an order rotated each step and round, so machine noise hits
all of them alike. At one step the workloads are on deals far apart (workload k on deal
``step + k * deals / workloads``), so a reserve deal is never replayed right after the
same deal under another version, already warm in the caches. A figure is the median over
all deal x round samples of one call each; the median of each deal's best round is
printed beside it. Then per-stage medians (parse, new, replay, score), each sample a
short loop of calls on one deal (warm, so their sum is below the end-to-end figure).

Run: ``.venv/bin/python bench/variants.py [--rounds N] [--repeat-deals N] [--reserve-deals N]``
"""

from __future__ import annotations

import argparse
import gc
import random
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from _common import load_average, median, percentile, print_machine, verdict
from cardproof.cards import Card
from cardproof.games import Game, PokerSquares, RepeatPoker, ReservePoker
from cardproof.progress import iterate

SEED = 2026
TARGET_LADDER_US = 1000.0
TARGET_RESERVE_US = 60.0
VERSIONS = (1, 2, 3, 4, 5, 6)
STAGE_SAMPLE_US = 50.0
"""A stage sample loops over calls for at least about this long (timer overhead ~0.1 us)."""

GameType = type[Game[Any, Any]]
Options = Mapping[str, Any] | None


@dataclass(frozen=True)
class Deal:
    """One deal of a workload: the cards, the log in text form and its ``play``-built total."""

    cards: tuple[Card, ...]
    text: str
    moves: int
    total: int


@dataclass(frozen=True)
class Workload:
    """A variant with its options, and the deals (with their logs) to verify."""

    name: str
    cls: GameType
    options: Options
    deals: list[Deal]

    def verify(self, number: int) -> int:
        """What is timed: parse the log, replay it, score it; returns the total."""
        deal, cls = self.deals[number], self.cls
        return cls.replay(deal.cards, self.options, cls.parse_log(deal.text)).score().total


@dataclass
class Timings:
    """Microseconds per call: ``samples[deal][round]``."""

    samples: list[list[float]]

    @property
    def flat(self) -> list[float]:
        return [us for per_deal in self.samples for us in per_deal]

    @property
    def median(self) -> float:
        return median(self.flat)

    @property
    def best_median(self) -> float:
        """The median over deals of each deal's best round."""
        return median([min(per_deal) for per_deal in self.samples])


# --- deals and logs -------------------------------------------------------------------


def seeds(count: int) -> list[tuple[bytes, str]]:
    """``count`` fixed (server seed, client seed) pairs."""
    rng = random.Random(SEED)
    return [(rng.randbytes(32), f"bench-{i}") for i in range(count)]


def random_game(cls: GameType, cards: Sequence[Card], options: Options, rng: random.Random) -> Deal:
    """Play a whole game move by move with a random legal policy."""
    game = cls.new(cards, options)
    while not game.is_over():
        game.play(rng.choice(game.legal_moves()))
    return Deal(tuple(cards), game.log_text(), len(game.moves), game.score().total)


def build(
    name: str,
    cls: GameType,
    options: Options,
    pairs: Sequence[tuple[bytes, str]],
    policy_seed: int,
    logs: Sequence[Deal] | None = None,
) -> Workload:
    """A workload on the deals of ``pairs``: random logs, or the moves of ``logs`` replayed."""
    rng = random.Random(policy_seed)
    parsed = cls.parse_options(options)
    deals = []
    for number, (server_seed, client_seed) in enumerate(pairs):
        cards = cls.deal_cards(server_seed, client_seed, parsed)
        if logs is None:
            deals.append(random_game(cls, cards, options, rng))
        else:  # the same log under other options: its total comes from play() again
            game = cls.new(cards, options)
            for move in cls.parse_log(logs[number].text):
                game.play(move)
            deals.append(Deal(tuple(cards), logs[number].text, len(game.moves), game.score().total))
    return Workload(name, cls, options, deals)


# --- timing ------------------------------------------------------------------------------


def interleaved(workloads: Sequence[Workload], rounds: int) -> dict[str, Timings]:
    """Time one verification per deal, workload and round, interleaved and rotated."""
    deals, count = len(workloads[0].deals), len(workloads)
    timings = {w.name: Timings([[] for _ in range(deals)]) for w in workloads}
    offsets = {w.name: k * deals // count for k, w in enumerate(workloads)}
    clock = time.perf_counter_ns
    for r in iterate(range(rounds), "timing rounds", unit="round"):  # a bar on a terminal
        gc.collect()
        for step in range(deals):
            shift = (r + step) % count
            for w in [*workloads[shift:], *workloads[:shift]]:
                number = (step + offsets[w.name]) % deals
                verify = w.verify
                start = clock()
                verify(number)
                elapsed = clock() - start
                timings[w.name].samples[number].append(elapsed / 1e3)
    return timings


def per_call_us(run: Callable[[], object], calls: int) -> float:
    """Microseconds per call of ``run``, over ``calls`` calls in a row."""
    start = time.perf_counter_ns()
    for _ in range(calls):
        run()
    return (time.perf_counter_ns() - start) / calls / 1e3


def stages_of(w: Workload, number: int) -> dict[str, Callable[[], object]]:
    """The verification's stages on one deal: each callable on its own."""
    deal, cls, options = w.deals[number], w.cls, w.options
    moves = cls.parse_log(deal.text)
    finished = cls.replay(deal.cards, options, moves)
    return {
        "parse": lambda: cls.parse_log(deal.text),
        "new": lambda: cls.new(deal.cards, options),
        "replay": lambda: cls.replay(deal.cards, options, moves),
        "score": finished.score,
    }


STAGES = ("parse", "new", "replay", "score")


def stage_medians(workloads: Sequence[Workload], deals: int) -> dict[str, dict[str, float]]:
    """Per workload and stage, the median over ``deals`` deals of us per call."""
    figures: dict[str, dict[str, list[float]]] = {
        w.name: {stage: [] for stage in STAGES} for w in workloads
    }
    loops: dict[tuple[str, str], int] = {}
    for w in workloads:  # calibrate: enough calls that a sample lasts STAGE_SAMPLE_US
        for stage, run in stages_of(w, 0).items():
            once = min(per_call_us(run, 1) for _ in range(3))
            loops[w.name, stage] = max(1, round(STAGE_SAMPLE_US / max(once, 0.05)))
    count = len(workloads)
    gc.collect()
    for step in range(deals):
        shift = step % count
        for k, w in enumerate([*workloads[shift:], *workloads[:shift]]):
            number = (step + (k + shift) % count * deals // count) % deals
            for stage, run in stages_of(w, number).items():
                figures[w.name][stage].append(per_call_us(run, loops[w.name, stage]))
    return {name: {s: median(v) for s, v in by_stage.items()} for name, by_stage in figures.items()}


# --- report --------------------------------------------------------------------------------


def check(workloads: Sequence[Workload]) -> int:
    """Verify every deal once (also a warm-up); count totals that differ from play()."""
    problems = 0
    for w in workloads:
        for number, deal in enumerate(w.deals):
            total = w.verify(number)
            if total != deal.total:
                problems += 1
                print(f"  !!! {w.name} deal {number}: replay gives {total}, play gave {deal.total}")
    return problems


def describe(w: Workload) -> str:
    """One line about a workload's deals."""
    totals = [d.total for d in w.deals]
    moves = {d.moves for d in w.deals}
    return (
        f"  {w.name:<22} {len(w.deals)} deals, {'/'.join(map(str, sorted(moves)))} moves, "
        f"options {w.options!r}; totals median {median(totals):.0f}, "
        f"min {min(totals)}, max {max(totals)}"
    )


def print_figures(
    workloads: Sequence[Workload], timings: Mapping[str, Timings], rounds: int, unit: str
) -> None:
    """One line per workload: median, best-round median, p90, min, max, per move."""
    scale = 1e3 if unit == "ms" else 1.0
    deals = len(workloads[0].deals)
    print(
        f"parse_log + replay + score, {deals} deals x {rounds} rounds, one call a sample "
        f"({unit} per game):"
    )
    print(
        f"  {'workload':<22} {'median':>8} {'best-rnd':>9} {'p90':>8} {'min':>8} {'max':>8}"
        f" {'us/move':>8}"
    )
    for w in workloads:
        t = timings[w.name]
        flat = t.flat
        moves = median([d.moves for d in w.deals])
        print(
            f"  {w.name:<22} {t.median / scale:>8.3f} {t.best_median / scale:>9.3f} "
            f"{percentile(flat, 0.9) / scale:>8.3f} {min(flat) / scale:>8.3f} "
            f"{max(flat) / scale:>8.3f} {t.median / moves:>8.2f}"
        )
    print()


def print_stages(
    workloads: Sequence[Workload], stages: Mapping[str, Mapping[str, float]], deals: int
) -> None:
    """Stage medians, us per call; ``replay`` includes ``new``."""
    print(
        f"stages (median over {deals} deals of us per call; each sample a warm loop of calls "
        f">= ~{STAGE_SAMPLE_US:.0f} us; replay includes new; informational):"
    )
    print(
        f"  {'workload':<22} {'parse':>8} {'new':>8} {'replay':>8} {'score':>8} "
        f"{'replay-new':>11} {'sum p+r+s':>10}"
    )
    for w in workloads:
        s = stages[w.name]
        print(
            f"  {w.name:<22} {s['parse']:>8.2f} {s['new']:>8.2f} {s['replay']:>8.2f} "
            f"{s['score']:>8.2f} {s['replay'] - s['new']:>11.2f} "
            f"{s['parse'] + s['replay'] + s['score']:>10.2f}"
        )
    print()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20, help="timing rounds (default 20)")
    parser.add_argument("--repeat-deals", type=int, default=200, help="repeat deals (200)")
    parser.add_argument("--reserve-deals", type=int, default=300, help="reserve deals (300)")
    parser.add_argument("--stage-deals", type=int, default=50, help="stage deals (default 50)")
    args = parser.parse_args()
    started = time.perf_counter()

    print_machine("bench/variants.py: verify and score repeat-poker and reserve-poker games")

    repeat_pairs = seeds(args.repeat_deals)
    ladder = build("repeat levels=5", RepeatPoker, {"levels": 5}, repeat_pairs, SEED + 1)
    single = build("repeat levels=1", RepeatPoker, {"levels": 1}, repeat_pairs, SEED + 2)
    repeat_group = [ladder, single]

    reserve_pairs = seeds(args.reserve_deals)
    first = build("reserve version=1", ReservePoker, {"version": 1}, reserve_pairs, SEED + 3)
    reserve = [first] + [
        build(f"reserve version={v}", ReservePoker, {"version": v}, reserve_pairs, 0, first.deals)
        for v in VERSIONS[1:]
    ]
    squares = build("poker-squares (ref)", PokerSquares, None, reserve_pairs, SEED + 4)
    reserve_group = [*reserve, squares]

    print("deals (server seeds from random.Random(2026), random legal logs built beforehand):")
    for w in [*repeat_group, *reserve_group]:
        print(describe(w))
    problems = check([*repeat_group, *reserve_group])
    print(f"every log replayed once (warm-up): totals differing from play(): {problems}")
    print(f"setup took {time.perf_counter() - started:.1f} s")
    print()

    print("-- 1. repeat-poker")
    repeat_timings = interleaved(repeat_group, args.rounds)
    print_figures(repeat_group, repeat_timings, args.rounds, "ms")
    stage_deals = min(args.stage_deals, args.repeat_deals)
    print_stages(repeat_group, stage_medians(repeat_group, stage_deals), stage_deals)
    ladder_median = repeat_timings[ladder.name].median
    single_median = repeat_timings[single.name].median
    print(
        f"ratio levels=5 / levels=1: {ladder_median / single_median:.2f} "
        f"(moves {ladder.deals[0].moves} / {single.deals[0].moves} = "
        f"{ladder.deals[0].moves / single.deals[0].moves:.0f})"
    )
    print()

    print("-- 2. reserve-poker, poker-squares as the reference")
    reserve_timings = interleaved(reserve_group, args.rounds)
    print_figures(reserve_group, reserve_timings, args.rounds, "us")
    stage_deals = min(args.stage_deals, args.reserve_deals)
    reserve_stages = stage_medians(reserve_group, stage_deals)
    print_stages(reserve_group, reserve_stages, stage_deals)
    squares_median = reserve_timings[squares.name].median
    pooled = median([us for w in reserve for us in reserve_timings[w.name].flat])
    version_medians = {w.name: reserve_timings[w.name].median for w in reserve}
    worst_name = max(version_medians, key=lambda name: version_medians[name])
    print(f"ratio reserve / poker-squares (median us per game, same rounds, {squares_median:.1f}):")
    for w in reserve:
        print(f"  {w.name:<22} {version_medians[w.name] / squares_median:>6.2f}")
    print(f"  {'all six versions':<22} {pooled / squares_median:>6.2f}  (pooled: {pooled:.1f} us)")
    ps_score = reserve_stages[squares.name]["score"]
    rv_score = median([reserve_stages[w.name]["score"] for w in reserve])
    print(
        f"  score() alone: reserve {rv_score:.1f} us (12 hands, wild joker) / poker-squares "
        f"{ps_score:.1f} us (10 hands) = {rv_score / ps_score:.2f}"
    )
    print()

    print(f"total run time: {time.perf_counter() - started:.1f} s")
    print(f"load average at the end: {load_average()} (2 logical CPUs; other work skews figures)")
    print(
        verdict(
            f"repeat-poker levels=5 median <= {TARGET_LADDER_US / 1e3:.0f} ms/game",
            ladder_median <= TARGET_LADDER_US,
            f"{ladder_median / 1e3:.3f} ms (levels=1: {single_median / 1e3:.3f} ms)",
        )
    )
    print(
        verdict(
            f"reserve-poker median <= {TARGET_RESERVE_US:.0f} us/game, every version",
            max(version_medians.values()) <= TARGET_RESERVE_US,
            f"worst {worst_name} {version_medians[worst_name]:.1f} us, pooled {pooled:.1f} us "
            f"(poker-squares {squares_median:.1f} us)",
        )
    )
    print(verdict("replayed totals match play()", problems == 0, f"{problems} problems"))


if __name__ == "__main__":
    main()

"""``cardproof play``: scripted games of each grid variant, in-process and as a console script."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from litestar import Litestar
from litestar.testing import TestClient

from cardproof import Client
from cardproof.cli import build_parser
from cardproof.hands import TABLES
from cardproof.play import playable_cells, run, running_score, scored_lines
from cardproof.receipts import verify_receipt

SQUARES = [f"{col}{row}" for row in "12345" for col in "abcde"]
SNAKE = [f"{col}{row}" for row in "12345" for col in ("abcde" if row in "135" else "edcba")]
"""A boustrophedon: a Hamiltonian path, so a serpent game along it always completes."""
PATIENCE = [f"{row},{col}" for row in range(5) for col in range(5)]


@pytest.fixture
def sdk_client(client: TestClient[Litestar]) -> Iterator[Client]:
    with Client(base_url=str(client.base_url), http_client=client) as sdk:
        yield sdk


def play(
    sdk_client: Client,
    variant_id: str,
    lines: list[str],
    *,
    server_url: str | None = None,
    receipt_out: Path | None = None,
) -> tuple[int, str]:
    """Run one game on scripted input lines; the exit status and the transcript."""
    output = io.StringIO()
    code = run(
        sdk_client,
        variant_id,
        input=io.StringIO("".join(f"{line}\n" for line in lines)),
        output=output,
        client_seed="test-play",
        server_url=server_url,
        receipt_out=receipt_out,
    )
    return code, output.getvalue()


def receipt_of(output: str) -> str:
    tokens = [line.removeprefix("Receipt: ") for line in output.splitlines()]
    found = [t for t, line in zip(tokens, output.splitlines(), strict=True) if t != line]
    assert len(found) == 1, output
    return found[0]


@pytest.mark.parametrize(
    ("variant_id", "moves", "taken", "table"),
    [
        ("poker-squares", SQUARES, "a1", "american"),
        ("serpent-patience", SNAKE, "a1", "british"),
        ("poker-patience", PATIENCE, "0,0", "british"),
    ],
)
def test_a_scripted_game_runs_to_a_verified_receipt(
    sdk_client: Client,
    client: TestClient[Litestar],
    tmp_path: Path,
    variant_id: str,
    moves: list[str],
    taken: str,
    table: str,
) -> None:
    out_file = tmp_path / "receipt.jws"
    script = [moves[0], taken, "zz", "?", "", *moves[1:]]
    code, output = play(
        sdk_client, variant_id, script, server_url="http://testserver.local", receipt_out=out_file
    )
    assert code == 0, output
    assert f"table {table}" in output
    if variant_id == "poker-patience":
        assert "       0    1" in output  # column offsets over the layout
        assert "(the first card: 0,0)" in output
    else:
        assert "       a    b    c    d    e" in output
        assert "  5    .    .    .    .    ." in output
    assert f"illegal move ({taken}): cell {taken} already holds" in output
    assert "'zz' is not a move in text form; type ? for help" in output
    assert "q quits" in output  # the help
    token = receipt_of(output)
    assert out_file.read_text().strip() == token
    assert f"Check it: cardproof verify {out_file} --url http://testserver.local" in output
    verified = verify_receipt(token, client.get("/.well-known/jwks.json").json())
    assert verified.replayed
    payload = verified.payload
    assert payload.variant == variant_id
    assert payload.client_seed == "test-play"
    assert payload.moves == " ".join(moves)
    assert f"Final score: {payload.score.total} (table {table})" in output
    rows = payload.score.hands[:5]  # the local running score agrees with the server's
    placed = {(r, c): card for r, hand in enumerate(rows) for c, card in enumerate(hand.cards)}
    assert running_score(variant_id, placed, TABLES[table]).total == payload.score.total
    for hand in payload.score.hands:
        assert f"  {hand.line:<11} {' '.join(hand.cards):<15} {hand.category:<16}" in output


def test_the_running_score_counts_complete_lines(sdk_client: Client) -> None:
    code, output = play(sdk_client, "poker-squares", SQUARES, server_url="http://x")
    assert code == 0
    boards = output.split("poker-squares: card ")
    assert "Score so far: 0 from 0 complete lines" in boards[1]
    assert "from 1 complete line" in boards[6]  # row 1 is full after 5 cards
    assert "from 8 complete lines" in boards[25]  # all but row 5 and col e


def test_serpent_shows_the_cards_to_come_and_where_the_next_may_go(sdk_client: Client) -> None:
    code, output = play(sdk_client, "serpent-patience", ["c3", "a1", "q"])
    assert code == 1
    assert "Then (24): " in output
    assert "illegal move (a1): a1 is not next to c3" in output
    assert "Next to c3: a cell marked +" in output
    assert "  3    .    +  [" in output  # c3, with b3 and d3 playable


def test_a_serpent_dead_end_ends_unscored(sdk_client: Client) -> None:
    corner = ["b1", "b2", "a2", "a1"]  # a1's neighbours, a2 and b1, are both taken
    code, output = play(sdk_client, "serpent-patience", corner)
    assert code == 1, output
    assert "Dead end at a1" in output
    assert "is not scored, and has no receipt" in output
    assert "Receipt:" not in output


def test_q_quits_with_status_1_and_no_receipt(sdk_client: Client) -> None:
    code, output = play(sdk_client, "poker-squares", ["a1", "q"])
    assert code == 1
    assert "Quit: deal d_" in output
    assert "left unfinished after 1 card" in output
    assert "Receipt:" not in output


def test_the_end_of_the_input_quits_too(sdk_client: Client) -> None:
    code, output = play(sdk_client, "poker-patience", ["0,0"])
    assert code == 1
    assert "left unfinished after 1 card" in output


def test_an_unknown_variant_is_status_2(sdk_client: Client) -> None:
    code, output = play(sdk_client, "repeat-poker", [])
    assert code == 2
    assert "poker-squares, poker-patience, serpent-patience" in output


def test_the_patience_grid_shows_offsets_and_playable_cells(sdk_client: Client) -> None:
    code, output = play(sdk_client, "poker-patience", ["0,0", "-1,-1", "q"])
    assert code == 1
    board = output.split("poker-patience: card 3 of 25")[1].splitlines()
    assert board[1] == "      -2   -1    0    1"
    assert board[2] == " -2    +    +    +    ."
    assert board[3].startswith(" -1    +  [")  # the card just placed, in brackets
    assert board[4].split()[0::2] == ["0", "+", "+"]  # the first card at 0,0, between two +


def test_patience_lines_are_known_once_the_layout_spans_five() -> None:
    placed = {(0, c): card for c, card in enumerate(["AH", "KH", "QH", "JH", "TH"])}
    assert [name for name, _ in scored_lines("poker-patience", placed)] == ["row 0"]
    score = running_score("poker-patience", placed, TABLES["british"])
    assert score.hands[0].category == "royal-flush"


def test_playable_cells_follow_the_rules() -> None:
    assert playable_cells("poker-patience", {}, None) == {(0, 0)}
    wide = {(0, c): "AH" for c in range(5)}
    assert all(0 <= c <= 4 for _, c in playable_cells("poker-patience", wide, (0, 4)))
    assert len(playable_cells("poker-squares", {(2, 2): "AH"}, (2, 2))) == 24
    assert playable_cells("serpent-patience", {(0, 0): "AH"}, (0, 0)) == {(0, 1), (1, 0)}


def test_the_play_command_parses() -> None:
    args = build_parser().parse_args(["play", "serpent-patience", "--seed", "s"])
    assert (args.variant, args.url, args.seed, args.receipt_out) == (
        "serpent-patience",
        None,
        "s",
        None,
    )


def test_cardproof_play_runs_an_embedded_server(tmp_path: Path) -> None:
    command = str(Path(sys.executable).parent / "cardproof")
    started = time.monotonic()
    result = subprocess.run(
        [command, "play", "poker-squares"],
        input="\n".join(SQUARES) + "\n",
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    assert time.monotonic() - started < 15
    output = result.stdout
    token = receipt_of(output)
    assert "signed by a throwaway key" in output
    assert "cardproof verify FILE --jwks KEYS.json" in output
    key_set = next(line for line in output.splitlines() if line.startswith("Key set: "))
    jwks = json.loads(key_set.removeprefix("Key set: "))
    assert verify_receipt(token, jwks).replayed
    assert list(tmp_path.iterdir()) == []  # no key file was written
    assert "HTTP Request" not in result.stderr

"""``cardproof play``: scripted games of each variant, in-process and as a console script."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal, TextIO, cast

import pytest
from litestar import Litestar
from litestar.testing import TestClient

from cardproof import Client
from cardproof.cli import build_parser
from cardproof.games.repeat_poker import RepeatPoker
from cardproof.games.reserve_poker import ReservePoker, ReserveView
from cardproof.hands import TABLES
from cardproof.play import playable_cells, run, running_score, scored_lines
from cardproof.receipts import EMBEDDED_ISSUER, ReceiptPayload, verify_receipt
from cardproof.words import card_label

SQUARES = [f"{col}{row}" for row in "12345" for col in "abcde"]
SNAKE = [f"{col}{row}" for row in "12345" for col in ("abcde" if row in "135" else "edcba")]
"""A boustrophedon: a Hamiltonian path, so a serpent game along it always completes."""
PATIENCE = [f"{row},{col}" for row in range(5) for col in range(5)]


def labels(cards: Any) -> str:
    """Cards as the terminal shows them, as the pages do: ``10♣ A♠``, a space apart."""
    return " ".join(card_label(card) for card in cards)


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
    options: dict[str, Any] | None = None,
) -> tuple[int, str]:
    """Run one game on scripted input lines; the exit status and the transcript."""
    output = io.StringIO()
    code = run(
        sdk_client,
        variant_id,
        input=io.StringIO("".join(f"{line}\n" for line in lines)),
        output=output,
        client_seed="test-play",
        options=options,
        server_url=server_url,
        receipt_out=receipt_out,
    )
    return code, output.getvalue()


@pytest.fixture(autouse=True)
def _in_a_fresh_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``cardproof play`` writes its receipt in the current directory: a test's own."""
    monkeypatch.chdir(tmp_path)


def receipt_file(output: str, cwd: Path | None = None) -> Path:
    """The file the transcript says the receipt was written to."""
    found = re.findall(r"(?m)^Receipt: written to (\S+)$", output)
    assert len(found) == 1, output
    assert "eyJ" not in output  # the path is shown, not a blob of base64
    return (cwd or Path.cwd()) / str(found[0])


def receipt_of(output: str, cwd: Path | None = None) -> str:
    """The receipt the transcript's file holds."""
    return receipt_file(output, cwd).read_text().strip()


def key_set_of(output: str, cwd: Path) -> Any:
    """The key set an embedded server's game wrote beside its receipt."""
    found = re.findall(r"cardproof verify (\S+) --jwks (\S+)", output)
    assert len(found) == 1, output
    return json.loads((cwd / found[0][1]).read_text())


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
        assert "       0     1" in output  # column offsets over the layout
        assert "(the first card: 0,0)" in output
    else:
        assert "       a     b     c     d     e" in output
        assert "  5    .     .     .     .     ." in output
    assert f"illegal move ({taken}): cell {taken} is taken" in output
    if variant_id == "serpent-patience":  # the deal's exact best, beside the game's score
        par = re.search(r"Par for this deal: (\d+) points?, the best possible \(you: (\d+)", output)
        assert par is not None, output
        assert int(par[1]) >= int(par[2])
    assert "'zz' is not a move in text form; type ? for help" in output
    assert "q quits" in output  # the help
    token = receipt_of(output)
    assert out_file.read_text().strip() == token
    assert f"\n  cardproof verify {out_file} --url http://testserver.local\n" in output
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
        assert f"  {hand.line:<11} {labels(hand.cards):<19} {hand.category:<16}" in output


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
    assert "  3    .     +   [" in output  # c3, with b3 and d3 playable


def test_a_serpent_dead_end_ends_unscored(sdk_client: Client) -> None:
    corner = ["b1", "b2", "a2", "a1"]  # a1's neighbours, a2 and b1, are both taken
    code, output = play(sdk_client, "serpent-patience", [*corner, "n", "a1", "y"])
    assert code == 1, output
    warning = "a1 leaves no way on: the path would stop there with 21 cards unplaced"
    assert output.count(warning) == 2  # asked, declined (nothing sent), asked again
    assert output.count("Place ") == 5  # b1 b2 a2, then a1 twice: the first a1 was not sent
    assert "Dead end at a1" in output
    assert re.search(r"Par for this deal: \d+ points, the best possible \(you: unscored\)", output)
    assert "is not scored, and has no receipt" in output
    assert "Receipt:" not in output


def test_q_quits_with_status_1_and_no_receipt(sdk_client: Client) -> None:
    code, output = play(sdk_client, "poker-squares", ["a1", "q", "n", "b1", "q", "yes"])
    assert code == 1
    assert output.count("Quitting forfeits deal d_") == 2  # asked each time, declined once
    assert output.count("Quit? [y/N] ") == 2
    assert "Quit: deal d_" in output
    assert "left unfinished after 2 cards" in output
    assert "Receipt:" not in output


def test_the_end_of_the_input_quits_too(sdk_client: Client) -> None:
    code, output = play(sdk_client, "poker-patience", ["0,0"])
    assert code == 1
    assert "left unfinished after 1 card" in output


def test_an_unknown_variant_is_status_2(sdk_client: Client) -> None:
    code, output = play(sdk_client, "klondike", [])
    assert code == 2
    assert "poker-squares, poker-patience, serpent-patience, repeat-poker, reserve-poker" in output
    assert 'not "klondike"' in output  # the name as JSON writes it, not as Python does


def test_options_the_server_refuses_are_status_2(sdk_client: Client) -> None:
    code, output = play(sdk_client, "repeat-poker", [], options={"rows": 2, "levels": 5})
    assert code == 2
    assert "cannot open a deal" in output
    assert "with levels 5 the rows are the ladder" in output


def test_the_patience_grid_shows_offsets_and_playable_cells(sdk_client: Client) -> None:
    code, output = play(sdk_client, "poker-patience", ["0,0", "-1,-1", "q"])
    assert code == 1
    board = output.split("poker-patience: card 3 of 25")[1].splitlines()
    assert board[1] == "      -2    -1     0     1"
    assert board[2] == " -2    +     +     +     ."
    assert board[3].startswith(" -1    +   [")  # the card just placed, in brackets
    assert board[4].split()[0::2] == ["0", "+", "+"]  # the first card at 0,0, between two +


def test_patience_lines_are_known_once_the_layout_spans_five() -> None:
    placed = {(0, c): card for c, card in enumerate(["AH", "KH", "QH", "JH", "TH"])}
    # a complete row, but which of rows 1..5 is not fixed yet: named by its first cell
    assert [name for name, _ in scored_lines("poker-patience", placed)] == ["row from 0,0"]
    score = running_score("poker-patience", placed, TABLES["british"])
    assert score.hands[0].category == "royal-flush"
    square = placed | {(r, 0): "2C" for r in range(-2, 3) if r != 0}  # now it spans 5 rows too
    assert [name for name, _ in scored_lines("poker-patience", square)][:3] == [
        "row 1",
        "row 2",
        "row 3",
    ]
    assert "col a" in [name for name, _ in scored_lines("poker-patience", square)]


def test_playable_cells_follow_the_rules() -> None:
    assert playable_cells("poker-patience", {}, None) == {(0, 0)}
    wide = {(0, c): "AH" for c in range(5)}
    assert all(0 <= c <= 4 for _, c in playable_cells("poker-patience", wide, (0, 4)))
    assert len(playable_cells("poker-squares", {(2, 2): "AH"}, (2, 2))) == 24
    assert playable_cells("serpent-patience", {(0, 0): "AH"}, (0, 0)) == {(0, 1), (1, 0)}


def test_the_play_command_parses() -> None:
    args = build_parser().parse_args(["play", "serpent-patience", "--seed", "s"])
    assert (args.variant, args.url, args.seed, args.receipt_out, args.options) == (
        "serpent-patience",
        None,
        "s",
        None,
        None,
    )
    args = build_parser().parse_args(["play", "repeat-poker", "--options", '{"levels": 5}'])
    assert args.options == {"levels": 5}


@pytest.mark.parametrize("options", ["{levels: 5}", "[1]", '"version"'])
def test_the_options_must_be_a_json_object(
    options: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        build_parser().parse_args(["play", "reserve-poker", "--options", options])
    assert exit_info.value.code == 2
    assert "--options" in capsys.readouterr().err


def test_cardproof_play_runs_an_embedded_server(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
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
    token = receipt_of(output, tmp_path)
    assert "signed by a throwaway key" in output
    jwks = key_set_of(output, tmp_path)
    assert verify_receipt(token, jwks).replayed
    deal_id = verify_receipt(token, jwks).payload.deal_id
    assert sorted(p.name for p in tmp_path.iterdir()) == [  # the receipt and its key set only
        f"receipt-{deal_id}.jws",
        f"receipt-{deal_id}.keys.json",
    ]
    assert "HTTP Request" not in result.stderr
    # the receipt names no server, for none was listening: not make run's address
    assert verify_receipt(token, jwks).payload.iss == EMBEDDED_ISSUER
    receipt, keys = re.findall(r"cardproof verify (\S+) --jwks (\S+)", output)[0]
    checked = subprocess.run(
        [command, "verify", receipt, "--jwks", keys],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert (
        "  issued by an embedded server (a throwaway key; no network service) at " in checked.stdout
    )
    assert "127.0.0.1" not in checked.stdout + checked.stderr
    from cardproof.cli import verify

    verify._hint_issuer(token, None)  # what verify says when it cannot fetch the default keys
    hint = capsys.readouterr().err
    assert "issued by an embedded server, which no network serves" in hint
    assert "--url" not in hint


# --- repeat-poker and reserve-poker ----------------------------------------------------

CARD_TEXT = re.compile(r"(?<![A-Za-z0-9])(?:(?:10|[2-9JQKA])[♣♦♥♠]|Joker)(?![A-Za-z0-9])")
"""A card as the terminal prints it, as the pages do (``10♣``, ``A♠``, ``Joker``)."""
RESERVE_MOVES = [f"{i % 4}>{i // 5}" for i in range(25)]
"""Grid columns filled left to right, taking from the reserve columns in turn (the API's
moves, counted from 0)."""
RESERVE_TYPED = [f"{i % 4 + 1} {'abcde'[i // 5]}" for i in range(25)]
"""The same moves as a person types them: reserve columns 1-4, grid columns a-e."""


def verified_payload(client: TestClient[Litestar], output: str) -> ReceiptPayload:
    """The payload of the transcript's receipt, checked against the server's key set."""
    verified = verify_receipt(receipt_of(output), client.get("/.well-known/jwks.json").json())
    assert verified.replayed
    return verified.payload


def test_a_scripted_repeat_game_runs_to_a_verified_receipt(
    sdk_client: Client, client: TestClient[Litestar]
) -> None:
    moves = ["r1", "r2"] * 26
    script = ["r3", "zz", "?", "", "1", *moves[1:]]  # a bare row number is taken as r1
    code, output = play(
        sdk_client, "repeat-poker", script, server_url="http://x", options={"rows": 2}
    )
    assert code == 0, output
    assert "illegal move (r3): row 3 is off the board: this level has 2 rows" in output
    assert "'zz' is not a move in text form; type ? for help" in output
    assert "a pair removes 2 cards" in " ".join(output.split())  # the help
    payload = verified_payload(client, output)
    assert payload.variant == "repeat-poker"
    assert payload.options == {"rows": 2, "levels": 1}
    assert payload.moves == " ".join(moves)
    hands = payload.score.hands
    assert f"Final score: {payload.score.total} (table repeat)" in output
    for hand in hands:
        cards, removed = labels(hand.cards), labels(hand.removed or ())
        assert f"  {hand.line:<8} {cards:<19} {hand.category:<16} {hand.points:>5}  " in output
        assert f"removed {removed}" in output
    assert payload.server_seed is not None
    options = RepeatPoker.parse_options(payload.options)
    seed = bytes.fromhex(payload.server_seed)
    replay = RepeatPoker.new(RepeatPoker.deal_cards(seed, payload.client_seed, options), options)
    game_over = output.index("repeat-poker: game over")
    screens = output[:game_over].split("\nrepeat-poker: level ")[1:]
    assert len(screens) == 52
    for k, screen in enumerate(screens):  # screen k: before card k + 1
        view = replay.visible()
        assert screen.startswith(f"1 of 1, card {k + 1} of 52 ({52 - k} left in this level")
        rows = [line.split()[1:] for line in re.findall(r"(?m)^  r[12] .*$", screen)]
        assert rows == [  # 5 slots
            [*map(card_label, row), *["."] * (5 - len(row))] for row in view.rows
        ]
        assert f"Place {card_label(view.next or '')} (r1-r2): " in screen
        replay.play(RepeatPoker.parse_move(moves[k]))
        found = re.search(r"Score so far: (\d+) points? from (\d+) hands? scored", screen)
        if found is None:  # before the first hand: said in words, not as "0 from 0 hands"
            assert "No hand scored yet" in screen, screen
            assert "from 0 hands" not in screen
            continue
        total, count = int(found[1]), int(found[2])
        assert ("1 hand scored" in screen) == (count == 1)  # one hand is "1 hand", not "1 hands"
        assert total == sum(hand.points for hand in hands[:count])  # the server's, so far
        if count:
            last = hands[count - 1]
            removed = ", removed " + labels(last.removed or ())
            shown = f"{last.line}: {labels(last.cards)}, {last.category} {last.points}"
            assert f"scored: {shown}{removed}" in screen
    assert "Just scored: row 1: " in output
    assert "Last scored: row 2: " in output


def test_the_repeat_ladder_plays_five_levels(
    sdk_client: Client, client: TestClient[Litestar]
) -> None:
    code, output = play(sdk_client, "repeat-poker", ["r1"] * 260, options={"levels": 5})
    assert code == 0, output
    payload = verified_payload(client, output)
    levels = payload.score.levels
    assert levels is not None
    assert len(levels) == 5
    assert "repeat-poker: level 5 of 5, card 52 of 52 (1 left" in output
    assert "  r1    .   .   .   .   .\n  r2" not in output.split("level 5 of 5")[1]  # 1 row
    assert f"Level 1 is over: {levels[0]} points. Level 2 has 4 rows and a fresh deck." in output
    assert f"Level 4 is over: {levels[3]} points. Level 5 has 1 row and a fresh deck." in output
    assert "  " + ", ".join(f"level {k} {p}" for k, p in enumerate(levels, 1)) in output
    last_screen = output.split("level 5 of 5, card 52 of 52")[1]
    assert ", ".join(f"level {k} {p}" for k, p in enumerate(levels[:4], 1)) in last_screen
    for hand in payload.score.hands:
        assert f"  L{hand.level} {hand.line} {labels(hand.cards)} " in output


def replayed_views(payload: ReceiptPayload) -> list[ReserveView]:
    """The reserve-poker views before each move, replayed from the revealed seed."""
    assert payload.server_seed is not None
    options = ReservePoker.parse_options(payload.options)
    cards = ReservePoker.deal_cards(
        bytes.fromhex(payload.server_seed), payload.client_seed, options
    )
    game = ReservePoker.new(cards, options)
    views = []
    for move in payload.moves.split():
        views.append(game.visible())
        game.play(ReservePoker.parse_move(move))
    views.append(game.visible())
    return views


def grid_texts(view: ReserveView) -> set[str]:
    """The grid's cards, as the terminal shows them."""
    return {card_label(card) for row in view.grid for card in row if card is not None}


@pytest.mark.parametrize("version", [1, 5, 6])
def test_a_scripted_reserve_game_shows_only_what_is_face_up(
    sdk_client: Client, client: TestClient[Litestar], version: int
) -> None:
    script = ["1a", "0>9", "0 a", "5 b", "2 f", "?", "", *RESERVE_TYPED[1:5], "2>a"]
    script += RESERVE_TYPED[5:]
    code, output = play(
        sdk_client, "reserve-poker", script, server_url="http://x", options={"version": version}
    )
    assert code == 0, output
    assert "name the grid column by its letter, a to e: like 2 d" in output  # 0>9: not sent
    assert output.count("reserve columns are 1 to 4 and grid columns a to e, like 2 d") == 3
    assert "illegal move (2>a): col a is full (5 cards)" in output  # as typed, as the board
    assert "Take from reserve 1-4 into grid column a-e (like 2 d): " in output
    assert "as in Connect Four" in " ".join(output.split())  # the help
    payload = verified_payload(client, output)
    assert payload.variant == "reserve-poker"
    assert payload.options == {"version": version}
    assert payload.moves == " ".join(RESERVE_MOVES)  # "1a" was sent as 0>0
    views = replayed_views(payload)
    game_over = output.index("reserve-poker: game over")
    screens = output[:game_over].split("\nreserve-poker, version ")[1:]
    assert len(screens) == 25
    for k, (screen, view) in enumerate(zip(screens, views, strict=False)):
        assert screen.startswith(f"{version}: card {k + 1} of 25\n"), screen
        face_up = {card_label(c) for column in view.reserve for c in column if c is not None}
        assert set(CARD_TEXT.findall(screen)) == grid_texts(view) | face_up, screen
        if version == 6:
            assert not face_up
            columns = screen.split("  Grid (")[0].split("\n")[3:]  # below the column numbers
            assert sum(line.split().count("##") for line in columns) == 53 - k
        placed = {
            (r, c): card for r, row in enumerate(view.grid) for c, card in enumerate(row) if card
        }
        expected = running_score("reserve-poker", placed, TABLES["reserve"], diagonals=True)
        assert f"Score so far: {expected.total} from {len(expected.hands)} complete" in screen
    final = output[game_over : output.index("Receipt: ")]
    assert set(CARD_TEXT.findall(final)) == grid_texts(views[-1])
    assert "        a       b       c       d       e" in final  # letters, as moves name them
    assert "        1       2       3       4" in output  # the reserve columns' numbers
    assert f"Final score: {payload.score.total} (table reserve)" in final
    assert len(payload.score.hands) == 12
    for hand in payload.score.hands:
        assert f"  {hand.line:<11} {labels(hand.cards):<19} {hand.category:<16}" in final
    final_grid = {
        (r, c): card
        for r, row in enumerate(views[-1].grid)
        for c, card in enumerate(row)
        if card is not None
    }
    local = running_score("reserve-poker", final_grid, TABLES["reserve"], diagonals=True)
    assert local.total == payload.score.total  # the local running score agrees, joker wild


def test_cardproof_play_takes_options(tmp_path: Path) -> None:
    command = str(Path(sys.executable).parent / "cardproof")
    result = subprocess.run(
        [command, "play", "reserve-poker", "--options", '{"version": 6}'],
        input="\n".join(RESERVE_TYPED) + "\n",
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    output = result.stdout
    assert "reserve-poker, version 6: card 25 of 25" in output
    verified = verify_receipt(receipt_of(output, tmp_path), key_set_of(output, tmp_path))
    assert verified.replayed
    assert verified.payload.options == {"version": 6}


ANSI = re.compile(r"\x1b\[[0-9;]*m")


@pytest.mark.parametrize(
    ("variant_id", "options", "moves"),
    [
        ("repeat-poker", {"rows": 5}, ["r1", "r2", "r1", "r3", "r1"]),
        ("reserve-poker", {"version": 5}, ["1 a", "2 a", "3 b", "4 e", "1 e"]),
    ],
)
def test_colour_leaves_the_cards_in_their_columns(
    sdk_client: Client, variant_id: str, options: dict[str, Any], moves: list[str]
) -> None:
    output = io.StringIO()
    script = "".join(f"{move}\n" for move in moves)
    code = run(
        sdk_client,
        variant_id,
        input=io.StringIO(script),
        output=output,
        options=options,
        color=True,
    )
    assert code == 1  # the input ran out
    text = output.getvalue()
    plain = ANSI.sub("", text)
    shown = set(CARD_TEXT.findall(plain))
    if any(card[1] in "DH" for card in shown):  # a random deal: red cards, if any, in red
        assert "\x1b[31m" in text
    assert "\x1b[" in text  # coloured, whatever the cards
    board = [line for line in plain.splitlines() if re.match(r"^(  r\d  |  \d  | {6}\S)", line)]
    assert len(board) >= 25
    stride, first = (8, 7) if variant_id == "reserve-poker" else (4, 7)  # slot width, 1st card
    for line in board:  # every card starts at its column's place, as without colour
        starts = {  # the joker, five letters wide, is centred one place earlier
            match.start() + (match[0] == "Joker") for match in CARD_TEXT.finditer(line)
        }
        assert starts <= set(range(first, first + 5 * stride, stride)), line


def test_solodrez_stop_asks_first_and_says_what_stopping_means(sdk_client: Client) -> None:
    code, output = play(sdk_client, "solodrez", ["stop", "n", "stop", "y"])
    assert code == 0, output
    meaning = re.sub(r"\s+", " ", output)
    assert meaning.count("Stopping ends deal d_") == 2  # asked each time, declined once
    assert "scored as it stands, with the 0 series removed so far (a win takes all 9)" in meaning
    assert output.count("Stop? [y/N] ") == 2
    assert output.count("solodrez: move ") == 1  # declined: the game went on, nothing sent
    payload = verify_receipt(receipt_of(output), sdk_client.jwks()).payload
    assert payload.moves == "stop"  # sent once, when confirmed
    assert "Not won: 0 of 9 series removed, in 0 moves; then stopped." in output


def test_cards_read_as_the_page_writes_them_or_ascii_where_the_output_has_no_symbols(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``10♣`` as the play page writes it (``TC`` is the API's text); an ASCII terminal
    gets the page's rank and the suit's letter, ``10C``. A card is read in all three."""
    from cardproof.cards import Card
    from cardproof.cli.tournament import _round_line
    from cardproof.models import RoundStatus
    from cardproof.play.shared import Terminal

    def stream(encoding: str) -> io.TextIOWrapper:
        return io.TextIOWrapper(io.BytesIO(), encoding=encoding)

    symbols = Terminal(io.StringIO(), stream("utf-8"), False)
    letters = Terminal(io.StringIO(), stream("ascii"), False)
    texts = ("TC", "AS", "9H", "JK", "Q3")
    assert [symbols.card(text) for text in texts] == ["10♣", "A♠", "9♥", "Joker", "Q3"]
    assert [letters.card(text) for text in texts] == ["10C", "AS", "9H", "Joker", "Q3"]
    assert symbols.card("TD", width=5) == "10♦  "  # padded after the colour, if any
    assert Card.parse("TC") is Card.parse("10C") is Card.parse("10♣") is Card.parse("tc")
    status = RoundStatus(
        tournament_id="t_0123456789abcdef0123",
        round=1,
        format="lockstep",
        status="playing",
        seats=2,
        calls=25,
        call=0,
        card="TC",
        seconds_left=60.0,
    )
    monkeypatch.setattr("sys.stdout", stream("utf-8"))
    assert "card 1 of 25 10♣ called" in _round_line(status)
    monkeypatch.setattr("sys.stdout", stream("ascii"))
    assert "card 1 of 25 10C called" in _round_line(status)


class SoloDrezTypist:
    """Types a legal solodrez move (as the board counts columns, 1-9) for each prompt, read
    off the board last drawn, ``moves`` times; then ``stop``, and yes."""

    def __init__(self, screen: io.StringIO, moves: int) -> None:
        self.screen = screen
        self.left = moves
        self.typed: list[str] = []

    def readline(self) -> str:
        from cardproof.games.solodrez import SoloDrez
        from cardproof.pokerdrez import parse_pokerdrez_cards

        if self.left == 0:
            line = "y" if self.typed[-1] == "stop" else "stop"
        else:
            self.left -= 1
            drawn = self.screen.getvalue().split("    1   2   3   4   5   6   7   8   9\n")[-1]
            columns: list[list[str]] = [[] for _ in range(9)]
            for row in drawn.splitlines():
                if not row.startswith("   "):
                    break
                for c, column in enumerate(columns):
                    card = row[2 + 4 * c : 5 + 4 * c].strip()
                    if card and card != "-":
                        column.append(card)
            position = SoloDrez.from_columns([parse_pokerdrez_cards(c) for c in columns])
            move = next(m for m in position.legal_moves() if m.stop is None)
            if move.remove is not None:
                line = f"r {move.remove + 1}"
            else:
                line = f"{(move.from_ or 0) + 1} {move.count} {(move.to or 0) + 1}"
        self.typed.append(line)
        return line + "\n"


def test_solodrez_counts_and_words_its_moves_as_the_page_does(
    sdk_client: Client, client: TestClient[Litestar], capsys: pytest.CaptureFixture[str]
) -> None:
    """The page's words at the end ("Not won: 0 of 9 series removed"), and the moves
    counted as the page counts them: a stop moves no card, so it is said, not counted;
    the columns of every line a person reads count 1 to 9."""
    output = io.StringIO()
    typist = SoloDrezTypist(output, moves=2)
    typed = cast(TextIO, typist)  # read a line at a time, as a terminal's are
    code = run(sdk_client, "solodrez", input=typed, output=output, server_url="http://x")
    text = output.getvalue()
    assert code == 0, text
    assert typist.typed[-2:] == ["stop", "y"]
    assert "solodrez: move 1, 0 of 9 series removed" in text  # the page's "Move 1"
    assert "solodrez: move 3, " in text  # after two moves, the third is to make
    payload = verify_receipt(receipt_of(text), client.get("/.well-known/jwks.json").json())
    log = payload.payload.moves.split()
    assert log[2:] == ["stop"]  # two moves, then the stop
    removed = payload.payload.score.series_removed
    ending = f"Not won: {removed} of 9 series removed, in 2 moves; then stopped."
    assert f"\n  {ending}\n" in text  # not "3 moves": the stop moved no card
    from cardproof.cli import verify

    receipt = receipt_file(text)
    jwks = Path("keys.json")
    jwks.write_text(json.dumps(client.get("/.well-known/jwks.json").json()))
    checked = build_parser().parse_args(["verify", str(receipt), "--jwks", str(jwks)])
    assert verify.run(checked) == 0
    said = capsys.readouterr().out
    assert f"\n  {ending}\n" in said  # cardproof verify says it the same way


def test_a_solodrez_move_that_is_none_is_said_as_typed_with_columns_1_to_9(
    sdk_client: Client,
) -> None:
    """Not as the API's text of it, whose columns count from 0 ('0:100>1')."""
    code, output = play(sdk_client, "solodrez", ["1 100 2", "q", "y"])
    assert code == 1
    said = " ".join(output.split())
    assert "'1 100 2' is not a move: type 'a n b' (n cards from column a to column b, " in said
    assert "columns 1-9), 'r a' (remove column a), hint or stop; type ? for help" in said
    assert "0:100>1" not in output


@pytest.mark.parametrize("verdict", ["won", "lost", "unknown"])
def test_solodrez_hint_says_each_verdict_of_the_solver_with_columns_1_to_9(
    sdk_client: Client, monkeypatch: pytest.MonkeyPatch, verdict: Literal["won", "lost", "unknown"]
) -> None:
    """A win's first move as the board counts it; a lost position, what 'stop' would
    score; no verdict in time, the budget. Each with the positions searched."""
    from cardproof.games.solodrez import SoloDrez
    from cardproof.play.solodrez import HINT_BUDGET
    from cardproof.solvers import solodrez as solver

    asked: list[SoloDrez] = []

    def judged(game: SoloDrez, *, budget: float = 2.0) -> solver.SearchResult:
        asked.append(game)
        assert budget == HINT_BUDGET
        runs = [move for move in game.legal_moves() if move.remove is None and move.stop is None]
        moves = (runs[0],) if verdict == "won" else ()
        return solver.SearchResult(verdict, moves, states_searched=1234, seconds=0.1)

    monkeypatch.setattr(solver, "solve", judged)
    code, output = play(sdk_client, "solodrez", ["hint", "q", "y"])
    assert code == 1
    said = " ".join(output.split())
    (position,) = asked  # the board the player sees
    if verdict == "won":
        run = next(m for m in position.legal_moves() if m.remove is None and m.stop is None)
        source, count, target = (run.from_ or 0) + 1, run.count or 0, (run.to or 0) + 1
        cards = "1 card" if count == 1 else f"{count} cards"
        assert (
            f"hint: {source} {count} {target} (move {cards} from column {source} to column "
            f"{target}); a win is 1 move away (1,234 positions searched)" in said
        )
    elif verdict == "lost":
        assert (
            "hint: this position cannot be won (1,234 positions searched); 'stop' ends the "
            "game with 0 series" in said
        )
    else:
        assert "hint: no win found within 3 s (1,234 positions searched)" in said


def test_an_illegal_move_says_why_after_the_move_or_a_colon(sdk_client: Client) -> None:
    """``illegal move (a1): cell a1 is taken`` where the reason names the move first, and
    ``illegal move: 'r7' is not ...`` where it does not (a row the ladder has not)."""
    code, output = play(sdk_client, "poker-squares", ["a1", "a1", "q", "y"])
    assert code == 1
    assert "  illegal move (a1): cell a1 is taken\n" in output
    code, output = play(sdk_client, "repeat-poker", ["r7", "q", "y"])
    assert code == 1
    said = " ".join(output.split())
    assert "illegal move: 'r7' is not a repeat-poker move: 'r7' is not a row" in said

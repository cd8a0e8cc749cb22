"""``/verify`` checks a receipt's place in the transparency log, in the browser (WebCrypto).

A real ``cardproof serve`` folding its log every 50 ms, and headless Chromium. A game is
played through the API, its receipt pasted into ``/verify``, and the page reads its log
answer (the deal's receipt answer, ``GET /v1/deals/{id}/receipt``), checks it under
``GET /log/key`` and says: "In the log at index N (checkpoint of size S, signed by
ORIGIN)", the index and the origin the SDK's ``check_in_log`` finds. A log answer changed
on its way to the page (with Playwright's ``route``) is refused with the failed check,
its code and its message, the very ones the SDK gives for the same answer; one not
sequenced yet is "Not yet in the log" with a button to check again. A receipt whose deal
answers another receipt, or none, is looked up by its leaf hash (``GET /log/proof``): a
receipt minted with the service's own key is not in the log, and the page says so rather
than "Verified". Screenshots at 390x844 and 1280x900 are kept under
``$CARDPROOF_SCREENSHOTS`` when it is set.
"""

from __future__ import annotations

import base64
import json
import os
import re
import shutil
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import msgspec
import pytest

from attack_kit import CELLS
from cardproof.receipts import decode_receipt
from cardproof.tlog.entries import ReceiptEntry, encode_entry, parse_entry
from cardproof.tlog.inclusion import Logged, LogProof, LogProofError, check_in_log
from cardproof.tlog.note import Verifier
from cardproof_service.store.keys import new_deal_id
from conftest import TEST_KEYS, served

ROOT = Path(__file__).resolve().parent.parent
A11Y_SCRIPT = (ROOT / "tests" / "a11y_check.js").read_text(encoding="utf-8")
RECEIPT_ANSWER = re.compile(r".*/v1/deals/[^/]+/receipt$")
INCLUDED = re.compile(r"In the log at index (\d+) \(checkpoint of size (\d+), signed by (\S+)\)")
NOT_YET = "Not yet in the log (sequenced within a second or two)"


@pytest.fixture(scope="module")
def logged_server() -> Iterator[str]:
    """A real server on the memory store whose log folds every 50 ms."""
    env = {"REDIS_URL": "", "CARDPROOF_LOG_INTERVAL": "0.05"}
    with served("--log-level", "warning", env=env) as url:
        yield url


def played(url: str) -> dict[str, Any]:
    """A committed poker-squares game played to its end; its receipt answer once logged."""
    with httpx.Client(base_url=url, timeout=10) as client:
        commitment = client.post("/v1/commitments", json={}).json()["commitment_id"]
        body = {"variant": "poker-squares", "commitment_id": commitment, "client_seed": "logged"}
        deal_id = client.post("/v1/deals", json=body).json()["deal_id"]
        for index, cell in enumerate(CELLS):
            move = client.post(f"/v1/deals/{deal_id}/moves", json={"index": index, "move": cell})
            assert move.status_code == 200, move.text
        deadline = time.monotonic() + 10
        while True:
            answer: dict[str, Any] = client.get(f"/v1/deals/{deal_id}/receipt").json()
            if answer["log"] is not None:
                return answer
            assert time.monotonic() < deadline, "not in the log within 10 s"
            time.sleep(0.05)


def log_key(url: str) -> Verifier:
    """The log's verifier key, as the server serves it."""
    return Verifier.parse(httpx.get(f"{url}/log/key").text)


def sdk_check(receipt: str, log: dict[str, Any], url: str) -> Logged:
    """What the SDK's reference check finds of this log answer."""
    return check_in_log(receipt, msgspec.convert(log, LogProof), log_key(url))


def verify_on_page(page: Any, url: str, receipt: str) -> tuple[str, str]:
    """Paste ``receipt`` into ``/verify``; the page's verdict and its log line."""
    from playwright.sync_api import expect

    page.goto(f"{url}/verify")
    page.get_by_label("Receipt", exact=True).fill(receipt)
    page.get_by_role("button", name="Verify").click()
    line = page.locator("#log-status")
    done = r"^(In the log|Not yet in the log|Not in the log|Log check failed|The log could not)"
    expect(line).to_have_text(re.compile(done), timeout=10_000)
    return str(page.get_by_role("status").text_content()), str(line.text_content())


def recorded(page: Any) -> list[str]:
    """The URLs the page requests, from now on."""
    urls: list[str] = []
    page.on("request", lambda request: urls.append(request.url))
    return urls


def keep(page: Any, tmp_path: Path, name: str) -> None:
    """A screenshot of the whole page, kept under ``$CARDPROOF_SCREENSHOTS`` when set."""
    shot = tmp_path / name
    page.screenshot(path=str(shot), full_page=True)
    folder = os.environ.get("CARDPROOF_SCREENSHOTS")
    if folder:
        shutil.copy(shot, Path(folder) / shot.name)


def serve_changed(page: Any, change: Callable[[dict[str, Any]], Any]) -> None:
    """Change the deal's receipt answer's ``log`` on its way to the page."""

    def doctor(route: Any) -> None:
        answer = route.fetch()
        body = answer.json()
        route.fulfill(response=answer, json={**body, "log": change(body["log"])})

    page.route(RECEIPT_ANSWER, doctor)


def test_a_played_game_s_receipt_is_shown_in_the_log(
    chromium: Any, logged_server: str, tmp_path: Path
) -> None:
    answer = played(logged_server)
    receipt, deal_id = answer["receipt"], answer["payload"]["deal_id"]
    found = sdk_check(receipt, answer["log"], logged_server)
    assert found.origin == log_key(logged_server).name
    for width, height in ((1280, 900), (390, 844)):
        page = chromium.new_page(viewport={"width": width, "height": height})
        urls = recorded(page)
        verdict, line = verify_on_page(page, logged_server, receipt)
        shown = INCLUDED.fullmatch(line)
        assert shown, line
        assert int(shown[1]) == found.index
        assert int(shown[2]) >= found.size  # the latest checkpoint: the log may have grown
        assert shown[3] == found.origin
        assert verdict == "Verified: every check below holds.", verdict
        checks = str(page.locator("#checks").text_content())
        kid = json.loads(base64.urlsafe_b64decode(receipt.split(".")[0] + "=="))["kid"]
        assert f"Ed25519 signature by key {kid}" in checks, checks
        assert page.locator("#log-status").get_attribute("class") == "verified"
        assert page.get_by_role("button", name="Check the log again").is_hidden()
        # the deal's own receipt answer and the log's key, from this origin only
        assert f"{logged_server}/v1/deals/{deal_id}/receipt" in urls
        assert f"{logged_server}/log/key" in urls
        assert not [u for u in urls if "/log/proof/" in u]  # the deal answered this receipt
        assert all(u.startswith(logged_server) for u in urls), urls
        assert page.evaluate(A11Y_SCRIPT) == []
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        keep(page, tmp_path, f"verify-log-{width}.png")
        page.close()


def flipped_proof(log: dict[str, Any], other: dict[str, Any]) -> dict[str, Any]:
    first = bytearray(base64.b64decode(log["proof"][0]))
    first[0] ^= 1
    return {**log, "proof": [base64.b64encode(bytes(first)).decode(), *log["proof"][1:]]}


def moved_index(log: dict[str, Any], other: dict[str, Any]) -> dict[str, Any]:
    return {**log, "index": log["index"] ^ 1}


def another_receipt_s_entry(log: dict[str, Any], other: dict[str, Any]) -> dict[str, Any]:
    return {**log, "entry": other["entry"]}


def a_higher_score(log: dict[str, Any], other: dict[str, Any]) -> dict[str, Any]:
    entry = parse_entry(base64.b64decode(log["entry"]))
    assert isinstance(entry, ReceiptEntry)
    higher = msgspec.structs.replace(entry, score=entry.score + 1)
    return {**log, "entry": base64.b64encode(encode_entry(higher)).decode()}


def a_bigger_tree(log: dict[str, Any], other: dict[str, Any]) -> dict[str, Any]:
    lines = log["checkpoint"].split("\n")
    lines[1] = str(int(lines[1]) + 1)
    return {**log, "checkpoint": "\n".join(lines)}


def a_bad_signature(log: dict[str, Any], other: dict[str, Any]) -> dict[str, Any]:
    text, signature = log["checkpoint"].split("\n\n")
    dash, name, encoded = signature.rstrip("\n").split(" ")
    raw = bytearray(base64.b64decode(encoded))
    raw[-1] ^= 1
    changed = f"{dash} {name} {base64.b64encode(bytes(raw)).decode()}\n"
    return {**log, "checkpoint": f"{text}\n\n{changed}"}


@pytest.mark.parametrize(
    ("change", "check"),
    [
        (flipped_proof, "bad inclusion proof"),
        (moved_index, "bad inclusion proof"),
        (another_receipt_s_entry, "the entry does not name this receipt"),
        (a_higher_score, "the entry does not say what the receipt says"),
        (a_bigger_tree, "bad checkpoint signature"),
        (a_bad_signature, "bad checkpoint signature"),
    ],
)
def test_a_changed_log_answer_is_refused_with_the_check_that_failed(
    chromium: Any, logged_server: str, tmp_path: Path, change: Any, check: str
) -> None:
    other = played(logged_server)["log"]
    answer = played(logged_server)  # in a tree of two entries or more: a proof to change
    assert answer["log"]["proof"], "no audit path to change"
    changed = change(answer["log"], other)
    with pytest.raises(LogProofError) as refusal:  # the SDK refuses it: with what, exactly
        sdk_check(answer["receipt"], changed, logged_server)
    page = chromium.new_page(viewport={"width": 390, "height": 844})
    serve_changed(page, lambda _: changed)
    verdict, line = verify_on_page(page, logged_server, answer["receipt"])
    error = refusal.value
    assert line == f"Log check failed: {check} ({error.code}: {error})", line
    assert verdict == f"Not verified: the log check failed: {check}.", verdict
    assert page.locator("#log-status").get_attribute("class") == "not-verified"
    assert page.get_by_role("button", name="Check the log again").is_hidden()
    assert page.evaluate("document.documentElement.scrollWidth") <= 390  # a long refusal wraps
    assert page.evaluate(A11Y_SCRIPT) == []
    keep(page, tmp_path, f"verify-log-refused-{change.__name__}-390.png")
    page.close()


def test_a_receipt_not_yet_sequenced_is_checked_again_on_asking(
    chromium: Any, logged_server: str, tmp_path: Path
) -> None:
    """The deal answers no place in the log yet: the page says so, and checks again."""
    from playwright.sync_api import expect

    answer = played(logged_server)
    page = chromium.new_page(viewport={"width": 390, "height": 844})
    serve_changed(page, lambda _: None)
    verdict, line = verify_on_page(page, logged_server, answer["receipt"])
    assert line == NOT_YET
    assert verdict.startswith("Not verified yet: the receipt checks out, but it is not in"), verdict
    assert page.get_by_role("status").get_attribute("class") == "pending"  # no pass yet
    assert page.locator("#log-status").get_attribute("class") == "pending"
    again = page.get_by_role("button", name="Check the log again")
    expect(again).to_be_visible()
    assert page.evaluate(A11Y_SCRIPT) == []
    keep(page, tmp_path, "verify-log-not-yet-390.png")
    page.unroute(RECEIPT_ANSWER)
    again.click()
    expect(page.locator("#log-status")).to_have_text(INCLUDED)
    expect(again).to_be_hidden()
    assert page.locator("#log-status").get_attribute("class") == "verified"
    page.close()


def test_a_receipt_its_deal_does_not_answer_is_found_by_its_leaf_hash(
    chromium: Any, logged_server: str
) -> None:
    """A tournament game's receipt is its entrant's to read: the page asks the log itself."""
    answer = played(logged_server)
    page = chromium.new_page()
    urls = recorded(page)
    problem = {"status": 401, "code": "missing-token", "detail": "a tournament game's"}
    page.route(RECEIPT_ANSWER, lambda route: route.fulfill(status=401, json=problem))
    verdict, line = verify_on_page(page, logged_server, answer["receipt"])
    shown = INCLUDED.fullmatch(line)
    assert shown, line
    assert int(shown[1]) == answer["log"]["index"]
    assert verdict.startswith("Verified"), verdict
    assert [u for u in urls if re.search(r"/log/proof/[0-9a-f]{64}$", u)]
    page.close()


def test_a_receipt_minted_with_the_service_s_key_is_not_in_the_log(
    chromium: Any, logged_server: str
) -> None:
    """A game that never happened, or a better score for one that did, signed with the
    real key: the signature holds, only the log tells."""
    answer = played(logged_server)
    _, payload = decode_receipt(answer["receipt"])
    old = payload.issued - 3600
    page = chromium.new_page()
    minted = [
        msgspec.structs.replace(payload, deal_id=new_deal_id("Zz"), issued_at=old, iat=old),
        msgspec.structs.replace(payload, issued_at=old, iat=old),  # its deal answers another
    ]
    for forged in minted:
        verdict, line = verify_on_page(page, logged_server, TEST_KEYS.signing.sign(forged))
        assert line.startswith("Not in the log: this server's transparency log does not hold")
        assert verdict == "Not verified: it is not in the server's transparency log.", verdict
        assert page.locator("#log-status").get_attribute("class") == "not-verified"
    fresh = TEST_KEYS.signing.sign(msgspec.structs.replace(payload, deal_id=new_deal_id("Zy")))
    verdict, line = verify_on_page(page, logged_server, fresh)
    assert line == NOT_YET  # signed a moment ago: not refused yet, and no pass either
    assert verdict.startswith("Not verified yet"), verdict
    assert page.locator("#log-status").get_attribute("class") == "pending"
    assert page.get_by_role("button", name="Check the log again").is_visible()
    nameless = msgspec.structs.replace(payload, deal_id=None, issued_at=old, iat=old)
    verdict, line = verify_on_page(page, logged_server, TEST_KEYS.signing.sign(nameless))
    assert line.startswith("Not in the log: a committed-blind receipt of no deal"), line
    assert verdict.startswith("Not verified"), verdict  # not taken for a practice receipt
    page.close()

"""``/verify`` checks a receipt's place in the transparency log, in the browser (WebCrypto).

A real ``cardproof serve`` (folding every 50 ms) and headless Chromium: a game's receipt
is shown in the log at its index; its log answer changed on the way (a proof hash, the
entry, the checkpoint's size) is refused with the check that failed; a receipt minted
with the service's own key for a game that never happened is not in the log, and the
page says so rather than "Verified". Screenshots at 390x844 and 1280 wide are kept
under ``$CARDPROOF_SCREENSHOTS`` when it is set.
"""

from __future__ import annotations

import base64
import json
import os
import re
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import msgspec
import pytest

from cardproof.receipts import decode_receipt
from cardproof_service.store.keys import new_deal_id
from conftest import TEST_KEYS, served
from test_log_service import finished_deal


@pytest.fixture(scope="module")
def logged_server() -> Iterator[str]:
    env = {"REDIS_URL": "", "CARDPROOF_LOG_INTERVAL": "0.05"}
    with served("--log-level", "warning", env=env) as url:
        yield url


def logged_receipt(url: str) -> str:
    """A finished game's receipt, once the log holds it."""
    with httpx.Client(base_url=url, timeout=10) as client:
        deal_id = finished_deal(client)  # type: ignore[arg-type]
        deadline = time.monotonic() + 10
        while True:
            answer = client.get(f"/v1/deals/{deal_id}/receipt").json()
            if answer["log"] is not None or time.monotonic() > deadline:
                return str(answer["receipt"])
            time.sleep(0.05)


def verify_on_page(page: Any, url: str, receipt: str) -> tuple[str, str]:
    """The page's verdict and its log line for ``receipt``."""
    from playwright.sync_api import expect

    page.goto(f"{url}/verify")
    page.get_by_label("Receipt", exact=True).fill(receipt)
    page.get_by_role("button", name="Verify").click()
    line = page.locator("#log-status")
    expect(line).not_to_be_empty(timeout=10_000)
    return str(page.get_by_role("status").text_content()), str(line.text_content())


def test_the_page_shows_a_receipt_in_the_log(
    chromium: Any, logged_server: str, tmp_path: Path
) -> None:
    receipt = logged_receipt(logged_server)
    for width, height in ((1280, 900), (390, 844)):
        page = chromium.new_page(viewport={"width": width, "height": height})
        verdict, line = verify_on_page(page, logged_server, receipt)
        assert verdict.startswith("Verified"), verdict
        port = logged_server.rsplit(":", 1)[1]
        where = rf"signed by 127\.0\.0\.1:{port}/log"
        assert re.fullmatch(rf"In the log at index \d+ \(checkpoint of size \d+, {where}\)\.", line)
        assert page.locator("#log-status").get_attribute("class") == "verified"
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        shot = tmp_path / f"verify-log-{width}.png"
        page.screenshot(path=str(shot), full_page=True)
        folder = os.environ.get("CARDPROOF_SCREENSHOTS")
        if folder:
            shutil.copy(shot, Path(folder) / shot.name)
        page.close()


def changed_proof(answer: dict[str, Any]) -> dict[str, Any]:
    proof = list(answer["proof"])
    assert proof, "a log of one entry: no audit path to change"
    first = bytearray(base64.b64decode(proof[0]))
    first[0] ^= 1
    return {**answer, "proof": [base64.b64encode(bytes(first)).decode(), *proof[1:]]}


def changed_entry(answer: dict[str, Any]) -> dict[str, Any]:
    entry = json.loads(base64.b64decode(answer["entry"]))
    entry["score"] += 1
    text = json.dumps(entry, separators=(",", ":")).encode()
    return {**answer, "entry": base64.b64encode(text).decode()}


def changed_size(answer: dict[str, Any]) -> dict[str, Any]:
    lines = answer["checkpoint"].split("\n")
    lines[1] = str(int(lines[1]) + 1)
    return {**answer, "checkpoint": "\n".join(lines)}


@pytest.mark.parametrize(
    ("change", "refusal"),
    [
        (changed_proof, r"Not in the log \(inclusion\)"),
        (changed_entry, r"Not in the log \(entry\): the entry says other than the receipt"),
        (changed_size, r"Not in the log \(checkpoint\): .*does not verify"),
    ],
)
def test_a_changed_log_answer_is_refused(
    chromium: Any, logged_server: str, change: Any, refusal: str
) -> None:
    logged_receipt(logged_server)
    receipt = logged_receipt(logged_server)  # in a tree of two entries or more
    page = chromium.new_page()

    def doctor(route: Any) -> None:
        answer = route.fetch()
        route.fulfill(response=answer, json=change(answer.json()))

    page.route(re.compile(r".*/log/proof/[0-9a-f]{64}$"), doctor)
    verdict, line = verify_on_page(page, logged_server, receipt)
    assert re.match(refusal, line), line
    assert verdict.startswith("Not verified: Not in the log"), verdict
    assert page.locator("#log-status").get_attribute("class") == "not-verified"
    page.close()


def test_a_receipt_minted_with_the_service_s_key_is_not_in_the_log(
    chromium: Any, logged_server: str
) -> None:
    """A game that never happened, signed with the real key: only the log tells."""
    token = logged_receipt(logged_server)
    _, payload = decode_receipt(token)
    old = payload.issued - 3600
    minted = TEST_KEYS.signing.sign(
        msgspec.structs.replace(payload, deal_id=new_deal_id("Zz"), issued_at=old, iat=old)
    )
    page = chromium.new_page()
    verdict, line = verify_on_page(page, logged_server, minted)
    assert line.startswith("Not in the log: this server's transparency log does not hold"), line
    assert verdict.startswith("Not verified: Not in the log"), verdict
    fresh = TEST_KEYS.signing.sign(msgspec.structs.replace(payload, deal_id=new_deal_id("Zy")))
    verdict, line = verify_on_page(page, logged_server, fresh)
    assert line.startswith("Not in the log yet"), line  # signed a moment ago: not refused yet
    assert page.locator("#log-status").get_attribute("class") == "pending"
    page.close()

"""Request ids and JSON logs: ids echoed, one line per request, no secret or hidden card."""

from __future__ import annotations

import io
import json
import logging
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from litestar import Litestar
from litestar.testing import TestClient

from cardproof.cards import STANDARD_DECK
from cardproof_service.app import create_app
from cardproof_service.plumbing.observability import (
    AccessRecord,
    JsonFormatter,
    JsonLinesHandler,
    logging_config,
    new_request_id,
)
from cardproof_service.plumbing.settings import Settings
from conftest import SERVER_KEYS, TEST_KEYS, free_port

HttpClient = TestClient[Litestar]
FIELDS = {
    *("ts", "level", "logger", "msg", "pid"),
    *("request_id", "method", "path", "status", "duration_ms"),
}


def lines_of(caplog: pytest.LogCaptureFixture) -> list[dict[str, object]]:
    """The access log lines captured so far, as the JSON formatter writes them."""
    formatter = JsonFormatter()
    return [json.loads(formatter.format(r)) for r in caplog.records if r.name == "cardproof.access"]


def test_a_request_id_is_echoed_or_made(client: HttpClient) -> None:
    given = client.get("/healthz", headers={"X-Request-ID": "trace-42/abc"})
    assert given.headers["x-request-id"] == "trace-42/abc"
    made = client.get("/healthz")
    assert re.fullmatch(r"[0-9a-f]{32}", made.headers["x-request-id"])
    ids = {client.get("/healthz").headers["x-request-id"] for _ in range(20)}
    assert len(ids) == 20  # each its own
    assert made.headers["x-request-id"] not in ids
    assert len(made.headers.get_list("x-request-id")) == 1  # one, never two
    for bad in ("x" * 129, "has space"):
        replaced = client.get("/healthz", headers={"X-Request-ID": bad})
        assert replaced.headers["x-request-id"] != bad
    problem = client.get("/v1/deals/nope")  # errors carry it too
    assert problem.status_code == 404
    assert problem.headers["x-request-id"]
    unrouted = client.get("/no/such/path", headers={"X-Request-ID": "lost-1"})  # the router's
    assert (unrouted.status_code, unrouted.headers["x-request-id"]) == (404, "lost-1")


def test_request_ids_of_a_forked_worker_never_repeat_its_parents() -> None:
    parent = [new_request_id() for _ in range(3)]
    reading, writing = os.pipe()
    child = os.fork()
    if child == 0:  # the child: its first id, to the parent
        os.write(writing, new_request_id().encode())
        os._exit(0)
    os.close(writing)
    forked = os.read(reading, 64).decode()
    os.waitpid(child, 0)
    assert re.fullmatch(r"[0-9a-f]{32}", forked)
    assert forked[:16] != parent[0][:16]  # another process, another prefix
    assert len({*parent, new_request_id()}) == 4


def test_each_request_writes_one_json_line_with_its_id(
    client: HttpClient, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="cardproof.access")
    answer = client.post("/v1/commitments", json={}, headers={"X-Request-ID": "req-1"})
    assert answer.status_code == 201
    (line,) = [line for line in lines_of(caplog) if line["request_id"] == "req-1"]
    assert set(line) == FIELDS
    assert (line["method"], line["path"], line["status"], line["msg"]) == (
        "POST",
        "/v1/commitments",
        201,
        "request",
    )
    assert isinstance(line["duration_ms"], float)


def test_no_secret_or_hidden_card_reaches_a_log_line(
    app: Litestar, client: HttpClient, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    commitment = client.post("/v1/commitments", json={}).json()
    deal = client.post(
        "/v1/deals",
        json={
            "variant": "poker-squares",
            "commitment_id": commitment["commitment_id"],
            "client_seed": "a seed of mine",
        },
    ).json()
    cells = [f"{col}{row}" for row in "12345" for col in "abcde"]
    for index, cell in enumerate(cells):
        client.post(f"/v1/deals/{deal['deal_id']}/moves", json={"index": index, "move": cell})
    receipt = client.get(f"/v1/deals/{deal['deal_id']}/receipt").json()
    client.post("/v1/verify", json={"variant": "poker-squares", "deal": {"cards": ["AH"]}})
    seed = receipt["payload"]["server_seed"]
    secrets = [seed, TEST_KEYS.master.hex(), receipt["receipt"].rsplit(".", 1)[1]]
    formatter = JsonFormatter()
    text = "\n".join(formatter.format(record) for record in caplog.records)
    assert text  # the game was logged
    for secret in secrets:
        assert secret not in text
    cards = {card.text for card in STANDARD_DECK}
    for line in lines_of(caplog):
        assert set(line) <= FIELDS
        values = [str(v) for k, v in line.items() if k not in {"path", "request_id", "ts"}]
        assert not cards & set(" ".join(values).split())
        assert not cards & set(re.split(r"[/_.-]", str(line["path"])))  # ids, not cards


def test_cardproof_serve_logs_json_lines_on_stderr(tmp_path: Path) -> None:
    port = free_port()
    log = tmp_path / "serve.log"
    env = {"PATH": "/usr/bin:/bin", **SERVER_KEYS, "CARDPROOF_WARM_UP": "0"}
    command = [str(Path(sys.executable).parent / "cardproof"), "serve", "--port", str(port)]
    with log.open("wb") as stream:
        server = subprocess.Popen(command, stderr=stream, stdout=stream, env=env)
        try:
            for _ in range(100):
                try:
                    answer = httpx.get(
                        f"http://127.0.0.1:{port}/healthz",
                        headers={"X-Request-ID": "probe-1"},
                        trust_env=False,
                    )
                    break
                except httpx.TransportError:
                    time.sleep(0.1)
            assert answer.headers["x-request-id"] == "probe-1"
        finally:
            server.terminate()
            server.wait(timeout=10)
    lines = [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
    assert any(line.get("request_id") == "probe-1" for line in lines), lines
    assert all({"ts", "level", "logger", "msg"} <= set(line) for line in lines)


def test_the_serve_log_level_quiets_the_request_lines() -> None:
    config = logging_config("warning")
    assert config["loggers"]["cardproof"]["level"] == "WARNING"
    assert config["loggers"]["uvicorn.access"]["handlers"] == []
    assert logging_config("trace")["loggers"]["uvicorn"]["level"] == "DEBUG"


def _batched(name: str) -> tuple[logging.Logger, JsonLinesHandler, io.StringIO]:
    """A private logger writing through a JsonLinesHandler into a string."""
    stream = io.StringIO()
    handler = JsonLinesHandler(stream)
    handler.setFormatter(JsonFormatter())
    logger = logging.getLogger(f"test.batched.{name}")
    logger.handlers[:] = [handler]
    logger.propagate = False
    logger.setLevel(logging.INFO)
    return logger, handler, stream


def test_request_lines_leave_in_batches_at_most_a_tenth_of_a_second_late() -> None:
    logger, handler, stream = _batched("late")
    try:
        logger.handle(AccessRecord({"request_id": "r1", "status": 200}))
        logger.handle(AccessRecord({"request_id": "r2", "status": 200}))
        assert stream.getvalue() == ""  # gathered, not yet written
        deadline = time.monotonic() + 5  # the thread flushes every 0.1 s; slack for a busy CI
        while not stream.getvalue() and time.monotonic() < deadline:
            time.sleep(0.02)
        lines = [json.loads(line) for line in stream.getvalue().splitlines()]
        assert [line["request_id"] for line in lines] == ["r1", "r2"]
    finally:
        handler.close()


def test_any_other_line_carries_the_batch_out_first_and_close_writes_the_rest() -> None:
    logger, handler, stream = _batched("order")
    handler.FLUSH_SECONDS = 3600.0  # type: ignore[misc]  # only the lines themselves flush
    try:
        logger.handle(AccessRecord({"request_id": "before"}))
        logger.info("shutting down")
        lines = [json.loads(line) for line in stream.getvalue().splitlines()]
        assert [line.get("request_id", line["msg"]) for line in lines] == [
            "before",
            "shutting down",
        ]
        logger.handle(AccessRecord({"request_id": "last"}))
        assert "last" not in stream.getvalue()
    finally:
        handler.close()
    assert json.loads(stream.getvalue().splitlines()[-1])["request_id"] == "last"


def test_the_app_leaves_the_process_logging_alone() -> None:
    """Litestar's default logging config would re-run dictConfig: close the serve handlers
    (so batched lines were lost) and add its own handler on the root logger."""
    root_handlers = list(logging.getLogger().handlers)
    ours = JsonLinesHandler(io.StringIO())
    cardproof = logging.getLogger("cardproof")
    cardproof.addHandler(ours)
    try:
        create_app(Settings(warm_up=False), keys=TEST_KEYS)
        assert logging.getLogger().handlers == root_handlers
        assert not ours._stopped.is_set()
    finally:
        cardproof.removeHandler(ours)
        ours.close()

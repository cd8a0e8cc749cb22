"""The SDK clients: typed results and errors against the app, retries against a scripted server."""

from __future__ import annotations

import time
from email.utils import formatdate
from typing import Any

import httpx
import pytest
from litestar import Litestar
from litestar.testing import AsyncTestClient, TestClient

from cardproof import (
    APIError,
    BadRequestError,
    IllegalMoveError,
    RateLimitedError,
    ServerError,
    TransportError,
    UnprocessableError,
)
from cardproof.client import AsyncClient, Client, retry_after_seconds
from cardproof.core import RequestCore
from cardproof.games import Cell
from cardproof_service.front import examples


@pytest.fixture
def sdk(client: TestClient[Litestar]) -> Client:
    return Client(base_url=str(client.base_url), http_client=client, max_retries=0)


def test_typed_results(sdk: Client) -> None:
    assert {"poker-squares", "poker-patience", "serpent-patience"} <= {v.id for v in sdk.variants()}
    score = sdk.score("poker-squares", examples.SCORE["layout"])
    assert score.total == 210
    assert score.hands[0].category == "royal-flush"
    result = sdk.verify("poker-squares", examples.ROW_BY_ROW, cards=examples.FIRST_25)
    assert result.moves == examples.ROW_BY_ROW
    solution = sdk.solve("serpent-patience", examples.FIRST_25)
    assert solution.optimal
    assert all(isinstance(m, Cell) for m in solution.moves)
    again = sdk.verify("serpent-patience", solution.moves, cards=examples.FIRST_25)
    assert again.score == solution.score
    assert sdk.health().status == "ok"
    assert sdk.ready().status == "ready"


def test_typed_errors(sdk: Client) -> None:
    with pytest.raises(IllegalMoveError) as illegal:
        sdk.verify("poker-squares", "a1 a1", cards=examples.FIRST_25)
    assert (illegal.value.move_index, illegal.value.code, illegal.value.status) == (
        1,
        "cell-taken",
        422,
    )
    layout = [row[:] for row in examples.SCORE["layout"]]
    layout[0][0] = "KH"
    with pytest.raises(UnprocessableError) as duplicate:
        sdk.score("poker-squares", layout)
    assert duplicate.value.code == "duplicate-card"
    assert not isinstance(duplicate.value, IllegalMoveError)
    layout[0][0] = "ZZ"
    with pytest.raises(BadRequestError) as bad:
        sdk.score("poker-squares", layout)
    assert bad.value.field == "layout[0][0]"


async def test_async_client(async_client: AsyncTestClient[Litestar]) -> None:
    http = async_client
    client = AsyncClient(base_url=str(http.base_url), http_client=http, max_retries=0)
    assert (await client.score("poker-squares", examples.SCORE["layout"])).total == 210
    result = await client.verify("poker-squares", examples.ROW_BY_ROW, cards=examples.FIRST_25)
    assert result.score.total == 0
    assert (await client.solve("serpent-patience", examples.FIRST_25)).optimal
    with pytest.raises(IllegalMoveError):
        await client.verify("poker-squares", "a1 a1", cards=examples.FIRST_25)
    await client.close()


class Script:
    """A fake server answering from a list of (status, headers) and recording requests."""

    def __init__(self, *answers: tuple[int, dict[str, str]] | Exception) -> None:
        self.answers = list(answers)
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        answer = self.answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        status, headers = answer
        if status == 200:
            return httpx.Response(200, json={"status": "ok"}, headers=headers)
        problem = {
            "type": "about:blank",
            "title": "Unavailable",
            "status": status,
            "detail": "busy",
        }
        return httpx.Response(status, json=problem, headers=headers)


def scripted(script: Script, **settings: Any) -> Client:
    http = httpx.Client(transport=httpx.MockTransport(script))
    return Client(base_url="http://cardproof.test", http_client=http, backoff=0.001, **settings)


def scripted_async(script: Script, **settings: Any) -> AsyncClient:
    http = httpx.AsyncClient(transport=httpx.MockTransport(script))
    return AsyncClient(
        base_url="http://cardproof.test", http_client=http, backoff=0.001, **settings
    )


def test_retries_reuse_the_idempotency_key_and_honour_retry_after() -> None:
    script = Script((503, {"retry-after": "0"}), (429, {"retry-after": "0"}), (200, {}))
    with pytest.raises(APIError):  # the scripted 200 body is not a Commitment
        scripted(script).commit()
    assert len(script.requests) == 3
    keys = {r.headers["idempotency-key"] for r in script.requests}
    assert len(keys) == 1
    assert keys != {""}


async def test_async_retries_match_the_sync_ones() -> None:
    timeout = httpx.ReadTimeout("slow")
    script = Script(timeout, (503, {"retry-after": "0"}), (200, {}))
    assert (await scripted_async(script).health()).status == "ok"
    assert len(script.requests) == 3
    script = Script(timeout, timeout)
    with pytest.raises(TransportError):
        await scripted_async(script, max_retries=1).health()
    script = Script((503, {"retry-after": "600"}))
    with pytest.raises(ServerError) as error:
        await scripted_async(script, max_backoff=5).health()
    assert error.value.retry_after == 600


def test_retry_after_is_waited_for() -> None:
    script = Script((503, {"retry-after": "0.2"}), (200, {}))
    started = time.monotonic()
    scripted(script).health()
    assert time.monotonic() - started >= 0.2
    core = RequestCore(
        base_url="x", api_key=None, timeout=1, max_retries=1, backoff=1, max_backoff=5
    )
    assert all(0 <= core.delay(3) <= 4 for _ in range(100))


def test_a_retry_after_longer_than_max_backoff_is_final() -> None:
    script = Script((429, {"retry-after": "120"}), (200, {}))
    with pytest.raises(RateLimitedError) as error:
        scripted(script, max_backoff=30).health()
    assert error.value.retry_after == 120
    assert len(script.requests) == 1


def test_gives_up_after_max_retries_with_a_typed_error() -> None:
    script = Script((503, {"retry-after": "0.01"}), (503, {"retry-after": "0"}))
    with pytest.raises(ServerError) as error:
        scripted(script, max_retries=1).health()
    assert error.value.status == 503
    assert error.value.retry_after == 0
    assert len(script.requests) == 2


def test_connection_errors_are_retried_then_raised() -> None:
    refused = httpx.ConnectError("refused")
    script = Script(refused, (200, {}))
    assert scripted(script).health().status == "ok"
    script = Script(refused, refused)
    with pytest.raises(TransportError):
        scripted(script, max_retries=1).health()


def test_permanent_transport_errors_are_not_retried() -> None:
    script = Script(httpx.UnsupportedProtocol("no such scheme"), (200, {}))
    with pytest.raises(TransportError):
        scripted(script).health()
    assert len(script.requests) == 1


def test_client_errors_are_not_retried() -> None:
    script = Script((400, {}), (200, {}))
    with pytest.raises(BadRequestError):
        scripted(script).health()
    assert len(script.requests) == 1


def test_options_are_sent_as_given_for_the_server_to_judge(sdk: Client) -> None:
    with pytest.raises(UnprocessableError) as error:
        sdk.score("serpent-patience", examples.SCORE["layout"], options={"diagonals": True})
    assert error.value.code == "unknown-option"
    with pytest.raises(BadRequestError) as bad:
        sdk.score("poker-squares", examples.SCORE["layout"], options={"colour": "red"})
    assert bad.value.field == "options.colour"


def test_retry_after_forms() -> None:
    assert retry_after_seconds("2.5") == 2.5
    in_a_minute = retry_after_seconds(formatdate(time.time() + 60, usegmt=True))
    assert in_a_minute is not None
    assert 55 < in_a_minute <= 60
    assert retry_after_seconds("-3") == 0
    assert retry_after_seconds("") is None
    utc_unknown = formatdate(time.time() + 60).replace("+0000", "-0000")
    seconds = retry_after_seconds(utc_unknown)
    assert seconds is not None
    assert 55 < seconds <= 60

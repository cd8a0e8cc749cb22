"""Shared fixtures: one app per test session, sync and async test clients."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest
from cardproof_service import Settings, create_app
from litestar import Litestar
from litestar.testing import AsyncTestClient, TestClient


@pytest.fixture(scope="session")
def app() -> Litestar:
    """The app as `make run` builds it, without the start-up warm-up thread."""
    return create_app(Settings(warm_up=False))


@pytest.fixture
def client(app: Litestar) -> Iterator[TestClient[Litestar]]:
    """A synchronous test client (an httpx.Client) talking to the app in-process."""
    with TestClient(app=app) as test_client:
        yield test_client


@pytest.fixture
async def async_client(app: Litestar) -> AsyncIterator[AsyncTestClient[Litestar]]:
    """An asynchronous test client (an httpx.AsyncClient) talking to the app in-process."""
    async with AsyncTestClient(app=app) as test_client:
        yield test_client

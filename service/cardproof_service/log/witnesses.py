"""Witnesses asked to cosign the log's checkpoints (C2SP tlog-witness), off the fold's path.

The replica that folds (the lease's holder) sends each new checkpoint to every witness
of ``CARDPROOF_LOG_WITNESSES`` with a consistency proof from the size that witness last
cosigned, learning that size from its ``409`` when it does not know it (a new replica
starts from 0). The cosignature lines that verify under the witness's key are added to
the checkpoint, which the store keeps beside it (``add_cosigned``: only while the log is
still of that size), and ``/log/checkpoint`` and the receipts' proofs show it.

All of it runs in a task of its own: a witness that is slow, down or refusing delays no
fold and no answer; it is asked again a few seconds later, and its refusals are logged
(a ``422``: the witness saw a tree this one does not extend, a fork or a rollback).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Sequence
from typing import Final

import httpx

from cardproof.tlog.note import Checkpoint, NoteError, Verifier, open_note, split_note
from cardproof.tlog.witness import SIZE_TYPE, request_body
from cardproof_service.log.tiles import TileCache
from cardproof_service.store import LogState, Store

log = logging.getLogger("cardproof.log")

TIMEOUT: Final = 5.0
"""Seconds a witness has to answer one request."""
RETRY_AFTER: Final = 5.0
"""Seconds before a checkpoint some witness did not cosign is sent again."""
MAX_ANSWER: Final = 8192
"""The longest answer read from a witness (a few cosignature lines)."""


class WitnessError(Exception):
    """A witness that did not cosign; the message says what it answered."""


class Witnesses:
    """A replica's calls to the log's witnesses: one call at a time to each, apart."""

    def __init__(
        self,
        witnesses: Sequence[tuple[str, str]],
        log_key: Verifier,
        store: Store,
        tiles: TileCache,
    ) -> None:
        """Witnesses by ``(base URL, cosignature verifier key)``, of the log of ``log_key``."""
        self.witnesses = [(url, Verifier.parse(vkey)) for url, vkey in witnesses]
        self.log_key = log_key
        self.store = store
        self.tiles = tiles
        self.sizes: dict[str, int] = {}
        """The size each witness last cosigned, as this replica knows it."""
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._done: dict[str, str] = {}
        """The checkpoint each witness cosigned last (nothing more to ask it for that one)."""
        self._retry: dict[str, tuple[str, float]] = {}
        self._writing = asyncio.Lock()
        self._client: httpx.AsyncClient | None = None

    def poke(self, state: LogState) -> None:
        """Ask each witness to cosign ``state``'s checkpoint, unless it is being asked.

        A witness still answering an older checkpoint is sent the newest after; one that
        failed is asked again after :data:`RETRY_AFTER`; none waits for another.
        """
        checkpoint = state.checkpoint
        if checkpoint is None:
            return
        for url, key in self.witnesses:
            task = self._tasks.get(url)
            if self._done.get(url) == checkpoint or (task is not None and not task.done()):
                continue
            retry = self._retry.get(url)
            if retry is not None and retry[0] == checkpoint and time.monotonic() < retry[1]:
                continue
            self._tasks[url] = asyncio.create_task(
                self.ask(url, key, state), name=f"cardproof-log-witness {url}"
            )

    async def end(self) -> None:
        """Stop asking (calls under way are cancelled) and close the connections."""
        tasks = [t for t in self._tasks.values() if t.get_loop() is asyncio.get_running_loop()]
        self._tasks = {}
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks, timeout=1.0)
        client, self._client = self._client, None
        if client is not None:
            await client.aclose()
        self._writing = asyncio.Lock()  # a later start may run in another event loop

    async def ask(self, url: str, key: Verifier, state: LogState) -> None:
        """Ask one witness; keep its cosignature with those the checkpoint has already."""
        checkpoint = state.checkpoint
        if checkpoint is None:
            return
        try:
            line = await self._cosign(url, key, state.size, checkpoint)
        except Exception as error:  # its answer, or the store: asked again later
            self._retry[url] = (checkpoint, time.monotonic() + RETRY_AFTER)
            if isinstance(error, WitnessError):
                log.warning(
                    "witness %s did not cosign the log's size %d: %s", url, state.size, error
                )
            else:
                log.exception("asking witness %s to cosign failed", url)
            return
        async with self._writing:  # one replica's witnesses add their lines in turn
            lines = self._kept_lines(await self.store.log_state())
            lines[key.vkey] = line
            note = checkpoint + "".join(lines[k.vkey] for _, k in self.witnesses if k.vkey in lines)
            await self.store.add_cosigned(state.size, note)  # refused once the log grew
        self._done[url] = checkpoint
        self._retry.pop(url, None)

    def _kept_lines(self, state: LogState) -> dict[str, str]:
        """The cosignatures the store holds already for this very checkpoint, by witness."""
        if state.cosigned is None or state.checkpoint is None:
            return {}
        try:
            opened = open_note(state.cosigned, [self.log_key, *(key for _, key in self.witnesses)])
        except NoteError:
            return {}
        if opened.text != split_note(state.checkpoint)[0]:
            return {}
        return {s.verifier.vkey: s.line for s in opened.signatures if s.verifier != self.log_key}

    def _http(self) -> httpx.AsyncClient:
        if self._client is None:
            self._client = httpx.AsyncClient(timeout=TIMEOUT, follow_redirects=False)
        return self._client

    async def _cosign(self, url: str, key: Verifier, size: int, checkpoint: str) -> str:
        """The witness's cosignature line of ``checkpoint`` (:class:`WitnessError`: none)."""
        old = self.sizes.get(url, 0)
        for _ in range(2):  # a witness this replica has not asked yet tells its size first
            if old > size:
                raise WitnessError(
                    f"it cosigned a tree of {old} entries, larger than this one: a rollback?"
                )
            proof = await self.tiles.consistency(old, size) if 0 < old < size else []
            try:
                answer = await self._http().post(
                    f"{url}/add-checkpoint", content=request_body(old, proof, checkpoint)
                )
            except httpx.HTTPError as error:
                raise WitnessError(f"unreachable: {error!r}") from None
            text = answer.content[:MAX_ANSWER].decode("utf-8", "replace")
            if answer.status_code == 409 and answer.headers.get("content-type", "").startswith(
                SIZE_TYPE
            ):
                try:
                    old = int(text.strip())
                except ValueError:
                    raise WitnessError(f"409 without a size: {text[:100]!r}") from None
                continue
            if answer.status_code != 200:
                raise WitnessError(f"{answer.status_code} {text.strip()[:200]!r}")
            line = self._verified(key, checkpoint, text)
            self.sizes[url] = size
            return line
        raise WitnessError("it asked for another old size twice")

    def _verified(self, key: Verifier, checkpoint: str, answer: str) -> str:
        """The line of ``answer`` that is ``key``'s valid cosignature of ``checkpoint``."""
        text = split_note(checkpoint)[0]
        Checkpoint.parse(text)
        for line in answer.splitlines(keepends=True):
            try:
                opened = open_note(checkpoint + line, [self.log_key, key], required=2)
            except NoteError:
                continue
            if any(s.verifier == key and s.timestamp is not None for s in opened.signatures):
                return line
        raise WitnessError(f"no valid cosignature by {key.name} in its answer")


__all__ = ["WitnessError", "Witnesses"]

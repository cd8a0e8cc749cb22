"""``/log/...``: the transparency log, read as C2SP tlog-tiles logs are read.

``GET /log/checkpoint`` (the signed tree head, cached a second or two), ``GET
/log/tile/<L>/<N>[.p/<W>]`` and ``GET /log/tile/entries/<N>[.p/<W>]`` (a tile's bytes:
immutable, cached a year), ``GET /log/key`` (the log's note verifier key). Outsiders'
tools for other tiled logs read it as it is (docs/protocol.md section 7). Beside C2SP's
paths, ``GET /log/proof/<leaf hash>`` finds an entry by its leaf hash, with its audit
path: how a verifier holding a receipt asks whether the log holds it.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Final

from litestar import Controller, Request, Response, get
from litestar.openapi.spec import Example
from litestar.params import Parameter

from cardproof.errors import ParseError
from cardproof.tlog.inclusion import LogProof
from cardproof_service.front.errors import problem_responses
from cardproof_service.log import Log
from cardproof_service.plumbing import not_found

TEXT: Final = "text/plain"
"""Served as ``text/plain; charset=utf-8`` (Litestar adds the charset)."""
TILE: Final = "application/octet-stream"
CHECKPOINT_CACHE: Final = "public, max-age=2"
"""A checkpoint changes at each fold: a cache may keep it two seconds at most."""
TILE_CACHE: Final = "public, max-age=31536000, immutable"
"""A tile path names one content forever (a partial one too: a prefix of the full)."""


def log_of(request: Request[Any, Any, Any]) -> Log:
    """The app's log."""
    log: Log = request.app.state.log
    return log


class LogController(Controller):
    """The transparency log's checkpoint, tiles and key."""

    path = "/log"
    tags = ("log",)

    @get(
        "/checkpoint",
        operation_id="getLogCheckpoint",
        summary="The log's latest checkpoint (a signed note)",
        media_type=TEXT,
        responses=problem_responses(503),
    )
    async def checkpoint(self, request: Request[Any, Any, Any]) -> Response[str]:
        """The origin, the size and the root hash, signed by the log key (C2SP tlog-checkpoint).

        Witnesses' cosignatures follow the log's signature once they have cosigned it.
        """
        note = await log_of(request).checkpoint()
        return Response(note, media_type=TEXT, headers={"Cache-Control": CHECKPOINT_CACHE})

    @get(
        "/key",
        operation_id="getLogKey",
        summary="The log's note verifier key",
        media_type=TEXT,
        responses=problem_responses(),
    )
    async def key(self, request: Request[Any, Any, Any]) -> Response[str]:
        """``origin+keyid+base64``, as Go's ``note`` package reads a verifier key; a line."""
        return Response(
            log_of(request).key + "\n",
            media_type=TEXT,
            headers={"Cache-Control": "public, max-age=3600"},
        )

    @get(
        "/proof/{leaf:str}",
        operation_id="getLogProof",
        summary="An entry found by its leaf hash, with its audit path",
        responses=problem_responses(
            400,
            404,
            503,
            e404="The log holds no entry of that leaf hash (yet: `not-in-log`).",
        ),
    )
    async def proof(
        self,
        request: Request[Any, Any, Any],
        leaf: Annotated[
            str,
            Parameter(
                description="The entry's leaf hash, SHA-256(0x00 || entry), in lower-case "
                "hex. A receipt's entry is known from the receipt alone "
                "(`cardproof.tlog.entries.receipt_entry`).",
                min_length=64,
                max_length=64,
                schema_extra={"pattern": "^[0-9a-f]{64}$"},  # checked below, saying the form
                examples=[Example(value="9f" * 32)],
            ),
        ],
    ) -> Response[LogProof]:
        """Where the log holds the entry: ``{index, entry, checkpoint, proof}``.

        Against the latest checkpoint (with its cosignatures), as a receipt answer's
        ``log`` is; not cached (the checkpoint moves on).
        """
        if not re.fullmatch("[0-9a-f]{64}", leaf):
            raise ParseError(
                "leaf: a leaf hash is 64 lower-case hex digits (the SHA-256 of 0x00 and the entry)",
                field="leaf",
            )
        found = await log_of(request).proof_of(bytes.fromhex(leaf))
        if found is None:
            raise not_found(
                f"the log holds no entry of leaf hash {leaf} (an entry is in it within "
                "about a second of its signing)",
                "not-in-log",
            )
        return Response(found, headers={"Cache-Control": "no-store"})

    @get(
        "/tile/{tile:path}",
        operation_id="getLogTile",
        summary="A tile of hashes, or an entry bundle",
        media_type=TILE,
        responses=problem_responses(
            400,
            404,
            503,
            e404="No such tile in the log's tree, or not in its one spelling (`unknown-tile`).",
        ),
    )
    async def tile(
        self,
        request: Request[Any, Any, Any],
        tile: Annotated[
            str,
            Parameter(
                description="The rest of the tile's path: `<L>/<N>[.p/<W>]` or "
                "`entries/<N>[.p/<W>]`, `N` in groups of three digits (`x001/234`).",
                examples=[Example(value="0/x001/234.p/17"), Example(value="entries/000")],
            ),
        ],
    ) -> Response[bytes]:
        """A hash tile or an entry bundle, as C2SP tlog-tiles names them.

        A full hash tile is 256 hashes of 32 bytes; a bundle holds each entry as a
        big-endian 2-byte length and its bytes.
        """
        path = f"tile{tile}"
        raw = request.scope.get("raw_path", b"").decode("latin-1").split("?")[0]
        if not raw.endswith(f"/log/{path}"):  # not //, a trailing /, %2F: one spelling
            raise not_found(
                f"a tile path has one spelling: /log/{path}, not {raw[-200:]!r}",
                "unknown-tile",
            )
        data = await log_of(request).tile(path)
        if data is None:
            raise not_found(
                f"the log holds no tile {path!r} (a tile of its tree, its index in groups "
                "of three digits)",
                "unknown-tile",
            )
        return Response(data, media_type=TILE, headers={"Cache-Control": TILE_CACHE})

"""Request ids, structured JSON logs and request metrics.

Every request gets an id: the client's ``X-Request-ID`` when it is a sane one (1 to 128
visible ASCII characters), else a fresh one. The response echoes it in
``X-Request-ID``, and the one log line written per request (logger
``cardproof.access``) carries it. Log lines are JSON objects: ``ts``, ``level``,
``logger``, ``msg`` and the line's fields. A request line holds the method, the path,
the status and the duration, never a header or a body, so no card, move, seed or key
reaches a log. The same middleware counts and times the request for ``/metrics``, by
its route template (``/v1/deals/{deal_id}``, or ``unmatched`` for a path no route
has), so ids never become labels. It wraps the router, so a 404 or 405 of the router
is seen too.
"""

from __future__ import annotations

import itertools
import logging
import os
import re
import threading
import time
from datetime import UTC, datetime
from typing import Any, ClassVar, Final

import msgspec
from litestar.types import Scope

REQUEST_ID_HEADER: Final = "x-request-id"
_SANE_ID: Final = re.compile(r"[\x21-\x7e]{1,128}")
access_log = logging.getLogger("cardproof.access")


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, message, pid and the record's fields.

    The pid says which worker wrote it (several may share a socket).

    One line is written per request, so this is cheap: msgspec encodes it, and the time
    is formatted once per second (``2026-11-23T20:14:35.041+00:00``, UTC).
    """

    def __init__(self) -> None:
        """A formatter with an empty time cache."""
        super().__init__()
        self._second = -1
        self._stamp = ""

    def _time(self, created: float) -> str:
        second = int(created)
        if second != self._second:
            self._stamp = datetime.fromtimestamp(second, UTC).strftime("%Y-%m-%dT%H:%M:%S")
            self._second = second
        return f"{self._stamp}.{int((created - second) * 1000):03d}+00:00"

    def format(self, record: logging.LogRecord) -> str:
        """The record as a JSON line (an exception adds its class and traceback)."""
        line: dict[str, Any] = {
            "ts": self._time(record.created),
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
            "pid": record.process,  # which worker: several share a socket
        }
        fields = getattr(record, "fields", None)
        if isinstance(fields, dict):
            line.update(fields)
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        return _LINE.encode(line).decode()


class JsonLinesHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """``cardproof serve``'s stderr: request lines written in batches, at most 0.1 s late.

    A write to stderr is a system call; one per request line was most of the line's cost.
    Request lines (:class:`AccessRecord`) gather here and leave together, when a
    background thread flushes them (every ``FLUSH_SECONDS``) or when 64 KB have gathered.
    Any other line (start-up, shutdown, a warning, an error) writes the batch and itself
    at once, in order, so uvicorn's shutdown lines still carry the last request lines out.
    A process killed outright loses at most the last ``FLUSH_SECONDS`` of request lines.
    """

    FLUSH_SECONDS: ClassVar[float] = 0.1
    BATCH_BYTES: ClassVar[int] = 65_536

    def __init__(self, stream: Any = None) -> None:
        """A handler on ``stream`` (stderr by default), with its flushing thread."""
        super().__init__(stream)
        self._batch: list[str] = []
        self._size = 0
        self._stopped = threading.Event()
        threading.Thread(target=self._flush_often, name="cardproof-log-flush", daemon=True).start()

    def emit(self, record: logging.LogRecord) -> None:
        """Add the record's line to the batch (``Handler.handle`` holds the lock)."""
        try:
            line = self.format(record) + "\n"
            self._batch.append(line)
            self._size += len(line)
            if not isinstance(record, AccessRecord) or self._size >= self.BATCH_BYTES:
                self._write()
        except RecursionError:
            raise
        except Exception:
            self.handleError(record)

    def _write(self) -> None:
        """Write the batch in one call (the caller holds the lock)."""
        if self._batch:
            text = "".join(self._batch)
            self._batch.clear()
            self._size = 0
            self.stream.write(text)
            self.stream.flush()

    def flush(self) -> None:
        """Write what has gathered now."""
        with self.lock:  # type: ignore[union-attr]
            self._write()

    def close(self) -> None:
        """Write the rest and stop the flushing thread."""
        self._stopped.set()
        self.flush()
        super().close()

    def _flush_often(self) -> None:
        while not self._stopped.wait(self.FLUSH_SECONDS):
            self.flush()


def _plain(value: Any) -> str:
    """What a log line shows for a value JSON has no form for."""
    return str(value)


_LINE = msgspec.json.Encoder(enc_hook=_plain)


class AccessRecord(logging.LogRecord):
    """The access line's record, made in a fraction of ``Logger.info``'s time.

    ``Logger.info`` looks up its caller's frame and computes some twenty attributes; the
    access line needs only its fields and time, so the rest are copied from one dict of
    constants. Handed to ``Logger.handle``, it goes through the configured filters and
    handlers like any other record (logging's own optimisation advice, for one hot line).
    """

    def __init__(self, fields: dict[str, Any]) -> None:
        """The record of one request's ``fields``, made now."""
        self.__dict__.update(_ACCESS_CONSTANTS)
        self.fields = fields
        self.created = created = time.time()
        self.msecs = (created - int(created)) * 1000
        self.relativeCreated = (created - _STARTED) * 1000
        self.process = os.getpid()


_STARTED: Final = time.time()
_ACCESS_CONSTANTS: Final[dict[str, Any]] = {
    "name": access_log.name,
    "msg": "request",
    "args": (),
    "levelname": "INFO",
    "levelno": logging.INFO,
    "pathname": __file__,
    "filename": "observability.py",
    "module": "observability",
    "lineno": 0,
    "funcName": "log_access",
    "exc_info": None,
    "exc_text": None,
    "stack_info": None,
    "thread": None,
    "threadName": None,
    "processName": None,
    "taskName": None,
}


def request_id_of(scope: Scope) -> str:
    """The request's id: the client's ``X-Request-ID`` if it is sane, else a new one."""
    for name, value in scope.get("headers", ()):
        if name == b"x-request-id":
            text = value.decode("latin-1")
            if _SANE_ID.fullmatch(text):
                return text
            break
    return new_request_id()


class _RequestIds:
    """Fresh request ids: 16 random hex digits per process, then 16 of a counter.

    Unique without a random draw per request (a ``uuid4`` cost more than the rest of the
    id's work); the prefix is drawn again in a forked child, so workers never share one.
    """

    def __init__(self) -> None:
        self.pid = -1
        self.prefix = ""
        self.counter = itertools.count()

    def __call__(self) -> str:
        pid = os.getpid()
        if pid != self.pid:
            self.pid, self.prefix = pid, os.urandom(8).hex()
        return f"{self.prefix}{next(self.counter) & 0xFFFF_FFFF_FFFF_FFFF:016x}"


new_request_id: Final = _RequestIds()
"""A new request id: 32 hex digits, as a ``uuid4``'s were."""


def log_access(request_id: str, method: str, path: str, status: int, seconds: float) -> None:
    """One request's access line (``cardproof.access``, at INFO), if that level is on."""
    if access_log.isEnabledFor(logging.INFO):
        fields = {
            "request_id": request_id,
            "method": method,
            "path": path,
            "status": status,
            "duration_ms": round(seconds * 1e3, 3),
        }
        access_log.handle(AccessRecord(fields))


def logging_config(level: str) -> dict[str, Any]:
    """The ``logging.config.dictConfig`` of ``cardproof serve``: JSON lines on stderr.

    uvicorn's own access log is off (``cardproof.access`` writes one line per request,
    with its id); ``level`` is uvicorn's ``--log-level`` (``trace`` counts as debug).
    """
    name = "DEBUG" if level.lower() == "trace" else level.upper()
    handler = {"()": JsonLinesHandler, "formatter": "json", "stream": "ext://sys.stderr"}
    quiet = {"handlers": [], "level": "WARNING", "propagate": False}
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"json": {"()": f"{__name__}.JsonFormatter"}},
        "handlers": {"stderr": handler},
        "loggers": {
            "uvicorn": {"handlers": ["stderr"], "level": name, "propagate": False},
            "uvicorn.access": quiet,
            "cardproof": {"handlers": ["stderr"], "level": name, "propagate": False},
        },
    }


__all__ = [
    "REQUEST_ID_HEADER",
    "AccessRecord",
    "JsonFormatter",
    "JsonLinesHandler",
    "log_access",
    "logging_config",
    "request_id_of",
]

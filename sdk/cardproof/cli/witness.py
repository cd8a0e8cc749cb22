"""``cardproof witness``: make a witness's key, and run a witness (C2SP tlog-witness).

``keygen NAME`` prints the signer key (``PRIVATE+KEY+...``: keep it secret) and its
verifier key, one line each. ``serve`` answers ``POST /add-checkpoint`` for the logs it
is given, cosigning each checkpoint that extends the last one it cosigned
(:mod:`cardproof.tlog.witness`), and keeps what it cosigned in ``--state``.
"""

from __future__ import annotations

import argparse
import os
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from cardproof.tlog.note import COSIGNATURE_V1, NoteError, Signer, Verifier
from cardproof.tlog.witness import MAX_BODY, Answer, Witness


def keygen(args: argparse.Namespace) -> int:
    """Print a new witness key: the signer key, then the verifier key."""
    try:
        signer = Signer.generate(args.name, COSIGNATURE_V1)
    except NoteError as error:
        print(f"cardproof witness keygen: {error}", file=sys.stderr)
        return 2
    print(signer.skey)
    print(signer.verifier.vkey)
    print("# the first line is the secret signer key: keep it in a file only you read",
          file=sys.stderr)  # fmt: skip
    return 0


def handler(witness: Witness) -> type[BaseHTTPRequestHandler]:
    """The request handler of a witness: ``POST /add-checkpoint``, nothing else."""

    class Handler(BaseHTTPRequestHandler):
        server_version = "cardproof-witness"
        protocol_version = "HTTP/1.1"

        def _send(self, answer: Answer) -> None:
            self.send_response(answer.status)
            self.send_header("Content-Type", answer.content_type)
            self.send_header("Content-Length", str(len(answer.body)))
            self.end_headers()
            self.wfile.write(answer.body)

        def do_POST(self) -> None:
            if self.path != "/add-checkpoint":
                self._send(Answer(404, "text/plain; charset=utf-8", b"not found\n"))
                return
            try:
                length = int(self.headers.get("Content-Length", ""))
            except ValueError:
                self._send(Answer(411, "text/plain; charset=utf-8", b"a length is needed\n"))
                return
            if not 0 <= length <= MAX_BODY:
                self.close_connection = True
                self._send(Answer(413, "text/plain; charset=utf-8", b"the body is too big\n"))
                return
            self._send(witness.add_checkpoint(self.rfile.read(length)))

        def do_GET(self) -> None:
            self._send(Answer(404, "text/plain; charset=utf-8", b"not found\n"))

        def log_message(self, format: str, *args: object) -> None:
            sys.stderr.write(f"{self.address_string()} {format % args}\n")

    return Handler


def make_server(args: argparse.Namespace) -> ThreadingHTTPServer:
    """The witness's server, bound and ready (``ValueError`` for a bad key or log)."""
    signer = Signer.parse(Path(args.key).read_text().strip().splitlines()[0])
    if signer.kind != COSIGNATURE_V1:
        raise ValueError("the key is not a witness's (cosignature/v1, type 0x04)")
    logs = [Verifier.parse(vkey) for vkey in args.log]
    state = Path(args.state or default_state())
    state.parent.mkdir(parents=True, exist_ok=True)
    server = ThreadingHTTPServer((args.host, args.port), handler(Witness(signer, logs, state)))
    server.daemon_threads = True
    return server


def serve(args: argparse.Namespace) -> int:
    """Run the witness until interrupted."""
    try:
        server = make_server(args)
    except (OSError, ValueError) as error:
        print(f"cardproof witness serve: {error}", file=sys.stderr)
        return 2
    host, port = str(server.server_address[0]), int(server.server_address[1])
    print(f"witnessing {', '.join(args.log)} at http://{host}:{port}/add-checkpoint", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


def default_state() -> str:
    """``$XDG_STATE_HOME/cardproof/witness.json`` (an absolute one), else under ~/.local."""
    state = os.environ.get("XDG_STATE_HOME", "")
    base = Path(state) if os.path.isabs(state) else Path.home() / ".local" / "state"
    return str(base / "cardproof" / "witness.json")


__all__ = ["default_state", "handler", "keygen", "make_server", "serve"]

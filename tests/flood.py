"""A flood from one address: ``python tests/flood.py HOST PORT N`` opens N connections.

It prints ``opened N`` once all are connected (the server may close those over its cap at
once), then trickles a byte of a request's head into each every 2 s, holding them all,
until it is stopped. tests/test_door.py runs two of these (a process has 20,000 file
descriptors here, too few for 20,000 connections and the rest).
"""

from __future__ import annotations

import contextlib
import resource
import socket
import sys
import time


def main() -> None:
    """Open, report, trickle."""
    host, port, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    held = []
    for _ in range(count):
        sock = socket.socket()
        sock.settimeout(10)
        sock.bind(("127.0.0.1", 0))
        sock.connect((host, port))
        sock.setblocking(False)
        held.append(sock)
    print("opened", len(held), flush=True)
    while True:
        for sock in held:
            with contextlib.suppress(OSError):  # closed by the server: held here all the same
                sock.send(b"G")
        time.sleep(2)


if __name__ == "__main__":
    main()

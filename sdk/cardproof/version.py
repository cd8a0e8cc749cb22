"""The SDK's version and default server, on their own so that any module can read them.

``cardproof.__version__`` is ``VERSION``; the request core sends it in ``User-Agent``,
and the command line prints it and ``DEFAULT_BASE_URL`` in its help, neither importing
the HTTP client.
"""

from typing import Final

VERSION: Final = "0.1.0"

DEFAULT_BASE_URL: Final = "http://127.0.0.1:8000"
"""The server a client or command talks to when none is named: ``cardproof serve``'s."""

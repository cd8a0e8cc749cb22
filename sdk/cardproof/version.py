"""The SDK's version, on its own so that modules under the package can read it.

``cardproof.__version__`` is this; the request core sends it in ``User-Agent``
without importing the package (which imports the clients: an import circle).
"""

from typing import Final

VERSION: Final = "0.1.0"

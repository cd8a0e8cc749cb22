"""The door: the HTTP layer in front of the app, with deadlines, limits and HTTP/2.

``cardproof serve`` runs uvicorn with :class:`DoorProtocol` (``http=``): HTTP/1.1 on
httptools with the deadlines and limits of ``DoorSettings`` (the README's "Limits"), the
connection caps by address, ``Upgrade: h2c`` offers served as HTTP/1.1 and HTTP/2 with
prior knowledge on the same port (:mod:`.http2`).
"""

from cardproof_service.door.http1 import DoorProtocol

__all__ = ["DoorProtocol"]

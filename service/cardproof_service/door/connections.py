"""The connections one process holds, by address: the cap per address and the total cap.

Each connection counts against its address (an IPv4 address; an IPv6 client's /64, as it
can send from any address of it) from the moment it is accepted. One over the address's
cap, or over the process's, is closed at once: a flood from one address then costs the
process an accept and a close per connection, never a file descriptor held, so other
addresses go on being served. Addresses of the proxies ``FORWARDED_ALLOW_IPS`` trusts are
exempt from the address cap (their clients are capped at the edge: deploy/README.md).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from functools import lru_cache
from typing import Final

from cardproof_service.plumbing import DoorSettings

ANYONE: Final = "*"
"""``FORWARDED_ALLOW_IPS``'s word for every address."""


@lru_cache(maxsize=8192)
def address_key(host: str) -> str:
    """What one address is for the cap: an IPv4 address, an IPv6 address's /64.

    >>> address_key("2001:db8:1:2:aaaa::1"), address_key("::ffff:192.0.2.7")
    ('2001:db8:1:2::/64', '192.0.2.7')
    >>> address_key("127.0.0.1") == address_key("127.0.0.2")
    False
    """
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return host
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((int(ip) >> 64 << 64, 64)))
    return str(ip)


def trusted_networks(text: str) -> tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...] | None:
    """``FORWARDED_ALLOW_IPS`` as networks (``None``: ``*``, everyone); names are ignored.

    >>> trusted_networks("10.0.0.0/8, 192.0.2.1")
    (IPv4Network('10.0.0.0/8'), IPv4Network('192.0.2.1/32'))
    >>> trusted_networks("*") is None
    True
    """
    networks = []
    for item in (part.strip() for part in text.split(",")):
        if item == ANYONE:
            return None
        try:
            networks.append(ipaddress.ip_network(item, strict=False))
        except ValueError:
            continue  # a Unix socket's name or an empty item: no address to exempt
    return tuple(networks)


class Connections:
    """The process's open connections, counted by address."""

    def __init__(self, settings: DoorSettings, trusted: str = "") -> None:
        """Caps from ``settings``; ``trusted``: ``FORWARDED_ALLOW_IPS``."""
        self.per_address = settings.connections_per_address
        self.most = settings.max_connections
        self.total = 0
        self.by_address: dict[str, int] = {}
        self._trusted = trusted_networks(trusted)

    def exempt(self, host: str) -> bool:
        """Whether ``host`` is a trusted proxy's (no address cap)."""
        if self._trusted is None:
            return True
        return self._trusted != () and _within(host, self._trusted)

    def open(self, host: str | None) -> str | None:
        """Count a new connection from ``host``; its key, or ``None`` if it must be closed.

        Over the process's cap it is refused; over its address's too (unless exempt).
        """
        if self.total >= self.most:
            return None
        key = address_key(host) if host is not None else ""
        held = self.by_address.get(key, 0)
        if self.per_address and held >= self.per_address and not self.exempt(host or ""):
            return None
        self.by_address[key] = held + 1
        self.total += 1
        return key

    def close(self, key: str) -> None:
        """A connection counted under ``key`` is closed."""
        self.total -= 1
        held = self.by_address[key] - 1
        if held:
            self.by_address[key] = held
        else:
            del self.by_address[key]


@lru_cache(maxsize=4096)
def _within(host: str, networks: Iterable[ipaddress.IPv4Network | ipaddress.IPv6Network]) -> bool:
    """Whether ``host`` (an address as text) lies in one of ``networks``."""
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return False
    return any(ip in network for network in networks)


__all__ = ["Connections", "address_key", "trusted_networks"]

"""The host check of ``ingest_url``: which addresses a fetch may connect to.

The URL is usually chosen by a language model that may be acting on text from an
indexed document, so a fetch must not reach cloud metadata (169.254.169.254), services
on localhost, or the LAN. An address is refused when it is loopback, link-local,
private, reserved, unspecified, multicast or CGNAT (100.64.0.0/10), and IPv6 forms that
carry an IPv4 address (IPv4-mapped ``::ffff:``, 6to4 ``2002::/16``, Teredo ``2001::/32``,
NAT64 ``64:ff9b::/96``) are judged by the IPv4 address they carry. A host name is refused
when *any* of its addresses is refused.

:func:`resolve_host` returns the checked addresses; the fetcher connects to exactly those,
so a second DNS answer cannot swap in another (DNS rebinding).
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable

from minirag_store.errors import FetchError, UrlRefusedError

__all__ = ["Guard", "Resolver", "blocked_reason", "resolve_host", "system_resolver"]

#: ``(host, port) -> addresses`` as strings; tests inject their own to stay offline.
Resolver = Callable[[str, int], list[str]]
#: ``address -> why it is refused, or None``; :func:`blocked_reason` unless a test injects one.
Guard = Callable[[str], str | None]

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
_CGNAT = ipaddress.ip_network("100.64.0.0/10")
_NAT64 = (ipaddress.ip_network("64:ff9b::/96"), ipaddress.ip_network("64:ff9b:1::/48"))


def system_resolver(host: str, port: int) -> list[str]:
    """The operating system's answer for ``host``: every address, deduplicated, in order."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


def _embedded_ipv4(ip: ipaddress.IPv6Address) -> tuple[str, ipaddress.IPv4Address] | None:
    """The IPv4 address an IPv6 transition form carries, with the form's name."""
    if ip.ipv4_mapped is not None:
        return "IPv4-mapped", ip.ipv4_mapped
    if ip.sixtofour is not None:
        return "6to4", ip.sixtofour
    if ip.teredo is not None:
        return "Teredo", ip.teredo[1]
    if any(ip in net for net in _NAT64):
        return "NAT64", ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    return None


def _plain_reason(ip: IPAddress) -> str | None:
    checks = (
        (ip.is_unspecified, "unspecified"),
        (ip.is_loopback, "loopback"),
        (ip.is_link_local, "link-local"),
        (ip.is_multicast, "multicast"),
        (isinstance(ip, ipaddress.IPv4Address) and ip in _CGNAT, "carrier-grade NAT (CGNAT)"),
        (ip.is_reserved, "reserved"),
        (ip.is_private, "private"),
        (not ip.is_global, "non-public"),
    )
    return next((reason for hit, reason in checks if hit), None)


def blocked_reason(address: str) -> str | None:
    """Why ``address`` may not be fetched from (e.g. ``"loopback"``), or None when public."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])  # drop an IPv6 zone id
    if isinstance(ip, ipaddress.IPv6Address):
        embedded = _embedded_ipv4(ip)
        if embedded is not None:
            form, inner = embedded
            reason = _plain_reason(inner)
            if reason is None and form == "Teredo":
                reason = _plain_reason(ip)  # the Teredo prefix itself is not global
            return f"{form} {reason} ({inner})" if reason else None
    return _plain_reason(ip)


def _literal(host: str) -> str | None:
    try:
        return str(ipaddress.ip_address(host.strip("[]").split("%", 1)[0]))
    except ValueError:
        return None


def resolve_host(
    host: str,
    port: int,
    *,
    resolver: Resolver,
    allow_private: bool,
    redirected_from: str | None = None,
    guard: Guard | None = None,
) -> list[str]:
    """The addresses to connect to for ``host``, every one of them checked.

    Raises :class:`UrlRefusedError` (naming the host, the address, the reason, and the
    redirect that led there) when any address is blocked and ``allow_private`` is off;
    :class:`FetchError` when the name does not resolve.
    """
    literal = _literal(host)
    if literal is not None:
        addresses = [literal]
    else:
        try:
            addresses = [a for a in resolver(host, port) if a]
        except (OSError, UnicodeError) as e:
            raise FetchError(f"Could not resolve host {host}: {e}") from e
        if not addresses:
            raise FetchError(f"Could not resolve host {host}: no addresses")
    if allow_private:
        return addresses
    check = guard or blocked_reason
    for address in addresses:
        reason = check(address)
        if reason is not None:
            via = (
                f" (the fetch was redirected there from {redirected_from})"
                if redirected_from
                else ""
            )
            raise UrlRefusedError(
                f"Refused to fetch from host {host}: it resolves to {address}, a {reason} "
                f"address{via}. Private and local hosts are refused unless "
                "ALLOW_PRIVATE_URLS=1 is set."
            )
    return addresses

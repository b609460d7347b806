"""Fetching an http(s) URL for ``ingest_url``, safely.

- Only ``http`` and ``https``: ``file:`` and ``data:`` would read local files or bypass
  the host check, so they are refused even with ``ALLOW_PRIVATE_URLS``.
- The host of the URL and of every redirect hop is checked (:mod:`minirag_store.ingest.netguard`),
  redirects are followed here, one hop at a time, at most 5.
- The connection goes to the very address that was checked (urllib3 pool on the IP), with
  the ``Host`` header, TLS SNI and certificate check still using the host name, so a DNS
  answer that changes between check and connect cannot redirect the fetch (rebinding).
- Connect and read timeouts, an overall deadline, and ``MAX_FILE_SIZE`` enforced while
  the body streams in.

The body is then converted by its content type (:func:`convert_fetched`).

A refusal is :class:`UrlRefusedError`; anything that goes wrong with a permitted fetch is
:class:`FetchError`; both name the host.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin, urlsplit

from minirag_store.errors import ConversionError, FetchError, InvalidArgumentError, UrlRefusedError
from minirag_store.ingest.netguard import Guard, Resolver, resolve_host, system_resolver

if TYPE_CHECKING:
    from minirag_store.config import Config
    from minirag_store.convert.engine import Converted

__all__ = [
    "MAX_REDIRECTS",
    "Fetched",
    "Timeouts",
    "UrlTarget",
    "check_url",
    "convert_fetched",
    "fetch",
]

MAX_REDIRECTS = 5
_REDIRECT_CODES = frozenset({301, 302, 303, 307, 308})
_CHUNK = 64 * 1024
_USER_AGENT = "minirag (+https://pypi.org/project/minirag-store/)"
_ACCEPT = "text/markdown, text/html;q=0.9, text/plain;q=0.8, */*;q=0.1"


@dataclass(frozen=True)
class Timeouts:
    """Seconds allowed to connect, between two reads, and for the whole fetch."""

    connect: float = 10.0
    read: float = 30.0
    total: float = 120.0


@dataclass(frozen=True)
class Fetched:
    """A fetched response: where it ended up, its Content-Type, body, and redirect chain."""

    final_url: str
    content_type: str
    body: bytes
    redirects: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class UrlTarget:
    """A checked http(s) URL taken apart for one request."""

    url: str
    scheme: str
    host: str
    port: int
    path: str
    host_header: str


def check_url(url: str, *, redirected_from: str | None = None) -> UrlTarget:
    """Parse ``url``; refuse any scheme but http/https and a URL without a host."""
    if not isinstance(url, str) or not url.strip():
        raise InvalidArgumentError("A URL is required, e.g. https://example.com/page")
    text = url.strip()
    parts = urlsplit(text)
    scheme = parts.scheme.lower()
    via = f" (redirected there from {redirected_from})" if redirected_from else ""
    if scheme not in ("http", "https"):
        raise UrlRefusedError(
            f"Only http and https URLs can be ingested; refused {scheme or 'a relative'} URL "
            f"{text[:100]}{via}"
        )
    try:
        host, port = parts.hostname, parts.port
    except ValueError as e:
        raise InvalidArgumentError(f"Invalid URL {text[:100]}: {e}") from e
    if not host:
        raise InvalidArgumentError(f"The URL {text[:100]} has no host")
    port = port or (443 if scheme == "https" else 80)
    path = parts.path or "/"
    if parts.query:
        path += "?" + parts.query
    bracketed = f"[{host}]" if ":" in host else host
    default = port == (443 if scheme == "https" else 80)
    header = bracketed if default else f"{bracketed}:{port}"
    return UrlTarget(text, scheme, host, port, path, header)


def _pool(target: UrlTarget, address: str, timeouts: Timeouts, ca_file: str | None) -> Any:
    """A one-connection urllib3 pool that connects to ``address`` but speaks to ``host``."""
    import urllib3

    timeout = urllib3.Timeout(connect=timeouts.connect, read=timeouts.read)
    if target.scheme == "http":
        return urllib3.HTTPConnectionPool(address, target.port, timeout=timeout, retries=False)
    import certifi

    return urllib3.HTTPSConnectionPool(
        address,
        target.port,
        timeout=timeout,
        retries=False,
        cert_reqs="CERT_REQUIRED",
        ca_certs=ca_file or certifi.where(),
        server_hostname=target.host,  # SNI names the host, not the pinned address
        assert_hostname=target.host,  # and the certificate must be the host's
    )


def _request(
    target: UrlTarget, addresses: list[str], timeouts: Timeouts, ca_file: str | None
) -> tuple[Any, Any]:
    """``(pool, response)`` from the first checked address that accepts a connection."""
    import urllib3

    headers = {"Host": target.host_header, "User-Agent": _USER_AGENT, "Accept": _ACCEPT}
    error: FetchError | None = None
    for address in addresses:
        pool = _pool(target, address, timeouts, ca_file)
        try:
            response = pool.urlopen(
                "GET", target.path, headers=headers, redirect=False, preload_content=False,
                assert_same_host=False,
            )  # fmt: skip
        except (urllib3.exceptions.NewConnectionError, urllib3.exceptions.ConnectTimeoutError) as e:
            pool.close()
            error = FetchError(_describe(e, target, address))
            error.__cause__ = e
            continue  # another checked address of the same host may answer
        except urllib3.exceptions.HTTPError as e:
            pool.close()
            raise FetchError(_describe(e, target, address)) from e
        return pool, response
    assert error is not None
    raise error


def _describe(error: Exception, target: UrlTarget, address: str) -> str:
    import urllib3

    where = f"{target.host} ({address})" if address != target.host else target.host
    if isinstance(error, urllib3.exceptions.NewConnectionError):
        return f"Could not connect to {where}: {error}"
    if isinstance(error, urllib3.exceptions.ConnectTimeoutError):
        return f"Timed out connecting to {where} ({error})"
    if isinstance(error, urllib3.exceptions.ReadTimeoutError):
        return f"Timed out waiting for {where} to answer {target.url}"
    if isinstance(error, urllib3.exceptions.SSLError):
        return f"TLS error talking to {target.host}: {error}"
    return f"Fetching {target.url} from {target.host} failed: {error}"


def _read_body(response: Any, target: UrlTarget, limit: int, deadline: float) -> bytes:
    """The body, streamed, stopped as soon as it passes ``limit`` or the deadline."""
    import urllib3

    declared = response.headers.get("Content-Length")
    if declared and declared.isdigit() and int(declared) > limit:
        raise FetchError(
            f"{target.url} from {target.host} is {int(declared):,} bytes, over MAX_FILE_SIZE "
            f"({limit:,} bytes)"
        )
    chunks: list[bytes] = []
    total = 0
    try:
        for chunk in response.stream(_CHUNK):
            total += len(chunk)
            if total > limit:
                raise FetchError(
                    f"{target.url} from {target.host} is larger than MAX_FILE_SIZE "
                    f"({limit:,} bytes); stopped reading"
                )
            if time.monotonic() > deadline:
                raise FetchError(f"Fetching {target.url} from {target.host} took too long")
            chunks.append(chunk)
    except urllib3.exceptions.HTTPError as e:
        raise FetchError(_describe(e, target, target.host)) from e
    return b"".join(chunks)


def fetch(
    url: str,
    config: Config,
    *,
    resolver: Resolver | None = None,
    timeouts: Timeouts | None = None,
    guard: Guard | None = None,
    ca_file: str | None = None,
) -> Fetched:
    """GET ``url`` under the rules in the module docstring and return the response.

    ``resolver`` maps ``(host, port)`` to addresses (default: the system resolver); the
    fetch connects only to addresses it returned and ``guard`` (default
    :func:`~minirag_store.ingest.netguard.blocked_reason`) accepted. Both exist for tests.
    ``ca_file`` replaces certifi's CA bundle (a corporate CA, or a test's own).
    """
    resolve = resolver or system_resolver
    limits = timeouts or Timeouts()
    deadline = time.monotonic() + limits.total
    target = check_url(url)
    redirects: list[str] = []
    previous: str | None = None
    for _hop in range(MAX_REDIRECTS + 1):
        addresses = resolve_host(
            target.host, target.port, resolver=resolve,
            allow_private=config.allow_private_urls, redirected_from=previous, guard=guard,
        )  # fmt: skip
        pool, response = _request(target, addresses, limits, ca_file)
        try:
            location = response.headers.get("Location")
            if response.status in _REDIRECT_CODES and location:
                previous = target.url
                target = check_url(urljoin(target.url, location), redirected_from=previous)
                redirects.append(target.url)
                continue
            if response.status >= 400:
                raise FetchError(f"{target.host} answered HTTP {response.status} for {target.url}")
            body = _read_body(response, target, config.max_file_size, deadline)
            content_type = response.headers.get("Content-Type", "")
            return Fetched(target.url, content_type, body, redirects)
        finally:
            response.release_conn()
            pool.close()
    raise FetchError(f"Too many redirects (more than {MAX_REDIRECTS}) fetching {url}")


_TEXT_TYPES: dict[str, str] = {
    "text/html": "html",
    "application/xhtml+xml": "html",
    "text/markdown": "markdown",
    "text/x-markdown": "markdown",
    "text/plain": "text",
}
_FILE_TYPES: dict[str, str] = {
    "application/pdf": ".pdf",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document": ".docx",
    "application/vnd.openxmlformats-officedocument.presentationml.presentation": ".pptx",
    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": ".xlsx",
    "application/epub+zip": ".epub",
    "text/csv": ".csv",
}


def convert_fetched(fetched: Fetched, config: Config, title: str | None) -> Converted:
    """Convert a fetched body by its content type (falling back to the URL's suffix)."""
    from minirag_store.convert.converter import convert_data
    from minirag_store.convert.encoding import decode_text

    body = fetched.body
    ctype = (fetched.content_type or "").split(";")[0].strip().lower()
    final_url = fetched.final_url
    suffix = _FILE_TYPES.get(ctype) or Path(urlsplit(final_url).path).suffix.lower()
    fmt = _TEXT_TYPES.get(ctype)
    if fmt is None and suffix in {".html", ".htm", ".md", ".markdown", ".txt"}:
        fmt = {".md": "markdown", ".markdown": "markdown", ".txt": "text"}.get(suffix, "html")
    if fmt is not None:
        return convert_data(decode_text(body, html=fmt == "html"), fmt, title)
    if suffix not in _FILE_TYPES.values():
        raise ConversionError(
            f"{final_url} returned {ctype or 'an unknown content type'}, which minirag cannot "
            "convert; supported: html, text, markdown, pdf, docx, pptx, xlsx, epub, csv"
        )
    return _convert_bytes_as_file(config, body, suffix, title)


def _convert_bytes_as_file(
    config: Config, body: bytes, suffix: str, title: str | None
) -> Converted:
    import tempfile

    from minirag_store.convert.converter import convert_file
    from minirag_store.convert.engine import Converted

    with tempfile.TemporaryDirectory(prefix="minirag-url-") as tmp:
        path = Path(tmp) / f"download{suffix}"
        path.write_bytes(body)
        converted = convert_file(path, config)
    # The temp name says nothing; an explicit title wins, else the document's own.
    chosen = title or (converted.title if converted.title != "download" else None)
    return Converted(converted.markdown, chosen, converted.ocr_engine, converted.marks)

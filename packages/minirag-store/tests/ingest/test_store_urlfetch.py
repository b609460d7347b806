"""The URL fetcher against a real HTTP server on 127.0.0.1; never the internet.

The loopback server stands in for a public host: tests inject a resolver that maps
made-up names to 127.0.0.1 and a guard that treats 127.0.0.1 as public while judging
every other address by the real rules.
"""

from __future__ import annotations

import contextlib
import dataclasses
import socket
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from minirag_store.config import Config, load_config
from minirag_store.errors import FetchError, InvalidArgumentError, UrlRefusedError
from minirag_store.ingest.netguard import blocked_reason
from minirag_store.ingest.urlfetch import Timeouts, fetch

PAGE = b"<html><head><title>Hello</title></head><body><h1>Public page</h1></body></html>"


class _Handler(BaseHTTPRequestHandler):
    """Routes: /page, /redirect?to=URL, /chain/N (N hops to /page), /slow, /big ..."""

    seen_hosts: list[str] = []  # noqa: RUF012 - shared log the tests read

    def log_message(self, format: str, *args: object) -> None:
        pass  # keep test output clean

    def _send(self, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        # The client may have given up first (the timeout tests): expected.
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            self.wfile.write(body)

    def do_GET(self) -> None:
        type(self).seen_hosts.append(self.headers.get("Host", ""))
        path, _, query = self.path.partition("?")
        if path == "/page":
            self._send(200, PAGE, {"Content-Type": "text/html; charset=utf-8"})
        elif path == "/redirect":
            self._send(302, b"", {"Location": query.removeprefix("to=")})
        elif path.startswith("/chain/"):
            n = int(path.rsplit("/", 1)[1])
            if n == 0:
                self._send(200, PAGE, {"Content-Type": "text/html"})
            else:
                self._send(302, b"", {"Location": f"/chain/{n - 1}"})
        elif path == "/slow":
            time.sleep(2)
            self._send(200, b"late")
        elif path == "/big":
            self._send(200, b"x" * 50_000, {"Content-Type": "text/plain"})
        elif path == "/big-chunked":
            self._chunked(b"y" * 4096, 20)
        else:
            self._send(404, b"not here")

    def _chunked(self, piece: bytes, count: int) -> None:
        """A body with no Content-Length, so only the streaming cap can stop it."""
        self.send_response(200)
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        for _ in range(count):
            self.wfile.write(f"{len(piece):x}\r\n".encode() + piece + b"\r\n")
        self.wfile.write(b"0\r\n\r\n")


@pytest.fixture(scope="module")
def server() -> Iterator[int]:
    """A threaded HTTP server on 127.0.0.1; yields its port."""
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield httpd.server_address[1]
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture
def config(tmp_path: Path) -> Config:
    return load_config({"BASE_DIR": str(tmp_path)})


def _resolver(table: dict[str, list[str]]):
    def resolve(host: str, port: int) -> list[str]:
        if host not in table:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return table[host]

    return resolve


def loopback_is_public(address: str) -> str | None:
    """The real guard, except that the test server's 127.0.0.1 counts as a public host."""
    return None if address == "127.0.0.1" else blocked_reason(address)


PUBLIC = _resolver({"public.test": ["127.0.0.1"], "other.test": ["127.0.0.1"]})


def test_fetches_a_page_keeping_the_host_header(server: int, config: Config) -> None:
    _Handler.seen_hosts.clear()
    got = fetch(
        f"http://public.test:{server}/page", config, resolver=PUBLIC, guard=loopback_is_public
    )
    assert got.body == PAGE
    assert got.content_type.startswith("text/html")
    assert got.final_url == f"http://public.test:{server}/page"
    assert got.redirects == []
    assert _Handler.seen_hosts == [f"public.test:{server}"]


def test_follows_a_permitted_redirect_and_reports_the_chain(server: int, config: Config) -> None:
    start = f"http://public.test:{server}/redirect?to=http://other.test:{server}/page"
    got = fetch(start, config, resolver=PUBLIC, guard=loopback_is_public)
    assert got.body == PAGE
    assert got.redirects == [f"http://other.test:{server}/page"]
    assert got.final_url == f"http://other.test:{server}/page"


def test_redirect_to_the_metadata_address_is_refused(server: int, config: Config) -> None:
    start = f"http://public.test:{server}/redirect?to=http://169.254.169.254/latest/meta-data/"
    with pytest.raises(UrlRefusedError) as info:
        fetch(start, config, resolver=PUBLIC, guard=loopback_is_public)
    message = str(info.value)
    assert "169.254.169.254" in message
    assert "link-local" in message
    assert "redirected there from" in message and "public.test" in message


def test_redirect_to_a_name_resolving_privately_is_refused(server: int, config: Config) -> None:
    resolve = _resolver({"public.test": ["127.0.0.1"], "intranet.test": ["10.1.2.3"]})
    start = f"http://public.test:{server}/redirect?to=http://intranet.test/admin"
    with pytest.raises(UrlRefusedError, match=r"intranet\.test.*10\.1\.2\.3.*private"):
        fetch(start, config, resolver=resolve, guard=loopback_is_public)


def test_redirect_to_file_scheme_is_refused(server: int, config: Config) -> None:
    start = f"http://public.test:{server}/redirect?to=file:///etc/passwd"
    with pytest.raises(UrlRefusedError, match="Only http and https"):
        fetch(start, config, resolver=PUBLIC, guard=loopback_is_public)


def test_a_second_dns_answer_cannot_swap_the_address(server: int, config: Config) -> None:
    """Rebinding: the name answers public first, then the metadata address.

    The fetch must connect to the address it checked, not look the name up again; the
    page arriving from our server (and one lookup) proves it connected to 127.0.0.1.
    """
    calls: list[str] = []

    def rebinding(host: str, port: int) -> list[str]:
        calls.append(host)
        return ["127.0.0.1"] if len(calls) == 1 else ["169.254.169.254"]

    got = fetch(
        f"http://rebind.test:{server}/page", config, resolver=rebinding, guard=loopback_is_public
    )
    assert got.body == PAGE
    assert calls == ["rebind.test"]


def test_every_redirect_hop_is_looked_up_and_checked_again(server: int, config: Config) -> None:
    calls: list[str] = []

    def rebinding(host: str, port: int) -> list[str]:
        calls.append(host)
        return ["127.0.0.1"] if len(calls) == 1 else ["169.254.169.254"]

    start = f"http://rebind.test:{server}/redirect?to=/page"
    with pytest.raises(UrlRefusedError, match=r"169\.254\.169\.254"):
        fetch(start, config, resolver=rebinding, guard=loopback_is_public)
    assert calls == ["rebind.test", "rebind.test"]


def test_any_blocked_address_of_a_name_refuses_it(config: Config) -> None:
    resolve = _resolver({"mixed.test": ["93.184.216.34", "127.0.0.1"]})
    with pytest.raises(UrlRefusedError, match=r"mixed\.test.*127\.0\.0\.1.*loopback"):
        fetch("http://mixed.test/", config, resolver=resolve)


def test_loopback_server_is_refused_without_the_test_guard(server: int, config: Config) -> None:
    with pytest.raises(UrlRefusedError, match="loopback"):
        fetch(f"http://127.0.0.1:{server}/page", config)


def test_allow_private_urls_turns_the_host_check_off(server: int, config: Config) -> None:
    allowed = dataclasses.replace(config, allow_private_urls=True)
    start = f"http://127.0.0.1:{server}/redirect?to=http://localhost.test:{server}/page"
    resolve = _resolver({"localhost.test": ["127.0.0.1"]})
    assert fetch(start, allowed, resolver=resolve).body == PAGE


@pytest.mark.parametrize(
    "url", ["file:///etc/passwd", "data:text/plain,hello", "ftp://example.com/x", "/relative"]
)
def test_non_http_schemes_are_refused_even_when_private_urls_are_allowed(
    url: str, config: Config
) -> None:
    allowed = dataclasses.replace(config, allow_private_urls=True)
    with pytest.raises(UrlRefusedError, match="Only http and https"):
        fetch(url, allowed)


def test_bad_urls_are_argument_errors(config: Config) -> None:
    with pytest.raises(InvalidArgumentError):
        fetch("", config)
    with pytest.raises(InvalidArgumentError, match="no host"):
        fetch("http:///path", config)


def test_a_slow_server_times_out_with_a_fetch_error(server: int, config: Config) -> None:
    started = time.monotonic()
    with pytest.raises(FetchError, match=r"Timed out.*public\.test"):
        fetch(
            f"http://public.test:{server}/slow",
            config,
            resolver=PUBLIC,
            guard=loopback_is_public,
            timeouts=Timeouts(connect=1, read=0.3),
        )
    assert time.monotonic() - started < 1.8  # the server answers after 2 s


@pytest.mark.parametrize("path", ["/big", "/big-chunked"])
def test_an_oversized_body_is_a_fetch_error(server: int, config: Config, path: str) -> None:
    small = dataclasses.replace(config, max_file_size=10_000)
    with pytest.raises(FetchError, match="MAX_FILE_SIZE"):
        fetch(
            f"http://public.test:{server}{path}", small, resolver=PUBLIC, guard=loopback_is_public
        )


def test_http_error_status_is_a_fetch_error_naming_the_host(server: int, config: Config) -> None:
    with pytest.raises(FetchError, match=r"public\.test answered HTTP 404"):
        fetch(
            f"http://public.test:{server}/missing",
            config,
            resolver=PUBLIC,
            guard=loopback_is_public,
        )


def test_five_redirects_are_followed_and_a_sixth_is_not(server: int, config: Config) -> None:
    got = fetch(
        f"http://public.test:{server}/chain/5", config, resolver=PUBLIC, guard=loopback_is_public
    )
    assert got.body == PAGE
    assert len(got.redirects) == 5
    with pytest.raises(FetchError, match="Too many redirects"):
        fetch(
            f"http://public.test:{server}/chain/6",
            config,
            resolver=PUBLIC,
            guard=loopback_is_public,
        )


def test_unresolvable_host_is_a_fetch_error_not_a_refusal(config: Config) -> None:
    with pytest.raises(FetchError, match=r"Could not resolve host nowhere\.test"):
        fetch("http://nowhere.test/", config, resolver=PUBLIC)


def test_connection_refused_is_a_fetch_error(config: Config) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again: nothing listens there
    with pytest.raises(FetchError, match=r"Could not connect to public\.test"):
        fetch(f"http://public.test:{port}/", config, resolver=PUBLIC, guard=loopback_is_public)


@pytest.mark.parametrize(
    ("address", "reason"),
    [
        ("127.0.0.1", "loopback"),
        ("::1", "loopback"),
        ("0.0.0.0", "unspecified"),
        ("::", "unspecified"),
        ("169.254.169.254", "link-local"),
        ("fe80::1", "link-local"),
        ("10.0.0.5", "private"),
        ("172.16.3.4", "private"),
        ("192.168.1.1", "private"),
        ("fd00::1", "private"),
        ("100.64.0.1", "carrier-grade NAT"),
        ("224.0.0.251", "multicast"),
        ("ff02::1", "multicast"),
        ("240.0.0.1", "reserved"),
        ("::ffff:127.0.0.1", "IPv4-mapped loopback"),
        ("::ffff:169.254.169.254", "IPv4-mapped link-local"),
        ("2002:a9fe:a9fe::1", "6to4 link-local"),
        ("2002:c0a8:0101::", "6to4 private"),
        ("2001:0:4136:e378:8000:63bf:3fff:fdd2", "Teredo"),
        ("2001:0:4136:e378:8000:63bf:80ff:fffe", "Teredo loopback"),  # client 127.0.0.1
        ("64:ff9b::a9fe:a9fe", "NAT64 link-local"),
        ("64:ff9b::7f00:1", "NAT64 loopback"),
    ],
)
def test_blocked_addresses(address: str, reason: str) -> None:
    got = blocked_reason(address)
    assert got is not None and got.startswith(reason)


@pytest.mark.parametrize(
    "address", ["93.184.216.34", "8.8.8.8", "2606:4700::1111", "::ffff:8.8.8.8", "64:ff9b::808:808"]
)
def test_public_addresses_pass(address: str) -> None:
    assert blocked_reason(address) is None


# ----------------------------------------------------------------- TLS on a pinned address
def _make_certs(folder: Path, host: str) -> tuple[Path, Path, Path]:
    """A CA and a server certificate for ``host`` signed by it: (ca.pem, cert.pem, key.pem)."""
    pytest.importorskip("cryptography")
    import datetime

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    now = datetime.datetime.now(datetime.UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "minirag test CA")])
    ca = (
        x509.CertificateBuilder()
        .subject_name(ca_name)
        .issuer_name(ca_name)
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(ca_key, hashes.SHA256())
    )
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, host)]))
        .issuer_name(ca_name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName(host)]), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    paths = folder / "ca.pem", folder / "cert.pem", folder / "key.pem"
    paths[0].write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    paths[1].write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    paths[2].write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return paths


@pytest.fixture
def tls_server(tmp_path: Path) -> Iterator[tuple[int, Path, list[str | None]]]:
    """An HTTPS server on 127.0.0.1 with a certificate for secure.test; yields
    (port, CA file, the SNI names clients sent)."""
    import ssl

    ca, cert, key = _make_certs(tmp_path, "secure.test")
    sni: list[str | None] = []
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    context.sni_callback = lambda _sock, name, _ctx: sni.append(name)
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    httpd.socket = context.wrap_socket(httpd.socket, server_side=True)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield httpd.server_address[1], ca, sni
    httpd.shutdown()
    httpd.server_close()


def test_https_to_a_pinned_address_keeps_sni_and_verifies_the_name(
    tls_server: tuple[int, Path, list[str | None]], config: Config
) -> None:
    port, ca, sni = tls_server
    resolve = _resolver({"secure.test": ["127.0.0.1"]})
    _Handler.seen_hosts.clear()
    got = fetch(
        f"https://secure.test:{port}/page",
        config,
        resolver=resolve,
        guard=loopback_is_public,
        ca_file=str(ca),
    )
    assert got.body == PAGE
    assert sni == ["secure.test"]  # the name, though the socket went to 127.0.0.1
    assert _Handler.seen_hosts == [f"secure.test:{port}"]


def test_https_certificate_for_another_name_is_a_fetch_error(
    tls_server: tuple[int, Path, list[str | None]], config: Config
) -> None:
    port, ca, _sni = tls_server
    resolve = _resolver({"impostor.test": ["127.0.0.1"]})
    with pytest.raises(FetchError, match=r"TLS error talking to impostor\.test"):
        fetch(
            f"https://impostor.test:{port}/page",
            config,
            resolver=resolve,
            guard=loopback_is_public,
            ca_file=str(ca),
        )

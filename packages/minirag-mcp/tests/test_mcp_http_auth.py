"""The team server over real HTTP on loopback: bearer tokens, read-only tokens, JWTs
checked against a JWKS the test serves itself, and the Host/Origin guard.

Every server here is the installed console script on 127.0.0.1 at a free port, with the
real offline model; nothing leaves loopback.
"""

from __future__ import annotations

import json
import secrets
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import rsa
from fastmcp import Client
from mcp_testlib import CLIENT_PROTOCOL, HttpServer, structured, wait_for_job, write_corpus

FULL = "full-" + secrets.token_urlsafe(24)
READ = "read-" + secrets.token_urlsafe(24)
ALLOWED_ORIGIN = "https://chat.example.com"

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": CLIENT_PROTOCOL,
        "capabilities": {},
        "clientInfo": {"name": "raw-http-test", "version": "0"},
    },
}


def post_initialize(url: str, token: str | None = None, **headers: str) -> httpx.Response:
    """A bare initialize request, as any HTTP client would send it."""
    sent = {"Accept": "application/json, text/event-stream", **headers}
    if token is not None:
        sent["Authorization"] = f"Bearer {token}"
    return httpx.post(url, json=INITIALIZE, headers=sent, timeout=30)


@pytest.fixture(scope="module")
def token_server(tmp_path_factory, model_env) -> Iterator[HttpServer]:
    """One server with a full and a read token over a synced copy of the corpus."""
    base = tmp_path_factory.mktemp("token-server")
    env = {
        **model_env,
        "BASE_DIR": str(write_corpus(base / "docs")),
        "DB_PATH": str(base / "index"),
        "RAG_HTTP_TOKENS": FULL,
        "RAG_HTTP_READ_TOKENS": READ,
        "RAG_HTTP_ALLOWED_ORIGINS": ALLOWED_ORIGIN,
        # Debug logging everywhere: whatever fastmcp, the SDK or uvicorn log, no token.
        "FASTMCP_LOG_LEVEL": "DEBUG",
        "COLUMNS": "100000",  # rich wraps log lines at 80 columns; a token must not be cut
    }
    with HttpServer(env, base / "server.log") as server:
        yield server


@pytest.mark.anyio
async def test_a_full_token_syncs_queries_and_status_shows_the_auth_mode(token_server):
    async with Client(token_server.url, auth=FULL) as client:
        job = structured(await client.call_tool("sync_start", {}))
        assert (await wait_for_job(client, job["jobId"]))["state"] == "succeeded"
        hits = structured(
            await client.call_tool("query_documents", {"query": "coolant pump flushing"})
        )
        assert hits["sources"][0]["displayPath"].endswith("cooling.md")
        status = structured(await client.call_tool("status", {}))
    assert status["transport"] == "http"
    assert status["bindAddress"] == f"127.0.0.1:{token_server.port}"
    assert status["authMode"] == "tokens"
    assert FULL not in json.dumps(status)
    assert READ not in json.dumps(status)


def test_no_token_gets_401(token_server):
    response = post_initialize(token_server.url)
    assert response.status_code == 401
    assert response.headers["www-authenticate"].startswith("Bearer")


def test_a_wrong_token_gets_401(token_server):
    assert post_initialize(token_server.url, FULL + "x").status_code == 401
    assert post_initialize(token_server.url, FULL[:-1]).status_code == 401


def test_a_valid_token_gets_through_the_raw_handshake(token_server):
    assert post_initialize(token_server.url, READ).status_code == 200


@pytest.mark.anyio
async def test_a_read_token_reads_but_cannot_delete(token_server):
    async with Client(token_server.url, auth=FULL) as client:
        await client.call_tool("ingest_data", {"data": "Kept note.", "source": "notes/kept"})
    async with Client(token_server.url, auth=READ) as client:
        before = structured(await client.call_tool("status", {}))["chunkCount"]
        refused = await client.call_tool(
            "delete_file", {"source": "notes/kept"}, raise_on_error=False
        )
        assert refused.is_error
        message = refused.content[0].text
        assert "delete_file changes the index" in message
        assert "read access only" in message
        assert READ not in message
        # The writer did nothing: the document is still there, whole.
        read = structured(await client.call_tool("read_file", {"source": "notes/kept"}))
        assert "Kept note." in read["text"]
        assert structured(await client.call_tool("status", {}))["chunkCount"] == before
        refused = await client.call_tool(
            "ingest_data", {"data": "Sneaky.", "source": "notes/sneaky"}, raise_on_error=False
        )
        assert refused.is_error
        listed = structured(await client.call_tool("list_files", {}))
    sources = [f["source"] for f in listed["files"]]
    assert "notes/kept" in sources
    assert "notes/sneaky" not in sources


def test_a_foreign_origin_gets_403_and_an_allowed_one_passes(token_server):
    bad = post_initialize(token_server.url, FULL, Origin="https://evil.example")
    assert bad.status_code == 403
    good = post_initialize(token_server.url, FULL, Origin=ALLOWED_ORIGIN)
    assert good.status_code == 200
    local = post_initialize(token_server.url, FULL, Origin=f"http://127.0.0.1:{token_server.port}")
    assert local.status_code == 200


def test_a_foreign_host_header_is_refused(token_server):
    # DNS rebinding: a name the operator never allowed, pointing at this server.
    response = post_initialize(token_server.url, FULL, Host="attacker.example")
    assert response.status_code == 421


def test_no_token_appears_in_the_server_log(token_server):
    # Runs after the calls above (same module, file order): they logged at DEBUG.
    log = token_server.stderr()
    # It logged the refusals and the calls, so the check below means something.
    assert "Auth error returned" in log
    assert "call_tool delete_file" in log
    assert FULL not in log
    assert READ not in log


# --- JWT ------------------------------------------------------------------------------

ISSUER = "https://login.test.example/"
AUDIENCE = "minirag-test"


def _private_key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


class Jwks:
    """A JWKS endpoint on 127.0.0.1 serving one RSA key, and tokens signed with it."""

    def __init__(self) -> None:
        self.key = _private_key()
        jwk = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(self.key.public_key()))
        body = json.dumps({"keys": [{**jwk, "kid": "test-key", "alg": "RS256", "use": "sig"}]})

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.end_headers()
                self.wfile.write(body.encode())

            def log_message(self, *args: object) -> None:
                pass

        self.http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.uri = f"http://127.0.0.1:{self.http.server_address[1]}/jwks.json"
        threading.Thread(target=self.http.serve_forever, daemon=True).start()

    def token(self, *, key=None, expires_in: int = 300, **claims: object) -> str:
        """A JWT for this test's issuer and audience; ``claims`` override or add."""
        now = int(time.time())
        payload = {
            "iss": ISSUER,
            "aud": AUDIENCE,
            "sub": "someone@example.com",
            "iat": now,
            "exp": now + expires_in,
            **claims,
        }
        return jwt.encode(payload, key or self.key, algorithm="RS256", headers={"kid": "test-key"})


@pytest.fixture(scope="module")
def jwks() -> Iterator[Jwks]:
    served = Jwks()
    yield served
    served.http.shutdown()


@pytest.fixture(scope="module")
def jwt_server(tmp_path_factory, model_env, jwks) -> Iterator[HttpServer]:
    base = tmp_path_factory.mktemp("jwt-server")
    env = {
        **model_env,
        "BASE_DIR": str(write_corpus(base / "docs")),
        "DB_PATH": str(base / "index"),
        "RAG_HTTP_JWKS_URI": jwks.uri,
        "RAG_HTTP_ISSUER": ISSUER,
        "RAG_HTTP_AUDIENCE": AUDIENCE,
        # Static tokens beside JWTs: both are accepted (fastmcp's MultiAuth).
        "RAG_HTTP_READ_TOKENS": READ,
        "FASTMCP_LOG_LEVEL": "DEBUG",
        "COLUMNS": "100000",
    }
    with HttpServer(env, base / "server.log") as server:
        yield server


@pytest.mark.anyio
async def test_a_jwt_with_the_write_scope_writes_and_one_without_only_reads(jwt_server, jwks):
    writer = jwks.token(scope="openid minirag:write")
    async with Client(jwt_server.url, auth=writer) as client:
        done = structured(
            await client.call_tool(
                "ingest_data", {"data": "The gate code is 4711.", "source": "notes/gate"}
            )
        )
        assert done["chunkCount"] >= 1
        status = structured(await client.call_tool("status", {}))
        assert status["authMode"] == "tokens+jwt"
    reader = jwks.token(scope="openid")
    async with Client(jwt_server.url, auth=reader) as client:
        hits = structured(await client.call_tool("query_documents", {"query": "gate code"}))
        assert hits["sources"][hits["results"][0]["src"]]["displayPath"] == "notes/gate"
        refused = await client.call_tool(
            "delete_file", {"source": "notes/gate"}, raise_on_error=False
        )
        assert refused.is_error
        assert "minirag:write" in refused.content[0].text
        still = structured(await client.call_tool("read_file", {"source": "notes/gate"}))
        assert "4711" in still["text"]


def test_an_expired_jwt_gets_401(jwt_server, jwks):
    assert post_initialize(jwt_server.url, jwks.token()).status_code == 200
    expired = jwks.token(expires_in=-120)
    assert post_initialize(jwt_server.url, expired).status_code == 401


def test_a_badly_signed_jwt_gets_401(jwt_server, jwks):
    forged = jwks.token(key=_private_key(), scope="minirag:write")
    assert post_initialize(jwt_server.url, forged).status_code == 401


def test_a_jwt_for_another_audience_or_issuer_gets_401(jwt_server, jwks):
    assert post_initialize(jwt_server.url, jwks.token(aud="other-service")).status_code == 401
    assert post_initialize(jwt_server.url, jwks.token(iss="https://evil/")).status_code == 401


def test_a_garbage_bearer_gets_401(jwt_server):
    assert post_initialize(jwt_server.url, "not-a-jwt-at-all").status_code == 401


@pytest.mark.anyio
async def test_a_static_token_works_beside_jwts(jwt_server):
    async with Client(jwt_server.url, auth=READ) as client:
        listed = structured(await client.call_tool("list_files", {}))
        assert listed["files"]
        refused = await client.call_tool(
            "ingest_data", {"data": "x", "source": "notes/x"}, raise_on_error=False
        )
        assert refused.is_error
        assert "read access only" in refused.content[0].text


def test_no_jwt_appears_in_the_server_log(jwt_server, jwks):
    token = jwks.token(scope="minirag:write")
    assert post_initialize(jwt_server.url, token).status_code == 200
    expired = jwks.token(expires_in=-120)
    assert post_initialize(jwt_server.url, expired).status_code == 401
    log = jwt_server.stderr()
    assert "Auth error returned" in log
    for secret in (token, expired, READ):
        assert secret not in log
        assert secret.split(".")[-1] not in log  # not even the signature part

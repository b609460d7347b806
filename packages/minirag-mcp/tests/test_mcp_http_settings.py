"""The HTTP server's settings: every bad one stops it with a message saying what to do,
and no message, status or repr ever holds a token."""

from __future__ import annotations

import json
import subprocess

import pytest
from mcp_testlib import child_env, console_script, free_port
from minirag_mcp.auth import HttpSettingsError, load_http_settings
from minirag_mcp.variables import HTTP_SETTINGS

TOKEN = "tok-" + "a" * 28
OTHER = "tok-" + "b" * 28
JWKS = "https://login.example.com/.well-known/jwks.json"
JWT = {"RAG_HTTP_JWKS_URI": JWKS, "RAG_HTTP_ISSUER": "https://login.example.com/",
       "RAG_HTTP_AUDIENCE": "minirag"}  # fmt: skip


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({"RAG_HTTP_TOKENS": ""}, "RAG_HTTP_TOKENS is set but empty"),
        ({"RAG_HTTP_TOKENS": "  "}, "RAG_HTTP_TOKENS is set but empty"),
        ({"RAG_HTTP_TOKENS": f"{TOKEN},,{OTHER}"}, "RAG_HTTP_TOKENS entry 2 is empty"),
        ({"RAG_HTTP_READ_TOKENS": f"{TOKEN},"}, "RAG_HTTP_READ_TOKENS entry 2 is empty"),
        ({"RAG_HTTP_TOKENS": "short-secret"}, "shorter than 16 characters"),
        ({"RAG_HTTP_TOKENS": TOKEN + " x"}, "a bearer token cannot carry"),
        ({"RAG_HTTP_TOKENS": TOKEN + "é"}, "a bearer token cannot carry"),
        (
            {"RAG_HTTP_TOKENS": TOKEN, "RAG_HTTP_READ_TOKENS": f"{OTHER},{TOKEN}"},
            "RAG_HTTP_READ_TOKENS entry 2 is also in RAG_HTTP_TOKENS",
        ),
        (
            {k: v for k, v in JWT.items() if k != "RAG_HTTP_ISSUER"},
            "RAG_HTTP_JWKS_URI is set without RAG_HTTP_ISSUER",
        ),
        (
            {k: v for k, v in JWT.items() if k != "RAG_HTTP_AUDIENCE"},
            "RAG_HTTP_JWKS_URI is set without RAG_HTTP_AUDIENCE",
        ),
        ({"RAG_HTTP_ISSUER": "https://x/"}, "RAG_HTTP_ISSUER is set without RAG_HTTP_JWKS_URI"),
        ({**JWT, "RAG_HTTP_JWKS_URI": "login.example.com/jwks"}, "is not an http(s) URL"),
        (
            {**JWT, "RAG_HTTP_JWKS_URI": "http://login.example.com/jwks"},
            "plain http to another machine",
        ),
        ({"RAG_HTTP_ALLOWED_ORIGINS": "chat.example.com"}, "is not an origin"),
        ({"RAG_HTTP_ALLOWED_ORIGINS": "https://x.example/app"}, "is not an origin"),
        ({"RAG_HTTP_ALLOWED_HOSTS": "https://rag.example.com"}, "is not a host name"),
    ],
)
def test_a_bad_setting_is_refused_with_what_to_do(env, expected):
    with pytest.raises(HttpSettingsError) as refused:
        load_http_settings(env, host="127.0.0.1", port=8000)
    message = str(refused.value)
    assert expected in message
    assert TOKEN not in message
    assert OTHER not in message
    assert isinstance(refused.value, ValueError)


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "10.1.2.3", "rag.example.com"])
def test_a_non_loopback_bind_needs_authentication(host):
    with pytest.raises(HttpSettingsError) as refused:
        load_http_settings({}, host=host, port=8000)
    message = str(refused.value)
    assert "without authentication" in message
    assert "RAG_HTTP_TOKENS" in message
    assert "RAG_HTTP_JWKS_URI" in message
    assert "bind to 127.0.0.1" in message
    assert load_http_settings({"RAG_HTTP_READ_TOKENS": TOKEN}, host=host, port=1).auth_mode == (
        "tokens"
    )
    assert load_http_settings(JWT, host=host, port=1).auth_mode == "jwt"


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "::1", "127.0.0.2"])
def test_loopback_serves_without_authentication(host):
    assert load_http_settings({}, host=host, port=8000).auth_mode == "none"


def test_settings_keep_tokens_out_of_their_repr():
    settings = load_http_settings(
        {**JWT, "RAG_HTTP_TOKENS": f"{TOKEN},{TOKEN}", "RAG_HTTP_READ_TOKENS": OTHER},
        host="::1",
        port=8000,
    )
    assert settings.auth_mode == "tokens+jwt"
    assert settings.tokens == (TOKEN,)  # a repeated token is one credential
    assert settings.bind_address == "[::1]:8000"
    assert TOKEN not in repr(settings)
    assert OTHER not in repr(settings)


def test_jwks_over_plain_http_is_fine_on_loopback():
    env = {**JWT, "RAG_HTTP_JWKS_URI": "http://127.0.0.1:9/jwks.json"}
    assert load_http_settings(env, host="127.0.0.1", port=8000).jwks_uri == env["RAG_HTTP_JWKS_URI"]


def run(argv: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(  # noqa: PLW1510 - the exit status is what we assert
        [console_script(), *argv],
        env=child_env(env),
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_server_refuses_to_bind_every_interface_without_authentication(corpus_env):
    port = free_port()
    done = run(["--transport", "http", "--host", "0.0.0.0", "--port", str(port)], corpus_env)
    assert done.returncode == 1
    assert done.stderr.startswith(f"error: refusing to serve on 0.0.0.0:{port} without auth")
    assert "RAG_HTTP_TOKENS" in done.stderr
    assert "Traceback" not in done.stderr


def test_the_server_refuses_a_bad_token_list_without_echoing_it(corpus_env):
    env = {**corpus_env, "RAG_HTTP_TOKENS": f"{TOKEN},{OTHER[:8]}"}
    done = run(["--transport", "http", "--port", str(free_port())], env)
    assert done.returncode == 1
    assert "RAG_HTTP_TOKENS entry 2 is shorter than 16 characters" in done.stderr
    assert TOKEN not in done.stderr
    assert OTHER[:8] not in done.stderr


def test_status_shows_the_transport_bind_and_auth_mode_never_a_token(corpus_env):
    env = {**corpus_env, "RAG_HTTP_TOKENS": TOKEN, "RAG_HTTP_READ_TOKENS": OTHER}
    done = run(["--transport", "http", "--host", "0.0.0.0", "--port", "9100", "status"], env)
    assert done.returncode == 0, done.stderr
    status = json.loads(done.stdout)
    assert status["transport"] == "http"
    assert status["bindAddress"] == "0.0.0.0:9100"
    assert status["authMode"] == "tokens"
    assert TOKEN not in done.stdout
    assert OTHER not in done.stdout
    assert json.loads(run(["status"], env).stdout)["transport"] == "stdio"


def test_status_explains_http_settings_that_would_not_start(corpus_env):
    done = run(["--transport", "http", "--host", "0.0.0.0", "status"], corpus_env)
    assert done.returncode == 0, done.stderr
    status = json.loads(done.stdout)
    assert status["transport"] == "http"
    assert "without authentication" in status["httpConfigError"]
    assert status["roots"] == [corpus_env["BASE_DIR"]]  # the rest of status still answers


@pytest.mark.parametrize("name", [s.name for s in HTTP_SETTINGS])
def test_every_declared_variable_is_read(name):
    """minirag_mcp.variables declares what the loader reads: each one, set but blank, stops it."""
    with pytest.raises(HttpSettingsError, match=f"^{name} is set but empty"):
        load_http_settings({**JWT, name: " "}, host="127.0.0.1", port=8000)

"""The web page as the team server mounts it (minirag_mcp.webui), in process: requests
under /ui reach the page, the rest reach MCP, and the sign-in grants what the MCP
endpoint's own verifier grants (full token: full, read token: read, JWT settings alike).

The real server with the page in Chromium: tests/test_ui_browser.py.
"""

from __future__ import annotations

import secrets

from minirag_mcp.auth import HttpSettings
from minirag_mcp.webui import MountUi, web_ui
from minirag_store import Index
from starlette.responses import PlainTextResponse
from starlette.testclient import TestClient

FULL = "full-" + secrets.token_urlsafe(24)
READ = "read-" + secrets.token_urlsafe(24)
SAME = {"Origin": "http://127.0.0.1:8000"}


async def mcp_app(scope, receive, send):
    """Stands in for fastmcp's app: says it was reached."""
    await PlainTextResponse("mcp here")(scope, receive, send)


def mounted(http: HttpSettings | None, broken_env) -> TestClient:
    middleware = web_ui(Index.open(broken_env), http, {"transport": "http"})
    app = MountUi(mcp_app, **middleware.kwargs)
    return TestClient(app, base_url="http://127.0.0.1:8000")


def test_ui_paths_reach_the_page_and_the_rest_reach_mcp(broken_env):
    client = mounted(HttpSettings("127.0.0.1", 8000, tokens=(FULL,)), broken_env)
    assert client.get("/mcp").text == "mcp here"
    root = client.get("/", follow_redirects=False)
    assert root.status_code == 307 and root.headers["location"] == "/ui/"
    page = client.get("/ui/", follow_redirects=False)
    assert page.status_code == 303
    assert page.headers["location"] == "/ui/signin?next=%2F"  # links know the mount
    signin = client.get("/ui/signin")
    assert 'action="/ui/signin"' in signin.text
    assert 'href="/ui/static/app.css"' in signin.text
    assert client.get("/ui/static/app.js").status_code == 200


def test_the_sign_in_grants_what_mcp_grants(broken_env):
    client = mounted(HttpSettings("127.0.0.1", 8000, tokens=(FULL,), read_tokens=(READ,)),
                     broken_env)  # fmt: skip
    wrong = client.post("/ui/signin", data={"token": FULL + "x"}, headers=SAME)
    assert wrong.status_code == 401 and FULL not in wrong.text
    for token, role in ((READ, "read only"), (FULL, "full access")):
        client.cookies.clear()
        got = client.post("/ui/signin", data={"token": token, "next": "/health"},
                          headers=SAME, follow_redirects=False)  # fmt: skip
        assert got.status_code == 303 and got.headers["location"] == "/ui/health"
        assert "path=/ui/" in got.headers["set-cookie"].lower()
        assert role in client.get("/ui/health").text


def test_without_authentication_the_page_is_open_as_mcp_is(broken_env):
    client = mounted(HttpSettings("127.0.0.1", 8000), broken_env)
    health = client.get("/ui/health")
    assert health.status_code == 200
    assert "full access" in health.text and "Sign out" not in health.text
    assert "Configuration error" in health.text  # the degraded index says why

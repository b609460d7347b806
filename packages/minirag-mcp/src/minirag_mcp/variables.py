"""The MCP shell's own variables, ``RAG_HTTP_*`` (only an HTTP server has them), declared once.

Declared with the store's :class:`~minirag_store.settings.Setting` (a shared type the
shells may import); kept here, not in the store's table, because the store never reads
them: :mod:`minirag_mcp.auth` does, and checks them (its messages, which never hold a
token, stay there: each names the variable and the entry). ``bench/readme.py`` prints the
minirag-mcp README's table of them from :data:`HTTP_SETTINGS`, and README's configuration
table's row of them from :data:`README_ROW`.
"""

from __future__ import annotations

from minirag_store.settings import Setting

__all__ = ["HTTP_SETTINGS", "README_ROW", "markdown_table"]

TOKENS = Setting(
    "RAG_HTTP_TOKENS",
    "text",
    (
        "Comma-separated bearer tokens with full access. Each at least 16 visible ASCII "
        "characters (generate them as above)."
    ),
)
READ_TOKENS = Setting(
    "RAG_HTTP_READ_TOKENS",
    "text",
    (
        "Comma-separated bearer tokens that may call only the read-only tools: "
        "`query_documents`, `read_file`, `read_page_image`, `read_chunk_neighbors`, "
        "`list_files`, `status`, `sync_status`."
    ),
)
JWKS_URI = Setting(
    "RAG_HTTP_JWKS_URI",
    "text",
    (
        "JWTs from your identity provider, checked against its published keys (fastmcp's "
        "`JWTVerifier`, RS256). https, or http on loopback only. Needs the next two."
    ),
)
ISSUER = Setting(
    "RAG_HTTP_ISSUER",
    "text",
    "The `iss` the tokens must carry.",
)
AUDIENCE = Setting(
    "RAG_HTTP_AUDIENCE",
    "text",
    (
        "The `aud` the tokens must carry (without it, a token the provider issued for any other "
        "service would pass). Any valid JWT may read; the scope `minirag:write` (in `scope` or "
        "`scp`) also grants the writers."
    ),
)
ALLOWED_HOSTS = Setting(
    "RAG_HTTP_ALLOWED_HOSTS",
    "text",
    (
        "Comma-separated `Host` names accepted besides loopback names and the bind address (e.g. "
        "`rag.example.com`; `*` globs, `*` alone accepts any)."
    ),
)
ALLOWED_ORIGINS = Setting(
    "RAG_HTTP_ALLOWED_ORIGINS",
    "text",
    "Comma-separated browser origins accepted (`https://chat.example.com`; `*` globs).",
)

#: Every variable :mod:`minirag_mcp.auth` reads, in the order the README lists them.
HTTP_SETTINGS: tuple[Setting, ...] = (
    TOKENS,
    READ_TOKENS,
    JWKS_URI,
    ISSUER,
    AUDIENCE,
    ALLOWED_HOSTS,
    ALLOWED_ORIGINS,
)

#: What README's configuration table says of all of them, in one row.
_SUMMARY = (
    "Authentication and Host/Origin checks of `minirag-mcp --transport http`; any bind address "
    "other than loopback needs one of the first three. See [For a "
    "team](packages/minirag-mcp/README.md#for-a-team-an-http-server-with-authentication)."
)


def markdown_table() -> str:
    """The minirag-mcp README's ``| Variable | What it does |`` table."""
    lines = ["| Variable | What it does |", "|---|---|"]
    lines += [f"| `{s.name}` | {s.meaning} |" for s in HTTP_SETTINGS]
    return "\n".join(lines)


#: README's configuration row of the HTTP variables (after the store's rows).
README_ROW = f"| {', '.join(f'`{s.name}`' for s in HTTP_SETTINGS)} | unset | {_SUMMARY} |"

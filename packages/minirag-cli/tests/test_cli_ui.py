"""``minirag-cli ui`` as a person runs it: a loopback server, a link that signs in once.

The page itself is tested in packages/minirag-web/tests (in process) and
tests/test_ui_browser.py (in Chromium); here the command: what it prints, that the link
answers on 127.0.0.1 only, that its secret works once, that Ctrl-C stops it.
"""

from __future__ import annotations

import re
import signal
import subprocess
import sys
from pathlib import Path

import httpx

CLI = Path(sys.executable).parent / "minirag-cli"


def _start_ui(built, cli_env) -> subprocess.Popen[str]:
    """``minirag-cli ui --no-browser`` over the built index, its output piped."""
    return subprocess.Popen(
        [str(CLI), "ui", "--no-browser", *built["flags"]],
        env=cli_env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_ui_prints_a_one_time_link_on_loopback_and_stops_on_ctrl_c(built, cli_env):
    proc = _start_ui(built, cli_env)
    try:
        assert proc.stderr is not None
        line = proc.stderr.readline()
        link = re.search(r"http://127\.0\.0\.1:(\d+)/login\?secret=([\w-]{40,})", line)
        assert link, line
        with httpx.Client(timeout=30) as client:
            first = client.get(link.group(0))
            assert first.status_code == 303 and first.headers["location"] == "/"
            cookie = first.headers["set-cookie"].lower()
            assert "httponly" in cookie and "samesite=strict" in cookie
            page = client.get(f"http://127.0.0.1:{link.group(1)}/?q=connection+timeout")
            assert page.status_code == 200 and "notes/timeouts.md" in page.text
        again = httpx.get(link.group(0), timeout=30)
        assert again.status_code == 401  # the secret worked once
        # A page that is not this one (DNS rebinding to 127.0.0.1) gets nothing.
        foreign = httpx.get(
            f"http://127.0.0.1:{link.group(1)}/signin", headers={"Host": "evil.example"}
        )
        assert foreign.status_code == 421
    finally:
        proc.send_signal(signal.SIGINT)
        code = proc.wait(30)
    assert code in (0, 130, -signal.SIGINT), code
    assert link.group(2) not in (proc.stdout.read() if proc.stdout else "")


def _ui_link(built, cli_env) -> subprocess.CompletedProcess[str]:
    """``minirag-cli ui --link`` over the built index."""
    return subprocess.run(
        [str(CLI), "ui", "--link", *built["flags"]],
        env=cli_env,
        capture_output=True,
        text=True,
        check=False,
    )


def test_a_spent_link_is_no_dead_end_ui_link_signs_in_again(built, cli_env):
    # The printed link works once and the cookie can be lost (another browser, a cleared
    # profile): `minirag-cli ui --link` mints a new one-time link for the running page.
    refused = _ui_link(built, cli_env)
    assert refused.returncode == 1
    assert "No minirag-cli ui is running" in refused.stderr and "minirag-cli ui" in refused.stderr
    proc = _start_ui(built, cli_env)
    try:
        assert proc.stderr is not None
        first = re.search(r"http://127\.0\.0\.1:(\d+)/login\?secret=\S+", proc.stderr.readline())
        assert first, "no link printed"
        assert "ui --link" in proc.stderr.readline()
        assert httpx.get(first.group(0), timeout=30).status_code == 303
        spent = httpx.get(first.group(0), timeout=30)
        assert spent.status_code == 401 and "minirag-cli ui --link" in spent.text
        links = []
        for _ in range(2):
            ran = _ui_link(built, cli_env)
            assert ran.returncode == 0, ran.stderr
            links.append(ran.stdout.strip())
        assert links[0] != links[1]
        for link in links:
            assert link.startswith(f"http://127.0.0.1:{first.group(1)}/login?secret=")
            with httpx.Client(timeout=30) as client:
                signed = client.get(link)
                assert signed.status_code == 303
                assert "max-age" in signed.headers["set-cookie"].lower()  # outlives the browser
                assert client.get(f"http://127.0.0.1:{first.group(1)}/files").status_code == 200
            assert httpx.get(link, timeout=30).status_code == 401  # each works once
        forged = links[0].rsplit(".", 1)[0] + "." + "0" * 64
        assert httpx.get(forged, timeout=30).status_code == 401
        link_file = built["db"] / "ui-link.json"
        assert link_file.stat().st_mode & 0o777 == 0o600
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(30)
    assert not link_file.exists()  # withdrawn when the page stops
    gone = _ui_link(built, cli_env)
    assert gone.returncode == 1


def test_ui_follows_the_files_and_shows_what_failed(tmp_path, cli_env):
    """As the MCP server, the page's process follows the roots (RAG_WATCH): its first
    sync indexes what is new and the files view names the file that failed, with why."""
    import time

    root = tmp_path / "docs"
    root.mkdir()
    (root / "boiler.md").write_text("# Boiler\n\nThe boiler is serviced every spring.\n")
    (root / "broken.pdf").write_bytes(b"%PDF-1.7\nnot really a pdf\n")
    flags = ["--base-dir", str(root), "--db-path", str(tmp_path / "index")]
    env = {k: v for k, v in cli_env.items() if k != "RAG_WATCH"}
    proc = subprocess.Popen([str(CLI), "ui", "--no-browser", *flags], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip
    try:
        assert proc.stderr is not None
        link = re.search(r"http://127\.0\.0\.1:(\d+)/login\?secret=[\w-]+", proc.stderr.readline())
        assert link
        with httpx.Client(timeout=30) as client:
            client.get(link.group(0))
            deadline = time.monotonic() + 180
            page = ""
            while time.monotonic() < deadline:
                page = client.get(f"http://127.0.0.1:{link.group(1)}/files?state=failed").text
                if "broken.pdf" in page:
                    break
                time.sleep(1)
            assert "broken.pdf" in page and "cannot open the PDF" in page, page[-2000:]
            found = client.get(f"http://127.0.0.1:{link.group(1)}/?q=boiler+serviced").text
            assert "boiler.md" in found
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(30)


def test_ui_offers_no_json_it_would_not_print(invoke):
    """``ui`` prints a link, never a result: ``--json`` is not offered, and given anyway it
    is refused as an unknown option instead of silently doing nothing."""
    assert "--json" not in invoke("ui", "--help").stdout
    refused = invoke("ui", "--json", "--no-browser")
    assert refused.code != 0 and "No such option: --json" in refused.stderr
    assert "--json" in invoke("status", "--help").stdout  # the commands that print keep it

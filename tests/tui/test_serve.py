"""`attn-tui serve` end to end: the page over HTTP, then textual-serve's websocket carrying the
explorer's numbers (A of the lesson's pipeline, computed here from the core); the refusals
before anything listens; the command each tab runs."""

from __future__ import annotations

import asyncio
import re
import shlex
import subprocess
import sys
import time
import urllib.request

import aiohttp
import pytest

from attn_tui.cli import serve
from attn_tui.core.builtins import builtin
from attn_tui.core.numfmt import fit_number
from tests.tui.serving import served

ANSI = re.compile(r"\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b[()][0-9A-Za-z]|\x1b[=>]")


def expected_cells(name: str) -> set[str]:
    """Every cell of A as the explorer prints it (5 characters for weights in [0, 1])."""
    return {fit_number(float(x), 5) for x in builtin(name).run().weights.ravel()}


async def screen_text(s, want: set[str], deadline: float, raw: bool = False, keys: str = "") -> str:
    """What the explorer writes down the websocket (from the server's own origin, with its token),
    escapes removed, until every string of ``want`` has arrived (or the deadline; closing may take
    aiohttp's 10 s close timeout more). ``keys``: typed once the first of ``want`` has arrived."""
    seen = ""
    async with aiohttp.ClientSession() as session:
        async with session.ws_connect(s.ws_url(), headers={"Origin": s.origin}) as ws:
            while not all(w in seen for w in want) and time.monotonic() < deadline:
                if keys and any(w in seen for w in want):
                    for key in keys.split("|"):
                        await ws.send_json(["stdin", key])
                    keys = ""
                try:
                    msg = await ws.receive(timeout=max(0.1, deadline - time.monotonic()))
                except TimeoutError:
                    break
                if msg.type == aiohttp.WSMsgType.BINARY:
                    text = msg.data.decode("utf-8", "replace")
                    seen += text if raw else ANSI.sub("", text)
                elif msg.type != aiohttp.WSMsgType.TEXT:
                    break  # closed: the explorer exited
    return seen


def receive(s, want: set[str], seconds: float = 90, raw: bool = False, keys: str = "") -> str:
    """screen_text, bounded: the test fails rather than hangs."""
    coro = screen_text(s, want, time.monotonic() + seconds, raw, keys)
    return asyncio.run(asyncio.wait_for(coro, seconds + 30))


@pytest.mark.long
@pytest.mark.parametrize("scenario", ["lesson-pipeline", "box-kernel"])
@pytest.mark.slow
def test_served_page_and_explorer_numbers(scenario):
    """The printed URL end to end: its page names the websocket, which carries every A cell."""
    with served("--scenario", scenario) as s:
        assert s.url == f"http://127.0.0.1:{s.port}/?token={s.token}" and len(s.token) >= 40
        page = urllib.request.urlopen(s.url, timeout=30).read().decode()
        assert f'data-session-websocket-url="ws://127.0.0.1:{s.port}/ws/{s.token}"' in page
        want = expected_cells(scenario)
        text = receive(s, want)
        missing = sorted(w for w in want if w not in text)
        assert not missing, f"not in the served explorer's output: {missing}"


@pytest.mark.long
@pytest.mark.slow
def test_two_tabs_two_explorers():
    """Each websocket runs its own explorer: two connections, two streams with the numbers."""
    want = expected_cells("lesson-pipeline")

    async def both(s):
        deadline = time.monotonic() + 120
        tabs = asyncio.gather(screen_text(s, want, deadline), screen_text(s, want, deadline))
        return await asyncio.wait_for(tabs, 150)

    with served() as s:
        for text in asyncio.run(both(s)):
            assert all(w in text for w in want)


@pytest.mark.parametrize(
    "args, message",
    [
        (["--port", "0"], "argument --port: 0 must be a whole number from 1 to 65,535"),
        (["--port", "65536"], "argument --port: 65536 must be a whole number from 1 to 65,535"),
        (["--port", "８０８０"], "argument --port: '８０８０' is not a whole number (digits 0-9 only)"),
        (["--max-sessions", "２"], "argument --max-sessions: '２' is not a whole number (digits 0-9 only)"),
        (["--port", "http"], "argument --port: 'http' is not a whole number"),
        (["--scenario", "no-such"], "no-such: no such file, and no built-in of that name"),
        (["--theme", "no-such"], "--theme 'no-such': no such theme (themes: "),
        (["--max-sessions", "0"], "argument --max-sessions: 0 is below 1"),
        (["--idle-timeout", "soon"], "argument --idle-timeout: 'soon' is not a whole number"),
        (["--root", "/no/such/folder"], "argument --root: '/no/such/folder' is not a folder"),
        (["--public-url", "name:8000"], "argument --public-url: 'name:8000' is not http(s)://HOST[:PORT]"),
        (["--public-url", "http://name/app"], "argument --public-url: 'http://name/app' is not http(s)://HOST[:PORT]"),
    ],
)
def test_refused_before_listening(args, message):
    r = subprocess.run([sys.executable, "-m", "attn_tui", "serve", *args], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2
    assert r.stdout == ""
    assert len(r.stderr.strip().splitlines()) == 1
    assert message in r.stderr
    assert "Traceback" not in r.stderr


def test_port_taken_is_one_line():
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        r = subprocess.run(
            [sys.executable, "-m", "attn_tui", "serve", "--port", str(port)], capture_output=True, text=True, timeout=60
        )
    assert r.returncode == 2
    assert f"serve: cannot listen on 127.0.0.1:{port}" in r.stderr.strip().splitlines()[-1]
    assert "Traceback" not in r.stderr


def test_command_per_tab(tmp_path, monkeypatch):
    """This Python and this package; a scenario file made absolute (the server's cwd may differ)."""
    f = tmp_path / "my s.toml"
    f.write_text("")
    monkeypatch.chdir(tmp_path)
    argv = shlex.split(serve.command("my s.toml", "textual-light", ".", 42))
    tab = ["exec", sys.executable, "-m", "attn_tui.serve.tab", str(tmp_path), "42"]  # exec: the server is its parent
    assert argv == [*tab, "--scenario", str(f), "--theme", "textual-light"]
    (tmp_path / "box-kernel").write_text("")  # a file named like a built-in: the built-in, as resolve() does
    assert shlex.split(serve.command("box-kernel", None, ".", 42)) == [*tab, "--scenario", "box-kernel"]


def test_help_says_what_another_host_exposes():
    r = subprocess.run(
        [sys.executable, "-m", "attn_tui", "serve", "--help"], capture_output=True, text=True, timeout=60
    )
    text = " ".join(r.stdout.split())
    assert r.returncode == 0
    assert "default 127.0.0.1, this machine only" in text
    assert "token" in text and "reads and writes files as you below --root" in text
    assert "ssh -L 8000:localhost:8000 host" in text


def test_page_urls_name_a_reachable_host():
    """A wildcard address is no address for a browser: the page names this machine instead."""
    import socket

    assert serve._url_host("0.0.0.0") == socket.gethostname()
    assert serve._url_host("::") == socket.gethostname()
    assert serve._url_host("::1") == "[::1]"
    assert serve._url_host("127.0.0.1") == "127.0.0.1"


@pytest.mark.slow
def test_served_theme():
    """--theme reaches every tab: the explorer paints textual-light's background (truecolor escapes)."""
    from textual.app import App
    from textual.color import Color

    app = App()
    app.theme = "textual-light"
    r, g, b = Color.parse(app.get_css_variables()["background"]).rgb
    ground = f"48;2;{r};{g};{b}m"
    with served("--theme", "textual-light") as s:
        assert ground in receive(s, {ground}, raw=True)


@pytest.mark.slow
def test_a_multi_head_built_in_is_served():
    """`serve --scenario induction-demo` opens the trained model's first head in every tab (it was
    refused before listening: serve checked the name with the single-head door only)."""
    want = {"layer 0 · head 0 of 4", "k/j row"}  # the status line names the head; the key bar is drawn
    with served("--scenario", "induction-demo") as s:
        text = receive(s, want, seconds=60)
    missing = sorted(w for w in want if w not in text)
    assert not missing, f"not in the served explorer's output: {missing}"


@pytest.mark.slow
def test_the_token_view_is_served():
    """T in a served tab opens the token view on the head shown: its title and five heaviest keys
    arrive down the websocket as in a terminal."""
    want = {"layer 0 · head 0 of 4", "who does t", "keys it looks at most: t"}
    with served("--scenario", "induction-demo") as s:
        text = receive(s, want, seconds=60, keys="T")
    missing = sorted(w for w in want if w not in text)
    assert not missing, f"not in the served explorer's output: {missing}"

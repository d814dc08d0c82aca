"""serve/guard.py's pure checks: origins, the token, each browser message, the session default."""

from __future__ import annotations

import socket

import pytest

from attn_tui.serve import guard as g


def test_own_origins_and_only_those():
    own = g.allowed_origins("127.0.0.1", 8000, None)
    for origin in ("http://127.0.0.1:8000", "http://localhost:8000", "http://[::1]:8000", "HTTP://LocalHost:8000"):
        assert g.origin_refusal(origin, own) is None, origin
    for origin in ("http://evil.example", "http://127.0.0.1:8001", "https://127.0.0.1:8000", "null", "file://",
                   "http://127.0.0.1:8000.evil.example", "http://127.0.0.1:99999", "ws://127.0.0.1:8000"):  # fmt: skip
        assert "is not this server's" in g.origin_refusal(origin, own), origin
    assert "no Origin header" in g.origin_refusal(None, own) and "no Origin header" in g.origin_refusal("", own)


def test_an_origin_is_scheme_host_port_only():
    """Issue 44: the host compared is the one parsed from the header; user info (which makes the
    host the part after '@'), a path, a query or a fragment is refused, whatever host follows."""
    own = g.allowed_origins("127.0.0.1", 8000, None)
    for origin in ("http://evil.example@127.0.0.1:8000", "http://u:p@127.0.0.1:8000", "http://@127.0.0.1:8000",
                   "http://127.0.0.1:8000/", "http://127.0.0.1:8000/x", "http://127.0.0.1:8000?x",
                   "http://127.0.0.1:8000#x"):  # fmt: skip
        line = g.origin_refusal(origin, own)
        assert line is not None and line.startswith("Origin ") and "is not this server's" in line, origin
    assert g.origin_refusal(" http://127.0.0.1:8000 ", own) is None


def test_public_url_and_wildcard_hosts():
    proxied = g.allowed_origins("127.0.0.1", 8000, "https://class.example.org")
    assert g.origin_refusal("https://class.example.org", proxied) is None
    assert g.origin_refusal("https://class.example.org:443", proxied) is None
    assert g.origin_refusal("http://class.example.org", proxied) is not None  # the scheme is part of an origin
    lan = g.allowed_origins("0.0.0.0", 8000, None)
    assert g.origin_refusal(f"http://{socket.gethostname()}:8000", lan) is None
    assert g.origin_refusal("http://192.0.2.1:8000", lan) is not None
    named = g.allowed_origins("192.0.2.7", 8000, None)
    assert g.origin_refusal("http://192.0.2.7:8000", named) is None
    assert g.origin_refusal("http://localhost:8000", named) is not None  # not loopback: not its names


def test_token():
    t = g.new_token()
    assert len(t) >= 40 and t != g.new_token()
    assert g.token_ok(t, t)
    assert not g.token_ok(None, t) and not g.token_ok("", t) and not g.token_ok(t[:-1], t)
    assert not g.token_ok(t + "x", t) and not g.token_ok("é" * 43, t)


@pytest.mark.parametrize(
    "text, parsed",
    [
        ('["stdin", "q"]', ("stdin", "q")),
        ('["resize", {"width": 120, "height": 40}]', ("resize", 120, 40)),
        ('["resize", {"width": 10000, "height": 3000}]', ("resize", g.MAX_COLS, g.MAX_ROWS)),
        ('["resize", {"width": 1, "height": 1}]', ("resize", g.MIN_COLS, g.MIN_ROWS)),
        ('["ping", "1700000000000"]', ("ping", "1700000000000")),
        ('["focus"]', ("focus",)),
        ('["blur", null]', ("blur",)),
    ],
)
def test_messages_the_explorer_sees(text, parsed):
    assert g.parse_message(text) == parsed


@pytest.mark.parametrize(
    "text, reason",
    [
        ("not json", "not JSON"),
        ("{}", "not a [type, data] list"),
        ("[]", "not a [type, data] list"),
        ("[5]", "not a [type, data] list"),
        ('["resize", {"width": -5, "height": 24}]', "resize: width -5 is below 1"),
        ('["resize", {"width": 80, "height": 0}]', "resize: height 0 is below 1"),
        ('["resize", {"width": "80", "height": 24}]', "resize: width '80' is not a whole number"),
        ('["resize", {"width": 80.5, "height": 24}]', "resize: width '80.5' is not a whole number"),
        ('["resize", {"width": true, "height": 24}]', "resize: width 'True' is not a whole number"),
        ('["resize", {"height": 24}]', "resize: width 'None' is not a whole number"),
        ('["resize", [80, 24]]', "resize: malformed data (list)"),
        ('["stdin", 5]', "stdin: malformed data (int)"),
        ('["stdin", "' + "x" * (g.MAX_STDIN + 1) + '"]', "stdin: malformed data (str)"),
        ('["ping", {}]', "ping: malformed data (dict)"),
        ('["quit"]', "unknown message type 'quit'"),
    ],
)
def test_malformed_messages_named_in_one_line(text, reason):
    with pytest.raises(g.BadMessage) as bad:
        g.parse_message(text)
    assert str(bad.value) == reason and "\n" not in str(bad.value)


def test_first_size_clamped():
    assert g.clamp_size(10000, -3) == (g.MAX_COLS, g.MIN_ROWS)
    assert g.clamp_size(120, 40) == (120, 40)


def test_default_sessions_from_memory():
    n = g.default_max_sessions()
    assert 1 <= n <= 256


def test_host_header_names_this_server_or_is_refused():
    """DNS rebinding: a page on evil.example resolved to 127.0.0.1 is same-origin with itself, so
    its requests carry Host (and Origin) evil.example:PORT; only the server's own names pass."""
    own = g.allowed_origins("127.0.0.1", 8000, None)
    for host in ("127.0.0.1:8000", "localhost:8000", "LOCALHOST:8000", "[::1]:8000"):
        assert g.host_refusal(host, own) is None, host
    for host in ("evil.example:8000", "127.0.0.1.:8000", "localhost.:8000", "127.0.0.1:8001", "127.0.0.1",
                 "127.0.0.1:8000.", "127.0.0.1:99999", 'localhost:1/"><script>', "a@127.0.0.1:8000", "", None,
                 "127.0.0.1:8000 evil.example", "0x7f.1:8000", "2130706433:8000"):  # fmt: skip
        assert g.host_refusal(host, own) is not None, host
    proxied = g.allowed_origins("127.0.0.1", 8000, "https://class.example.org")
    assert g.host_refusal("class.example.org", proxied) is None  # a proxy passes the public Host, no port
    assert g.host_refusal("class.example.org:8443", proxied) is not None


def test_deeply_nested_json_is_one_dropped_message():
    """A '[' * 100000 frame raised RecursionError past parse_message and ended the session."""
    with pytest.raises(g.BadMessage, match="nested too deeply"):
        g.parse_message("[" * 100_000 + "]" * 100_000)

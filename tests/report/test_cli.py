"""`attn-tui` end to end: report text/JSON by subprocess, exit codes, one-line errors."""

import json
import subprocess
import sys
import types
from pathlib import Path

import pytest

from attn_tui import __version__, cli
from attn_tui.cli import explorer
from attn_tui.core import builtin
from attn_tui.core.scenario_io import dumps

ASSETS = Path(__file__).resolve().parents[2] / "assets" / "scenarios"


def attn(*args, **kw):
    return subprocess.run([sys.executable, "-m", "attn_tui", *args], capture_output=True, text=True, timeout=120, **kw)


def assert_bad_input(res, *words):
    assert res.returncode == 2, res
    assert res.stdout == ""
    err = res.stderr.strip()
    assert err and "\n" not in err and "Traceback" not in err, res.stderr
    for w in words:
        assert w in err, (w, err)


def test_report_text():
    res = attn("report")
    assert res.returncode == 0 and res.stderr == ""
    out = res.stdout
    assert "A(1,1) = 1    row sums = [1×5]  1.000000  1.000000  1.000000  1.000000  1.000000\n" in out
    assert "max |O(1, :) - V(1, :)| = 0    params 3 * d_model * d_k = 72\n" in out
    assert "  [0.465255, 0.046327, 0.023164, 0.465255]\n" in out
    assert "max|A(W_Q = W_K = 0) - W_avg| = 0\n" in out
    assert out.index("A2 =") < out.index("rank(S2) = 2") < out.index("Var(q.k)") < out.index("H(A_t) at c")


def test_report_json():
    res = attn("report", "--json")
    assert res.returncode == 0 and res.stderr == ""
    d = json.loads(res.stdout)
    assert {"scenarios", "variance", "saturation", "sweep", "nadaraya_watson_diff", "box_kernel_diff"} <= set(d)
    assert len(d["sweep"]) == 30 and d["box_kernel_diff"] == 0


@pytest.mark.parametrize("scenario", ["lesson-pipeline", str(ASSETS / "padding-nan.toml")])
def test_report_one_scenario_text_and_json(scenario):
    res = attn("report", "--scenario", scenario)
    assert res.returncode == 0 and res.stderr == ""
    assert "A = softmax_row(S + M) =" in res.stdout and "rank(S) = 2" in res.stdout
    res = attn("report", "--scenario", scenario, "--json")
    assert res.returncode == 0
    d = json.loads(res.stdout, parse_constant=lambda c: pytest.fail(c))
    assert d["tokens"][3] == "t4 it" and d["params_qkv"] == 72
    assert d["nan_rows"] == ([1] if "padding" in scenario else [])


def test_report_hand_written_file(tmp_path):
    f = tmp_path / "mine.toml"
    f.write_text(dumps(builtin("cross-attention").with_(c=2.0)), encoding="utf-8")
    d = json.loads(attn("report", "--scenario", str(f), "--json").stdout)
    assert d["settings"]["c"] == 2.0 and len(d["A"][0]) == 3 and d["key_tokens"][0] == "y1 it"


def test_bad_file_exit_2_one_line_naming_file_key_row(tmp_path):
    f = tmp_path / "bad.toml"
    f.write_text("Q = [[1.0, 0.0], [0.0, nan]]\nK = [[1.0, 0.0]]\n", encoding="utf-8")
    for extra in ([], ["--json"]):
        assert_bad_input(attn("report", "--scenario", str(f), *extra), str(f), "Q", "row 2, column 2")
    g = tmp_path / "ragged.toml"
    g.write_text("Q = [[1.0, 0.0], [0.0]]\nK = [[1.0, 0.0]]\n", encoding="utf-8")
    assert_bad_input(attn("report", "--scenario", str(g)), str(g), "Q", "row 2")


def test_missing_binary_and_unknown(tmp_path):
    assert_bad_input(attn("report", "--scenario", str(tmp_path / "gone.toml")), "gone.toml", "no such file")
    b = tmp_path / "blob.toml"
    b.write_bytes(bytes(range(256)))
    assert_bad_input(attn("report", "--scenario", str(b)), "blob.toml")
    assert_bad_input(attn("report", "--scenario", "lesson-pipelin"), "lesson-pipelin", "built-in")
    for empty in ("", "  "):  # Path("") is the current folder: it said ".: is a folder"
        assert_bad_input(attn("report", "--scenario", empty), "the name is empty", "lesson-pipeline")


def test_explorer_refuses_a_bad_scenario_before_any_ui(tmp_path):
    f = tmp_path / "bad.toml"
    f.write_text("Q = [[1.0]]\nK = [[1.0]]\npadding = [7]\n", encoding="utf-8")
    code = (
        "import sys\nfrom attn_tui.cli import main\nrc = main(['--scenario', sys.argv[1]])\n"
        "print(rc, 'textual' in sys.modules, 'attn_tui.tui.app' in sys.modules)"
    )
    res = subprocess.run([sys.executable, "-c", code, str(f)], capture_output=True, text=True, timeout=60)
    assert res.stdout.split() == ["2", "False", "False"]
    assert res.stderr.strip().count("\n") == 0 and "padding" in res.stderr and str(f) in res.stderr
    assert_bad_input(attn("--scenario", str(f)), "padding", "7")


def test_usage_errors_exit_2_one_line():
    assert_bad_input(attn("report", "--bogus"), "--bogus")
    assert_bad_input(attn("frobnicate"), "frobnicate")
    assert_bad_input(attn("report", "--scenario"), "--scenario")


def test_version_and_help():
    res = attn("--version")
    assert res.returncode == 0 and res.stdout.strip() == f"attn-tui {__version__}"
    res = attn("--help")
    assert res.returncode == 0 and "report" in res.stdout and "--scenario" in res.stdout
    res = attn("report", "--help")
    assert res.returncode == 0 and "--json" in res.stdout


def test_console_script_is_installed():
    exe = Path(sys.executable).with_name("attn-tui")
    if not exe.exists():
        pytest.skip("attn-tui console script not installed next to this python")
    res = subprocess.run(
        [str(exe), "report", "--scenario", "lesson-handcrafted"], capture_output=True, text=True, timeout=60
    )
    assert res.returncode == 0 and res.stdout.startswith("Lesson 08: hand-crafted Q and K")


# -- the run path, in process, with a stand-in explorer -----------------------------------
@pytest.fixture
def fake_app(monkeypatch):
    calls = []

    class AttentionApp:
        def __init__(self, scenario=None, session=None, head=None):
            calls.append(("init", scenario) if head is None else ("init", scenario, head))
            self.session = session

        def run(self):
            calls.append(("run",))

    monkeypatch.setitem(sys.modules, "attn_tui.tui.app", types.SimpleNamespace(AttentionApp=AttentionApp))
    monkeypatch.setattr(explorer, "limit_blas", lambda app: None)  # the stand-in has no State to judge by
    monkeypatch.setattr(explorer, "need_terminal", lambda: None)  # pytest's stdin and stdout are no terminal
    return calls


def test_run_default_and_with_scenario(fake_app):
    assert cli.main([]) == 0
    assert fake_app == [("init", None), ("run",)]
    fake_app.clear()
    assert cli.main(["--scenario", str(ASSETS / "cross-attention.toml")]) == 0
    (_, s), _ = fake_app
    assert s.cross and s.T_k == 3
    fake_app.clear()
    assert cli.main(["--scenario", "no-such"]) == 2 and fake_app == []
    assert cli.main(["--scenario", "induction-demo", "--tokens", "a b a b"]) == 0  # a multi-head built-in
    (_, s, head), _ = fake_app
    assert (head.layer, head.head, s.tokens) == (0, 0, ("a", "b", "a", "b"))


def test_resume_and_fresh_reach_the_keeper_and_exclude_each_other(fake_app, monkeypatch):
    seen = []
    real = explorer.keeper
    monkeypatch.setattr(explorer, "keeper", lambda args, s: seen.append((args.resume, args.fresh)) or real(args, s))
    assert cli.main(["--resume"]) == 0 and cli.main(["--fresh"]) == 0 and cli.main([]) == 0
    assert seen == [(True, False), (False, True), (False, False)]
    assert cli.main(["--resume", "--fresh"]) == 2


def test_serve_tabs_keep_no_session(fake_app, monkeypatch):
    monkeypatch.setenv("TEXTUAL_DRIVER", "textual.drivers.web_driver:WebDriver")
    args = cli.build_parser().parse_args([])
    assert explorer.keeper(args, None) is None
    monkeypatch.delenv("TEXTUAL_DRIVER")
    assert explorer.keeper(args, None) is not None


def test_no_arguments_are_what_the_parser_gives_for_none():
    """`attn-tui` with no arguments builds no parser (a launch imports no argparse): its values are the
    parser's for none, so the fast way and the parsed way open the same explorer."""
    assert vars(cli.build_parser().parse_args([])) == cli.NO_ARGS


def test_a_launch_without_arguments_imports_no_parser():
    code = (
        "import sys; import attn_tui.cli as cli\n"
        "cli.explorer.run = lambda args: print(sorted(vars(args).items()))\n"
        "sys.argv = ['attn-tui']; cli.main()\n"
        "print(sorted(m for m in sys.modules if m in ('argparse', 'attn_tui.cli.parser', 'attn_tui.cli.train',"
        " 'attn_tui.cli.serve', 'attn_tui.cli.heads', 'attn_tui.cli.capture')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.splitlines()
    assert out[-1] == "[]", out
    assert out[0] == str(sorted(cli.NO_ARGS.items()))


@pytest.mark.parametrize(
    "stdin_tty, stdout_tty, said",
    [(False, False, "stdin and stdout are"), (True, False, "stdout is"), (False, True, "stdin is")],
)
def test_the_explorer_without_a_terminal_says_so_and_exits_2(tmp_path, stdin_tty, stdout_tty, said):
    """stdin or stdout not a terminal (a pipe, a file, /dev/null, cron): one line, exit 2. Before, Textual
    wrote its escape codes into the file and spun a CPU at the end of its input until killed."""
    import os

    master, slave = os.openpty()
    try:
        res = subprocess.run(
            [sys.executable, "-m", "attn_tui"],
            stdin=slave if stdin_tty else subprocess.DEVNULL,
            stdout=slave if stdout_tty else subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={**os.environ, "XDG_STATE_HOME": str(tmp_path), "TEXTUAL_DRIVER": ""},
            timeout=60,
        )
    finally:
        os.close(slave)
        os.close(master)
    lines = res.stderr.decode().splitlines()
    assert res.returncode == 2 and len(lines) == 1, lines
    assert f"the explorer needs a terminal and {said} not one" in lines[0] and "attn-tui report" in lines[0]
    if not stdout_tty:
        assert res.stdout == b""  # no escape codes written into the file

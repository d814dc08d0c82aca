"""Issue 44 item 2: one admission for a multi-head file, whatever the door. Each hostile file, built
here, goes through `attn-tui heads F`, `report --scenario F --layer 0 --head 0` and `--scenario F`
(the explorer's door: refused before any UI): the same exit code (2) and the same line, naming the
file and what is wrong. Before, `heads` printed a table (of nan, with a RuntimeWarning, for a scale of
1e308) or a traceback's last words (a window of 10^20) where the other two refused."""

from __future__ import annotations

import contextlib
import io

import numpy as np
import pytest

from attn_tui.cli import main
from attn_tui.core.heads.multihead_write import save_heads
from attn_tui.core.limits import printable

L, H, T, D = 2, 2, 4, 3


def qkv(dtype=np.float64):
    rng = np.random.default_rng(0)
    return [rng.normal(size=(L, H if i == 0 else 1, T, D)).astype(dtype) for i in range(3)]


def overflow16():
    Q, K, V = qkv(np.float16)
    Q[0, 0], K[0] = 200, 200  # q·k = 3 x 200 x 200 = 120,000 > 65,504 in layer 0, head 0
    return Q, K, V


def tokens(label):
    return {"tokens": ["x", label, "y", "z"]}


def M(value):
    m = np.zeros((L, T, T))
    m[0, 0, 0] = value
    return {"M": m, "mask": "additive"}


CASES = {  # name -> (arrays, settings, suffix, words in the line)
    "float16 S overflows": (overflow16(), {}, ".npz", ["layer 0, head 0", "S overflows float16"]),
    "label U+202E": (None, tokens("a\u202eb"), ".npz", ["tokens: label 2", "U+202E"]),
    "label ESC": (None, tokens("a\x1bb"), ".npz", ["tokens: label 2", "control character"]),
    "label BEL": (None, tokens("a\x07b"), ".safetensors", ["tokens: label 2", "control character"]),
    "label NUL": (None, tokens("a\x00b"), ".npz", ["tokens: label 2", "control character"]),
    "label empty": (None, tokens(""), ".npz", ["tokens: label 2", "empty"]),
    "scale 2e300": (None, {"scale": 2e300}, ".npz", ["scale: layer 0", "c: the scale multiplier"]),
    "scale 1e308": (None, {"scale": 1e308}, ".safetensors", ["scale: layer 0", "c: the scale multiplier"]),
    "scale 1e-300": (None, {"scale": 1e-300}, ".npz", ["scale: layer 0", "c: the scale multiplier"]),
    "scale of layer 1": (None, {"scale": [0.5, 1e10]}, ".npz", ["scale: layer 1", "c: the scale multiplier"]),
    "additive M all NaN": (None, {"M": np.full((L, T, T), np.nan), "mask": "additive"}, ".npz", ["M: layer 0"]),
    "additive M +inf": (None, M(np.inf), ".npz", ["M: layer 0, row 1, column 1 is inf"]),
    "window 10^20": (None, {"mask": f"window:{10**20}"}, ".npz", ["window", str(10**20)]),
    "window 10^20 (safetensors)": (None, {"mask": f"window:{10**20}"}, ".safetensors", ["window", str(10**20)]),
}
DOORS = {
    "heads": lambda f: ["heads", f],
    "report --layer 0 --head 0": lambda f: ["report", "--scenario", f, "--layer", "0", "--head", "0"],
    "--scenario": lambda f: ["--scenario", f],
}


def write(folder, name) -> str:
    arrays, settings, suffix, _ = CASES[name]
    Q, K, V = arrays or qkv()
    settings = dict(settings)
    extra = {k: settings.pop(k) for k in ("M",) if k in settings}
    path = folder / f"{name.replace(' ', '_').replace('^', '')}{suffix}"
    save_heads(path, Q, K, V, **extra, **settings)
    return str(path)


def said(argv) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("name", CASES)
def test_every_door_refuses_the_file_in_the_same_words(tmp_path, name):
    path = write(tmp_path, name)
    results = {door: said(argv(path)) for door, argv in DOORS.items()}
    lines = {door: err for door, (_, _, err) in results.items()}
    assert {code for code, _, _ in results.values()} == {2}, results
    assert all(out == "" for _, out, _ in results.values())
    assert len(set(lines.values())) == 1, lines  # one line, word for word, at every door
    line = lines["heads"]
    assert line.count("\n") == 1 and "Traceback" not in line and "Warning" not in line
    assert line.startswith(f"attn-tui: {printable(path)}: "), line
    assert all(w in line for w in CASES[name][3]), line


def test_a_head_after_the_first_is_refused_by_the_doors_that_compute_it(tmp_path):
    """float16 overflow in layer 1, head 1 only: `heads` computes every head and refuses it in the
    words `report --layer 1 --head 1` uses; `report --layer 0 --head 0` computes head 0.0 only."""
    Q, K, V = qkv(np.float16)
    Q[1, 1], K[1] = 200, 200
    path = str(save_heads(tmp_path / "late.npz", Q, K, V))
    code, _, line = said(["heads", path])
    assert code == 2 and line.startswith(f"attn-tui: {path}: layer 1, head 1: ") and "S overflows float16" in line
    assert said(["report", "--scenario", path, "--layer", "1", "--head", "1"])[::2] == (2, line)
    code, out, err = said(["report", "--scenario", path, "--layer", "0", "--head", "0"])
    assert code == 0 and out and not err

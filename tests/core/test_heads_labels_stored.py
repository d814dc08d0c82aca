"""Issue 52 item 8: a multi-head file's labels are judged on the text kept, shown and printed.

They were judged after whitespace collapsed ("q\\n\\nall heads OK\\r" looked like "q all heads OK")
but kept raw, so `heads --rollout` printed lines of the file's making, the token view drew control
characters, a lone surrogate ended the rollout text with a codec error, and "a" + 100,000 spaces +
"b" passed the 24-character limit. Each is now refused by every door (`heads`, `--rollout`, the
explorer's open) in one line naming the label; a captured token's leading space still passes."""

from __future__ import annotations

import numpy as np
import pytest

from attn_tui import cli
from attn_tui.cli import heads as heads_cli
from attn_tui.core.builtins import builtin
from attn_tui.core.heads.multihead_write import save_heads
from attn_tui.core.limits import admit

HOSTILE = {
    "line feeds and a carriage return": ("q\n\nall heads OK\r", "U+000A"),
    "a vertical tab": ("a\x0bb", "U+000B"),
    "a file separator": ("a\x1cb", "U+001C"),
    "NEL": ("a\x85b", "U+0085"),
    "a line separator": ("a\u2028b", "U+2028"),
    "a lone surrogate": ("a\ud800b", "a lone surrogate U+D800"),
    "100,000 spaces": ("a" + " " * 100_000 + "b", "100,002 characters as stored"),
}


def _file(tmp_path, label: str):
    q = np.random.default_rng(0).standard_normal((2, 2, 3, 2))
    return save_heads(tmp_path / "labels.safetensors", q, q, q, tokens=["x", label, "z"], mask="causal")


@pytest.mark.parametrize("argv", [["--rollout"], ["--query", "2"], []], ids=["rollout", "query", "readings"])
@pytest.mark.parametrize("name", HOSTILE)
def test_a_label_that_is_not_plain_as_stored_is_refused_in_one_line(tmp_path, capsys, name, argv):
    label, words = HOSTILE[name]
    path = _file(tmp_path, label)
    assert cli.main(["heads", str(path), *argv]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    line = captured.err
    assert line.count("\n") == 1 and "tokens: label 2: " in line and words in line, line


def test_the_explorers_door_refuses_it_too(tmp_path):
    path = _file(tmp_path, "q\n\nall heads OK\r")
    with pytest.raises(ValueError, match="tokens: label 2: contains the control character U\\+000A"):
        heads_cli.open_first(str(path), None)


def test_a_captured_tokens_leading_space_still_passes(tmp_path, capsys):
    path = _file(tmp_path, " cat")
    assert cli.main(["heads", str(path), "--rollout"]) == 0
    assert "t2  cat" in capsys.readouterr().out  # printed as stored: its own space after the position


def test_a_lone_surrogate_is_refused_by_the_single_head_doors_as_well():
    """An .npz scenario's labels or title can hold one (TOML cannot: tomllib refuses the escape)."""
    s = builtin("lesson-pipeline")
    for changed in (s.with_(title="a\ud800b"), s.with_(tokens=("t1", "t2\ud800", "t3", "t4", "t5"))):
        with pytest.raises(ValueError, match="contains a lone surrogate U\\+D800"):
            admit(changed)

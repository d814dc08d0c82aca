"""An array file without a title is named after the file (the status line said "untitled");
a file name no title may hold (control characters, too long) is shown escaped and cut, not refused."""

from __future__ import annotations

import numpy as np

from attn_tui.core.limits import MAX_TITLE
from attn_tui.core.scenario_io import load


def qkv(path, **extra):
    rng = np.random.default_rng(0)
    np.savez(path, Q=rng.standard_normal((3, 2)), K=rng.standard_normal((3, 2)), **extra)
    return path


def test_an_untitled_array_file_takes_its_file_name(tmp_path):
    assert load(qkv(tmp_path / "heads.npz")).title == "heads.npz"
    assert load(qkv(tmp_path / "t.npz", title=np.array("my head"))).title == "my head"  # a title wins


def test_a_hostile_file_name_is_escaped_and_cut_not_refused(tmp_path):
    s = load(qkv(tmp_path / "a\x1bb.npz"))
    assert "\x1b" not in s.title and s.title.startswith("a") and s.title.endswith("b.npz")
    long = tmp_path / ("x" * 250 + ".npz")
    assert len(load(qkv(long)).title) == MAX_TITLE


def test_a_name_whose_first_max_title_characters_are_blank_falls_back_to_untitled(tmp_path):
    # the cut keeps MAX_TITLE spaces, stripped to nothing: the title is "untitled", as before 211c79c
    assert load(qkv(tmp_path / (" " * MAX_TITLE + ".npz"))).title == "untitled"
    assert load(qkv(tmp_path / (" " * (MAX_TITLE - 1) + "h.npz"))).title == "h"  # stripped, cut after "h"

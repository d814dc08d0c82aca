"""Each limit has one meaning and one name (issue 53 item 2): "let the editor take 1,024 tokens"
changes EDIT_MAX alone. The old MAX_DIM meant six things (the editor, the TOML door, the dense /
lazy switch, export, the session, report's JSON) and MAX_D a width no real model fits."""

from __future__ import annotations

import re
from pathlib import Path

from attn_tui.core import limits

PACKAGE = Path(__file__).resolve().parents[2] / "attn_tui"
MEANINGS = {
    "EDIT_MAX": "the editor's and the random form's sizes",
    "TOML_MAX": "a TOML scenario's sizes",
    "DENSE_MAX": "dense trace versus lazy rows",
    "EXPORT_MAX": "export's matrices",
    "SESSION_MAX": "what a kept session saves",
    "REPORT_JSON_MAX": "report's JSON in full",
    "REPORT_TEXT_MAX": "report's text in full",
    "MAX_T": "an array file's tokens",
    "MAX_WIDTH": "an array file's widths",
    "READER_BYTES": "what one reader of an array file holds",
    "READER_PER_STORED": "what a reader holds per byte its file has on disk",
    "READER_FLOOR": "what a reader may hold of any file, however few its bytes",
    "MAX_ARRAY_FILE_BYTES": "a single-head array file's bytes",
}


def _sources():
    return [(p, p.read_text()) for p in PACKAGE.rglob("*.py")]


def test_each_meaning_has_its_name_and_the_old_names_are_gone():
    for name in MEANINGS:
        assert isinstance(getattr(limits, name), int), name
    for old in ("MAX_DIM", "MAX_D", "dim_limit"):
        assert not hasattr(limits, old)
        hits = [str(p) for p, text in _sources() if re.search(rf"\b{old}\b", text)]
        assert not hits, (old, hits)


def test_each_limit_is_defined_once_in_limits():
    for name in MEANINGS:
        defined = [p.name for p, text in _sources() if re.search(rf"^{name}\s*=", text, re.M)]
        assert defined == ["limits.py"], (name, defined)


def test_the_file_rule_admits_real_shapes_and_refuses_what_a_reader_cannot_hold():
    from attn_tui.core.reader_sizes import reader_problem

    assert reader_problem(16384, 16384, 512, 512) is None  # a head of d_k 512 at 16,384 tokens: 192 MiB
    assert reader_problem(16384, 16384, 128, 128, 16384, heads=128) is None  # W_O of a 16,384-wide layer: 2 GiB
    assert reader_problem(16384, 16384, 128, 129, 16384, heads=128).startswith("W_O of a layer: 2.0 GiB")
    assert reader_problem(16385, 1, 1, 1).startswith("T = 16385 tokens; at most 16384")
    assert reader_problem(4, 4, 4, 16385) == "d_v: width 16385; widths (d_model, d_k, d_v) are at most 16,384"


def test_what_a_reader_holds_is_backed_by_the_files_bytes_on_disk():
    """Issue 52: the 2 GiB rule alone let a file of a few KB (sparse, or zeros compressed) promise a head
    of 16,384 x 256; now a reader holds at most READER_PER_STORED x the bytes on disk, or READER_FLOOR."""
    from attn_tui.core.reader_sizes import reader_budget, reader_problem

    wide = (16384, 16384, 256, 256)  # a head's Q, K, V: 96 MiB in float64
    assert reader_problem(*wide, heads=16) is None  # capture before its forward: no file yet, 2 GiB
    line = reader_problem(*wide, heads=16, stored=4096)
    assert line.startswith("Q, K, V of a head: 96 MiB in float64 at 16,384 tokens") and "from 4 KiB on disk" in line
    real = 3 * 16 * 16384 * 256 * 2  # the same capture in float16, its arrays on disk: 384 MiB
    assert reader_problem(*wide, heads=16, stored=real) is None
    assert reader_problem(*wide, heads=16, stored=96 * 2**20 // limits.READER_PER_STORED) is None  # just backed
    assert reader_problem(*wide, heads=16, stored=96 * 2**20 // limits.READER_PER_STORED - 1) is not None
    assert reader_problem(16384, 16384, 64, 64, heads=16, stored=0) is None  # d 64 at 16,384 tokens: the floor
    assert reader_problem(16384, 16384, 64, 65, heads=16, stored=0) is not None
    assert reader_budget(None) == limits.READER_BYTES and reader_budget(2**40) == limits.READER_BYTES
    assert reader_problem(16384, 16384, 128, 128, 16384, heads=128, stored=2**27).startswith("W_O of a layer")

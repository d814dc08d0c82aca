"""Issue 52 item 6: a kept session's file gets the scenario door's TOML pre-scan before tomllib reads it.
It was parsed at once: an 83 KB file with one dotted key of 40,000 parts took 3.8 GB and failed every
launch (MemoryError) until --fresh; 20,000 parts 1.6 GB. tomllib's memory grows with the square of a
key's parts, so 4,000 parts here (tens of MB before) already show it; the peak is traced."""

from __future__ import annotations

import tracemalloc

import pytest

from attn_tui.core import session_store as store
from attn_tui.core.limits import MAX_KEY_PARTS, MAX_LISTS
from attn_tui.core.session_toml import dumps
from tests.core.test_session_store import a_session, same

MIB = 2**20


def _written(tmp_path, extra: str):
    path = tmp_path / "session-1.toml"
    path.write_text(dumps(a_session()) + extra, encoding="utf-8")
    return path


def _read_traced(path):
    tracemalloc.start()
    try:
        with pytest.raises(store.SessionError) as e:
            store.read(path)
        return str(e.value), tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_dotted_key_of_thousands_of_parts_is_refused_before_tomllib(tmp_path):
    path = _written(tmp_path, "a" + ".a" * 3999 + " = 1\n")
    line, peak = _read_traced(path)
    assert f"a dotted key of more than {MAX_KEY_PARTS} parts" in line and "\n" not in line
    assert str(path) in line
    assert peak < 4 * MIB, f"peak {peak / MIB:.1f} MiB"


def test_more_lists_than_a_scenario_holds_are_refused_before_tomllib(tmp_path):
    path = _written(tmp_path, "x = [" + "[]," * (MAX_LISTS + 1) + "]\n")
    line, peak = _read_traced(path)
    assert f"more than {MAX_LISTS:,} lists" in line and "\n" not in line
    assert peak < 4 * MIB, f"peak {peak / MIB:.1f} MiB"


def test_a_good_session_with_dots_and_commas_in_its_scenarios_still_reads(tmp_path):
    k = a_session(scenario=a_session().scenario.with_(title="e.g. a.b.c.d, with, commas = and signs"))
    path = tmp_path / "session-2.toml"
    path.write_text(dumps(k), encoding="utf-8")
    same(store.read(path), k)

"""core/session_store.py: a kept session round-trips bit for bit; bad state files (truncated, from
another version, hostile, unreadable, a symlink elsewhere, a folder full of them) are refused with
one line and never crash the launch; writing and pruning touch only the store's own files."""

from __future__ import annotations

import os
import secrets

import numpy as np
import pytest

from attn_tui.core import scenario_io as io
from attn_tui.core import session_store as store
from attn_tui.core import session_toml
from attn_tui.core.builtins import builtin
from attn_tui.core.session_heads import MAX_HEAD_NAME, HeadAt
from attn_tui.core.session_toml import MAX_STEPS


def a_session(**kw) -> store.Kept:
    s = builtin("lesson-pipeline")
    X = s.X.copy()
    X[3, 0] = 5.0
    edited = s.with_(X=X, c=1.1**2)
    base = dict(
        scenario=edited,
        row=3,
        cursor=("X", 3, 0),
        pin=(s, 2),
        past=(s, s.with_(X=X)),
        future=(edited.with_(mask="none"),),
        why="SIGHUP",
        source="lesson-pipeline",
    )
    return store.Kept(**{**base, **kw})


def same(a: store.Kept, b: store.Kept) -> None:
    assert io.dumps(a.scenario) == io.dumps(b.scenario)
    assert (a.row, a.cursor, a.why, a.source, a.saved) == (b.row, b.cursor, b.why, b.source, b.saved)
    assert io.dumps(a.pin[0]) == io.dumps(b.pin[0]) and a.pin[1] == b.pin[1]
    assert [io.dumps(s) for s in a.past] == [io.dumps(s) for s in b.past]
    assert [io.dumps(s) for s in a.future] == [io.dumps(s) for s in b.future]


def test_round_trip_bit_for_bit_with_every_part():
    k = a_session()
    back = store.loads(store.dumps(k))
    same(back, k)
    assert back.scenario.X[3, 0] == 5.0 and back.scenario.c == 1.1**2 and back.edits == 2
    assert "2 edits, c = 1.21" in back.describe()


def test_a_title_with_quotes_and_backslashes_round_trips():
    s = builtin("lesson-pipeline").with_(title='a """ b \\ c \' d \\""" e"')
    back = store.loads(store.dumps(a_session(scenario=s)))
    assert back.scenario.title == s.title


def test_write_read_in_a_new_folder_made_private(tmp_path):
    folder = tmp_path / "state" / "attn-tui"
    path = store.write(folder, a_session())
    assert store.NAME.match(path.name) and oct(folder.stat().st_mode & 0o777) == "0o700"
    kept, found, problems = store.newest(folder)
    assert found == path and not problems
    same(kept, a_session(saved=kept.saved))


def test_the_history_is_bounded_by_size_oldest_first(monkeypatch):
    k = a_session(past=tuple(builtin("lesson-pipeline").with_(c=1 + i / 10) for i in range(10)))
    one = len(io.dumps(k.scenario))
    monkeypatch.setattr(session_toml, "MAX_SESSION_BYTES", one * 6)
    back = store.loads(store.dumps(k))
    assert 0 < back.edits < 10
    assert [s.c for s in back.past] == [s.c for s in k.past[-back.edits :]]  # the newest kept


def test_the_history_is_bounded_by_count():
    k = a_session(past=tuple(builtin("lesson-pipeline").with_(c=1 + i / 100) for i in range(MAX_STEPS + 7)))
    assert store.loads(store.dumps(k)).edits == MAX_STEPS


@pytest.mark.parametrize(
    "text,words",
    [
        ("", "not an attn-tui session file"),
        ('title = "a scenario, not a session"\nQ = [[1.0]]\nK = [[1.0]]\n', "not an attn-tui session file"),
        ('format = 99\nkind = "attn-tui session"\nsaved = 1.0\n', "from another version of attn-tui (format 99"),
        ('format = 1\nkind = "attn-tui session"\nsaved = "yesterday"\n', "saved is 'yesterday', not a time"),
        ('format = 1\nkind = "attn-tui session"\nsaved = 1.0\nscenario = 3\n', "scenario is 3, not a scenario"),
        ("format = [[[[", "not a readable session file"),
    ],
)
def test_bad_headers_are_one_line(text, words):
    with pytest.raises(store.SessionError) as e:
        store.loads(text, "f.toml")
    assert words in str(e.value) and "\n" not in str(e.value)


def _with(k_text: str, old: str, new: str) -> str:
    assert old in k_text
    return k_text.replace(old, new, 1)


@pytest.mark.parametrize(
    "old,new,words",
    [
        ("row = 3", "row = -1", "row is -1, not a row number"),
        ("row = 3", "row = true", "row is True, not a row number"),
        ('cursor = ["X", 3, 0]', 'cursor = ["X", 3]', "cursor is ['X', 3], not [matrix, row, column]"),
        ("c = 1.2100000000000002", "c = 1e9", "c"),  # the knob's range: limits.admit, as for any file
        ('mask = \\"causal\\"', 'mask = \\"causal\\"\nwho = 1', "who: unknown key"),
        ("past = [", "past = 7\nold = [", "past is 7, not a list"),
    ],
)
def test_hostile_contents_are_refused_by_the_scenario_door(old, new, words):
    text = _with(store.dumps(a_session()), old, new)
    with pytest.raises(store.SessionError) as e:
        store.loads(text, "f.toml")
    assert words in str(e.value) and "\n" not in str(e.value)


def test_a_huge_matrix_in_a_session_is_refused_before_it_is_built():
    rows = ",".join("[" + ",".join(["1.0"] * 3) + "]" for _ in range(600))
    text = _with(store.dumps(a_session()), 'scenario = """\n', f'scenario = """\nQ = [{rows}]\n')
    with pytest.raises(store.SessionError) as e:
        store.loads(text, "f.toml")
    assert "\n" not in str(e.value)


def _name(i: int) -> str:
    return f"session-20260101T0000{i:02d}Z-{i:08x}.toml"


def test_truncated_and_binary_files_are_skipped_for_an_older_good_one(tmp_path):
    good = store.write(tmp_path, a_session())
    os.utime(good, (1, 1))  # the oldest
    full = store.dumps(a_session())
    (tmp_path / _name(1)).write_text(full[: len(full) // 2])
    (tmp_path / _name(2)).write_bytes(b"\xff\xfe\x00binary")
    kept, path, problems = store.newest(tmp_path)
    assert path == good and len(problems) == 2
    assert all("\n" not in p for p in problems) and any("not a text (UTF-8)" in p for p in problems)


def test_a_symlink_elsewhere_is_refused_and_never_followed(tmp_path):
    elsewhere = tmp_path / "precious.toml"
    elsewhere.write_text(store.dumps(a_session()))
    folder = tmp_path / "attn-tui"
    folder.mkdir()
    link = folder / _name(1)
    link.symlink_to(elsewhere)
    with pytest.raises(store.SessionError, match="a symlink"):
        store.read(link)
    kept, path, problems = store.newest(folder)
    assert kept is None and path is None  # not a regular file of ours: refused, never followed
    # issue 52 item 11: skipped with its one line, as SESSIONS.md promises (it was skipped silently)
    assert problems == [f"{link}: a symlink; a kept session is a file of attn-tui's own, ignored"]
    before = elsewhere.read_bytes()
    for _ in range(store.KEEP_FILES + 2):
        store.write(folder, a_session(), replaces=link)
    store.prune(folder, keep=0)
    assert elsewhere.read_bytes() == before and link.is_symlink()


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads a file of mode 000")
def test_an_unreadable_file_is_one_line(tmp_path):
    p = tmp_path / _name(1)
    p.write_text(store.dumps(a_session()))
    p.chmod(0)
    kept, _, problems = store.newest(tmp_path)
    assert kept is None and "cannot read" in problems[0]


def test_a_folder_full_of_them_is_pruned_and_read_in_bounded_time(tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    (tmp_path / "session-mine.toml").write_text("not of our name")
    for i in range(40):
        (tmp_path / _name(i)).write_text("garbage = [")
        os.utime(tmp_path / _name(i), (1000 + i, 1000 + i))
    kept, _, problems = store.newest(tmp_path)
    assert kept is None and len(problems) == store.READ_NEWEST
    store.write(tmp_path, a_session())
    ours = [p for p in tmp_path.iterdir() if store.NAME.match(p.name)]
    assert len(ours) == store.KEEP_FILES
    assert (tmp_path / "notes.txt").exists() and (tmp_path / "session-mine.toml").exists()
    assert store.newest(tmp_path)[0] is not None  # the newest, just written


def test_the_state_folder():
    assert str(store.state_folder({"XDG_STATE_HOME": "/x/state", "HOME": "/h"})) == "/x/state/attn-tui"
    assert str(store.state_folder({"XDG_STATE_HOME": "relative", "HOME": "/h"})) == "/h/.local/state/attn-tui"
    assert str(store.state_folder({"HOME": "/h"})) == "/h/.local/state/attn-tui"


def test_the_restored_scenario_computes_like_the_lost_one():
    k = a_session()
    back = store.loads(store.dumps(k))
    assert np.array_equal(back.scenario.run().A, k.scenario.run().A)


def test_a_write_never_goes_through_a_name_already_there(tmp_path, monkeypatch):
    """A symlink planted under the very name a write draws: the write takes another name."""
    elsewhere = tmp_path / "precious"
    elsewhere.write_text("mine")
    folder = tmp_path / "attn-tui"
    folder.mkdir()
    tokens = iter(["00000000", "00000000", "11111111"])
    monkeypatch.setattr(secrets, "token_hex", lambda n: next(tokens))  # imported by the write
    k = a_session()
    planted = folder / f"session-{store.time.strftime('%Y%m%dT%H%M%SZ', store.time.gmtime(k.saved))}-00000000.toml"
    planted.symlink_to(elsewhere)
    path = store.write(folder, k)
    assert path.name.endswith("-11111111.toml") and elsewhere.read_text() == "mine" and planted.is_symlink()


AT = HeadAt("induction-demo", 1, 3, "q w e r q w e r")


def test_a_head_and_each_steps_head_round_trip():
    """The head shown (source as opened, layer, head, the model's tokens) and one head or none per undo step."""
    other = HeadAt("/data/heads file \u00e9.npz", 0, 2)
    k = a_session(head=AT, past_heads=(other, None), future_heads=(AT,))
    back = store.loads(store.dumps(k))
    same(back, k)
    assert back.head == AT and back.past_heads == (other, None) and back.future_heads == (AT,)
    single = store.loads(store.dumps(a_session()))  # one head: nothing about heads written or read
    assert single.head is None and single.past_heads == () == single.future_heads
    assert "head" not in store.dumps(a_session())


def test_a_text_demo_head_keeps_its_long_text_and_its_line_breaks():
    """text-demo's text may be 1,024 tokens (longer than a path) and hold its own line breaks and tabs;
    any other control character is refused, as in a name."""
    text = "The cat sat on the mat.\n\tThe cat sat on the mat. " * 120  # 6,000 characters
    at = HeadAt("text-demo", 1, 0, text)
    back = store.loads(store.dumps(a_session(head=at)))
    assert back.head == at and len(text) > MAX_HEAD_NAME
    with pytest.raises(store.SessionError):
        store.loads(store.dumps(a_session(head=HeadAt("text-demo", 1, 0, "a\x1b[2Jb"))))


def test_the_history_bound_drops_a_steps_head_with_it():
    steps = tuple(builtin("lesson-pipeline").with_(c=1 + i / 100) for i in range(MAX_STEPS + 3))
    heads = tuple(AT._replace(head=i) for i in range(len(steps)))
    back = store.loads(store.dumps(a_session(past=steps, past_heads=heads, head=AT)))
    assert [h.head for h in back.past_heads] == [h.head for h in heads[-MAX_STEPS:]]
    assert [s.c for s in back.past] == [s.c for s in steps[-MAX_STEPS:]]


@pytest.mark.parametrize(
    "new,words",
    [
        ("head = 3", "head is 3, not {name, layer, head, tokens}"),
        ("head = {}", "head is {}, not {name, layer, head, tokens}"),
        ('head = {name = "a.npz", layer = -1, head = 0}', "head is {'name': 'a.npz', 'layer': -1"),
        ('head = {name = "induction-demo", layer = 0, head = true}', "not {name, layer, head, tokens}"),
        ('head = {name = "x.npz", layer = 0, head = 0, cmd = "rm"}', "head is {'name': 'x.npz'"),
        ('head = {name = "\\u001b[2Jx.npz", layer = 0, head = 0}', "head is {'name': '\\x1b[2Jx.npz'"),
        ('head = {name = "", layer = 0, head = 0}', "head is {'name': ''"),
        ('head = {name = "x.npz", layer = 0, head = 0, tokens = 7}', "not {name, layer, head, tokens}"),
        ("past_heads = [{}]", "past_heads is [{}], not one head (or {}) per past step"),
        ("past_heads = [{}, 5]", "past_heads step 2 is 5, not {name, layer, head, tokens}"),
    ],
)
def test_a_hostile_or_stale_head_is_one_line_naming_the_key(new, words):
    text = _with(store.dumps(a_session()), "row = 3", f"row = 3\n{new}")
    with pytest.raises(store.SessionError) as e:
        store.loads(text, "f.toml")
    assert str(e.value).startswith("f.toml: ") and words in str(e.value) and "\n" not in str(e.value)


def test_the_weighting_round_trips_and_a_hostile_one_is_one_line():
    """What A shows (key W: value- or info-weighted) is kept; "A" writes nothing."""
    assert "weighting" not in store.dumps(a_session())
    assert store.loads(store.dumps(a_session())).weighting == "A"
    for kind in ("value", "info"):
        assert store.loads(store.dumps(a_session(weighting=kind))).weighting == kind
    text = store.dumps(a_session(weighting="value"))
    for bad, words in (('"magic"', "weighting is 'magic', not one of A, value, info"), ("3", "weighting is 3")):
        with pytest.raises(store.SessionError) as e:
            store.loads(_with(text, 'weighting = "value"', f"weighting = {bad}"), "f.toml")
        assert words in str(e.value) and "\n" not in str(e.value)

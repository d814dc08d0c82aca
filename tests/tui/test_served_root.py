"""A served explorer's files stay below its root (issue 33): rooted() refuses `..`, absolute paths
elsewhere and symlinks pointing out; each file door (open, save, export, SVG export, screenshot,
the sweep's export, the learned head's save) asks it and says why in one line; unset (the
terminal app), nothing changes."""

from __future__ import annotations

import numpy as np
import pytest

from attn_tui.core.builtins import builtin
from attn_tui.core.scenario_io import save
from attn_tui.tui.app import AttentionApp
from attn_tui.tui.screens.files import OpenScreen, SaveScreen
from attn_tui.tui.served_root import ROOT_ENV, rooted

SIZE = (120, 40)


@pytest.fixture
def root(tmp_path, monkeypatch):
    """A served tab's setting (serve/tab.py): ATTN_TUI_ROOT and the current folder are the root."""
    r = tmp_path / "root"
    (r / "sub").mkdir(parents=True)
    (tmp_path / "outside").mkdir()
    (r / "out").symlink_to(tmp_path / "outside")  # a symlink pointing out of the root
    (r / "loop").symlink_to(r / "loop")
    monkeypatch.setenv(ROOT_ENV, str(r))
    monkeypatch.chdir(r)
    return r


@pytest.mark.parametrize("path", ["../x.toml", "sub/../../x.toml", "/etc/passwd", "out/x.toml", "out", "~/x.toml"])
def test_paths_leaving_the_root_are_refused(root, path, monkeypatch):
    monkeypatch.setenv("HOME", str(root.parent))
    with pytest.raises(ValueError, match="is outside the served folder$"):
        rooted(path)


def test_paths_below_the_root_are_kept(root):
    assert rooted("a.toml") == root / "a.toml"
    assert rooted("sub/../sub/b.toml") == root / "sub" / "b.toml"
    assert rooted(root / "sub") == root / "sub"
    assert rooted(".") == root
    with pytest.raises(ValueError, match="cannot be followed"):
        rooted("loop/x")


def test_unset_the_terminal_app_is_unchanged(tmp_path, monkeypatch):
    monkeypatch.delenv(ROOT_ENV, raising=False)
    monkeypatch.chdir(tmp_path)
    assert rooted("../x.toml").as_posix() == "../x.toml"
    assert rooted("/etc/passwd").as_posix() == "/etc/passwd"


async def submit(app, pilot, path: str) -> str:
    app.screen.query_one("#path").value = path
    app.screen.query_one("#path").focus()
    await pilot.press("enter")
    await pilot.pause()
    messages = app.screen.query("#message")  # none when the dialog closed: done
    return str(messages.first().render()) if messages else ""


async def test_served_save_and_open_stay_below_the_root(root, tmp_path):
    outside = tmp_path / "outside" / "there.toml"
    save(builtin("box-kernel"), outside)
    app = AttentionApp()
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await pilot.press("s")
        await pilot.pause()
        for path in ("../x.toml", "out/x.toml", str(tmp_path / "x.toml")):
            assert "is outside the served folder" in await submit(app, pilot, path)
            assert isinstance(app.screen, SaveScreen)
        assert not (tmp_path / "x.toml").exists() and not (tmp_path / "outside" / "x.toml").exists()
        await submit(app, pilot, "sub/mine.toml")
        assert (root / "sub" / "mine.toml").exists() and not isinstance(app.screen, SaveScreen)
        before = app.state.scenario
        await pilot.press("o")
        await pilot.pause()
        message = await submit(app, pilot, str(outside))
        assert message == f"{outside} is outside the served folder" and isinstance(app.screen, OpenScreen)
        assert app.state.scenario is before


async def test_served_exports_and_screenshot_stay_below_the_root(root, tmp_path, read_csv):
    app = AttentionApp()
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await pilot.pause()
        from attn_tui.tui.actions.files import apply_export

        for fmt in ("csv", "npy", "svg"):
            reason = apply_export(app, "out/exp" + (".svg" if fmt == "svg" else ""), fmt, False)
            assert reason.endswith("is outside the served folder)"), reason
        assert list((tmp_path / "outside").iterdir()) == []
        assert app.deliver_screenshot(path=str(tmp_path / "outside")) is None
        await pilot.pause()
        assert any("outside the served folder" in n.message for n in app._notifications)
        assert apply_export(app, "exp", "csv", False) is None and (root / "exp").is_dir()
        assert np.array_equal(read_csv(root / "exp" / "A.csv"), app.state.trace.A)


def test_sweep_export_and_learned_head_save_refuse_outside(root):
    from attn_tui.tui.screens.experiments import ExperimentsScreen
    from attn_tui.tui.screens.learned_head import save_learned

    # both ask rooted() before touching the screen: no screen needed to see the refusal
    out = "is outside the served folder"
    assert ExperimentsScreen._apply_export(None, "../sweep", False) == f"not exported: ../sweep {out}"
    assert save_learned(None, None, "/tmp/h.toml", False) == f"not saved: /tmp/h.toml {out}"


async def test_a_symlink_planted_after_the_check_is_not_written_through(root, tmp_path, monkeypatch):
    """The race: rooted() resolves a name below the root, then (before the write) someone with write
    access to the root puts a symlink to a file outside at that name. The save followed it
    (write_atomic writes a symlink's target) and replaced the outside file; now it is refused."""
    from attn_tui.tui.actions import files

    victim = tmp_path / "outside" / "victim.txt"
    victim.write_text("keep me\n")

    def rooted_then_planted(path):
        checked = rooted(path)
        checked.symlink_to(victim)  # after the check, before the write
        return checked

    monkeypatch.setattr(files, "rooted", rooted_then_planted)
    app = AttentionApp()
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await pilot.pause()
        reason = files.apply_save(app, "race.toml", True)  # as after "overwrite?" was answered
    assert victim.read_text() == "keep me\n"
    assert "became a symlink after it was checked" in reason, reason
    assert (root / "race.toml").is_symlink()  # left as planted; nothing written through it


async def test_served_svg_export_of_the_root_or_a_suffixed_symlink_stays_below(root, tmp_path):
    """The SVG export added '.svg' after the check: '.' (the root itself) became ROOT.svg in the root's
    parent, and 'a' became a.svg, a symlink out of the root, which the screenshot followed."""
    from attn_tui.tui.actions.files import apply_export

    (root / "a.svg").symlink_to(tmp_path / "outside" / "a.svg")
    app = AttentionApp()
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await pilot.pause()
        for path in (".", "sub/..", str(root)):
            assert apply_export(app, path, "svg", True).endswith("is a folder; type a file name ending in .svg")
        assert apply_export(app, "a", "svg", True).endswith("a.svg is outside the served folder)")
        await pilot.pause()
        await pilot.pause()
        assert apply_export(app, "shot", "svg", False) is None
        await pilot.pause()
        await pilot.pause()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["outside", "root"]  # no root.svg beside the root
    assert list((tmp_path / "outside").iterdir()) == []
    assert (root / "shot.svg").read_text().startswith("<svg")

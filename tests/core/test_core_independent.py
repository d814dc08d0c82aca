"""The core and the headless report know nothing of the UI: importing them loads
neither textual nor rich (checked in a fresh interpreter, as Harlequin does)."""

import subprocess
import sys

import pytest

MODULES = [
    "attn_tui.core",
    "attn_tui.core.attention",
    "attn_tui.core.scenario_io",
    "attn_tui.core.lenses",
    "attn_tui.core.experiments",
    "attn_tui.report.text",
    "attn_tui.report.as_json",
    "attn_tui.report.sweep_svg",
    "attn_tui.cli",
]


def loaded_after_import(module: str) -> set[str]:
    code = f"import sys, {module}\nprint(' '.join(sorted({{m.split('.')[0] for m in sys.modules}})))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return set(out.stdout.split())


@pytest.mark.parametrize("module", MODULES)
def test_no_ui_library_loaded(module):
    loaded = loaded_after_import(module)
    assert "attn_tui" in loaded  # the probe works: the module did load
    assert "textual" not in loaded and "rich" not in loaded


def test_the_probe_can_see_textual():
    """Guard against a probe that could never fail: importing textual is seen."""
    assert "textual" in loaded_after_import("textual")


def test_report_command_runs_without_textual():
    code = (
        "import sys, io, contextlib\n"
        "from attn_tui.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    rc = main(['report', '--json'])\n"
        "assert rc == 0, rc\n"
        "print('textual' in sys.modules or 'rich' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"

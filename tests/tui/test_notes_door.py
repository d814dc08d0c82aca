"""Every notice goes through ``app.notes`` (tui/notes.py): a ``.notify(`` call anywhere else in the
package fails here, naming the file and line. The one exception is the App's own ``notify``
override calling ``super().notify``: Textual's own notices land there, and it keeps them free of
markup."""

from __future__ import annotations

import ast
from pathlib import Path

import attn_tui

PACKAGE = Path(attn_tui.__file__).parent
DOOR = PACKAGE / "tui" / "notes.py"


def notify_calls(source: str) -> list[int]:
    """The lines of ``source`` that call ``<anything>.notify(...)``, less ``super().notify`` inside a
    method named ``notify`` (an override handing on to Textual)."""
    tree = ast.parse(source)
    allowed = {
        id(call)
        for fn in ast.walk(tree)
        if isinstance(fn, ast.FunctionDef) and fn.name == "notify"
        for call in ast.walk(fn)
        if isinstance(call, ast.Call)
        and isinstance(call.func, ast.Attribute)
        and isinstance(call.func.value, ast.Call)
        and getattr(call.func.value.func, "id", None) == "super"
    }
    return sorted(
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "notify"
        and id(node) not in allowed
    )


def test_no_notice_bypasses_app_notes():
    found = [
        f"{path.relative_to(PACKAGE.parent)}:{line}"
        for path in sorted(PACKAGE.rglob("*.py"))
        if path != DOOR
        for line in notify_calls(path.read_text(encoding="utf-8"))
    ]
    assert found == [], "notices past app.notes (use app.notes.say or app.notes.note): " + ", ".join(found)
    assert notify_calls(DOOR.read_text(encoding="utf-8")), "notes.py no longer posts through the app's notify"


def test_the_check_finds_a_notify_call():
    source = (
        "class S:\n"
        "    def a(self):\n"
        "        self.notify('x')\n"
        "    def b(self):\n"
        "        self.app.notify('y', timeout=3)\n"
        "    def notify(self, m):\n"
        "        super().notify(m)\n"
        "        self.app.notify(m)\n"
    )
    assert notify_calls(source) == [3, 5, 8]  # the override's super().notify alone is let through

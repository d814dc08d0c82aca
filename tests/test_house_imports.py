"""The house's rules about imports and waiting, read from the files (tests/test_house.py keeps the others):
no import circle in the package, every distribution imported declared in pyproject.toml, no private name
imported from another module, the core and report tests runnable without Textual, and no test waiting
on the wall clock."""

from __future__ import annotations

import ast
import functools
import importlib.metadata
import re
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "attn_tui"
TESTS = ROOT / "tests"
OURS = ("attn_tui", "tests", "scripts", "__future__")


def _files(folder: Path) -> list[Path]:
    return sorted(folder.rglob("*.py"))


@functools.cache
def _parsed(path: Path) -> ast.Module:
    return ast.parse(path.read_text())


def _module(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path, root: Path) -> list[tuple[int, str, str]]:
    """(line, module, name) of every import in ``path``, at any depth, relative ones made absolute;
    name is "" for ``import module``."""
    package = _module(path, root) if path.name == "__init__.py" else _module(path, root).rpartition(".")[0]
    parts = package.split(".") if package else []
    out = []
    for node in ast.walk(_parsed(path)):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name, "") for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = parts[: len(parts) - node.level + 1] if node.level else []
            module = ".".join([*base, node.module] if node.module else base)
            out += [(node.lineno, module, a.name) for a in node.names]
    return out


# -- no circle ----------------------------------------------------------------------------------
def _type_checking_lines(path: Path) -> set[int]:
    """The lines of the imports under ``if TYPE_CHECKING:``: the type checker reads them, Python never runs them."""
    return {
        n.lineno
        for node in ast.walk(_parsed(path))
        if isinstance(node, ast.If) and ast.unparse(node.test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING")
        for stmt in node.body
        for n in ast.walk(stmt)
        if isinstance(n, ast.Import | ast.ImportFrom)
    }


def import_circles(root: Path, package: str) -> list[list[str]]:
    """The modules of ``package`` (under ``root``) that import one another round a circle, directly or
    through others (each strongly connected set of two or more), imports inside functions counted; those
    under ``if TYPE_CHECKING:`` left out (they never run; import-linter leaves them out too)."""
    modules = {_module(p, root) for p in _files(root / package)}
    graph = {}
    for p in _files(root / package):
        deps = set()
        typing_only = _type_checking_lines(p)
        for line, module, name in _imports(p, root):
            if line in typing_only:
                continue
            target = f"{module}.{name}" if f"{module}.{name}" in modules else module
            if target in modules and target != _module(p, root):
                deps.add(target)
        graph[_module(p, root)] = deps
    order, low, stack, circles, counter = {}, {}, [], [], [0]

    def visit(v: str) -> None:  # Tarjan's strongly connected components
        order[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        for w in graph[v]:
            if w not in order:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], order[w])
        if low[v] == order[v]:
            part = []
            while not part or part[-1] != v:
                part.append(stack.pop())
            if len(part) > 1:
                circles.append(sorted(part))

    for v in sorted(graph):
        if v not in order:
            visit(v)
    return circles


def test_the_circle_rule_finds_a_circle(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "a.py").write_text("from .b import f\n")
    (tmp_path / "pkg" / "b.py").write_text("def f():\n    from . import a\n")  # inside a function: still a circle
    (tmp_path / "pkg" / "c.py").write_text("from pkg import a\n")
    (tmp_path / "pkg" / "d.py").write_text("import typing\nif typing.TYPE_CHECKING:\n    from . import e\n")
    (tmp_path / "pkg" / "e.py").write_text("from . import d\n")  # d -> e for the type checker only
    assert import_circles(tmp_path, "pkg") == [["pkg.a", "pkg.b"]]


# The one circle left, known: limits.check_sizes imports reader_sizes inside the function, and reader_sizes reads
# limits' constants (issue 53 item 2's one size rule). Breaking it moves the door's rule or the constants.
KNOWN_CIRCLES = [["attn_tui.core.limits", "attn_tui.core.reader_sizes"]]


def test_no_module_of_the_package_imports_itself_round_a_circle():
    """A circle (tui/state.py and tui/history.py were one) makes an import order matter and hides a
    layer; import-linter's layers allow one inside a layer, this rule nowhere but the known one."""
    assert [c for c in import_circles(ROOT, "attn_tui") if c not in KNOWN_CIRCLES] == []


# -- every distribution declared ----------------------------------------------------------------
def _declared() -> set[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    specs = project["dependencies"] + [s for extra in project["optional-dependencies"].values() for s in extra]
    return {_normal(re.match(r"[A-Za-z0-9_.-]+", s).group()) for s in specs}


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def undeclared(files: list[Path], declared: set[str]) -> list[str]:
    """Each import of a distribution that pyproject.toml does not name, as "file:line module". A module
    not installed here (torch without the extras) is looked up by its own name."""
    dists = importlib.metadata.packages_distributions()
    hits = []
    for p in files:
        for line, module, _ in _imports(p, ROOT if p.is_relative_to(ROOT) else p.parent):
            top = module.split(".")[0]
            if not top or top in sys.stdlib_module_names or top in OURS:
                continue
            if not {_normal(d) for d in dists.get(top, [top])} & declared:
                hits.append(f"{p.name}:{line} {module}")
    return hits


def test_the_dependency_rule_finds_an_undeclared_import(tmp_path):
    (tmp_path / "m.py").write_text("import numpy\nimport os\nfrom yaml import safe_load\n")
    assert undeclared([tmp_path / "m.py"], {"numpy"}) == ["m.py:3 yaml"]


def test_every_distribution_imported_is_declared():
    """pyproject.toml names each distribution the package, its tests and scripts import (rich and aiohttp
    were imported, reaching us only through textual and textual-serve), each with its reason."""
    files = _files(PACKAGE) + _files(TESTS) + _files(ROOT / "scripts")
    assert undeclared(files, _declared()) == []


def test_each_dependency_says_why():
    text = (ROOT / "pyproject.toml").read_text()
    block = text[text.index("dependencies = [") : text.index("]", text.index("dependencies = ["))]
    bare = [line.strip() for line in block.splitlines()[1:] if line.strip() and "#" not in line]
    assert bare == [], f"a dependency without its reason (a comment): {bare}"


# -- no private name across modules ---------------------------------------------------------------
FRAMEWORK = PACKAGE / "tui" / "framework.py"  # the one adapter for private framework names (test_framework.py)


def private_imports(files: list[Path], root: Path) -> list[str]:
    """Each ``from module import _name`` of ``files``, as "file:line module._name"."""
    return [
        f"{p.relative_to(root)}:{line} {module}.{name}"
        for p in files
        for line, module, name in _imports(p, root)
        if name.startswith("_") and not name.startswith("__")
    ]


def test_the_private_import_rule_finds_one(tmp_path):
    (tmp_path / "m.py").write_text("from .scenario_write import _toml_str\nfrom os import path as _path\n")
    assert private_imports([tmp_path / "m.py"], tmp_path) == ["m.py:1 scenario_write._toml_str"]


# Tests that still import a private name: the mutation notes (tests/core/EQUIVALENT_MUTANTS.md) name mutants by
# these functions' names, and limits._inputs is passed to stream as well; each is tested where it is defined.
KNOWN_PRIVATE_IMPORTS = {  # file: the private name it imports
    "tests/core/stream/test_full_trace.py": "attn_tui.core.limits._inputs",
    "tests/core/stream/test_huge_v.py": "attn_tui.core.stream._v_down",
    "tests/core/test_diagnose_core.py": "attn_tui.core.diagnose._num",
}


def test_no_module_imports_a_private_name():
    """A name with a leading underscore is its module's own; another module that needs it needs it public:
    the package, its scripts and its tests (a test of a helper imports it by its public name)."""
    files = [p for p in _files(PACKAGE) + _files(ROOT / "scripts") + _files(TESTS) if p != FRAMEWORK]
    hits = [h for h in private_imports(files, ROOT) if KNOWN_PRIVATE_IMPORTS.get(h.split(":")[0]) != h.split()[-1]]
    assert hits == []


# -- the core and report tests without Textual ----------------------------------------------------
def test_the_core_and_report_tests_run_without_textual():
    """With textual and the explorer unimportable: tests/conftest.py and every core and report test module
    import, and a core module's tests pass with the shared fixtures (the UI's are in tests/tui)."""
    code = textwrap.dedent(
        """
        import importlib, pathlib, sys
        for name in ("textual", "attn_tui.tui"):
            sys.modules[name] = None  # an import of either fails
        import pytest
        rc = pytest.main(["-q", "-n", "0", "-p", "no:textual-snapshot", "-p", "no:cacheprovider",
                          "tests/core/test_core_formulas.py"])
        assert rc == 0, rc
        tests = sorted(pathlib.Path("tests/core").rglob("test_*.py"))
        tests += sorted(pathlib.Path("tests/report").glob("test_*.py"))
        for p in tests:
            importlib.import_module(".".join(p.with_suffix("").parts))
        print("ui:", sorted(m for m, mod in sys.modules.items() if mod and m.startswith(("textual", "attn_tui.tui"))))
        """
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    assert out.stdout.rstrip().endswith("ui: []"), out.stdout[-500:]


# -- no test waits on the wall clock --------------------------------------------------------------
# Polls where nothing can be awaited: headless Chromium's tests poll the page through DevTools (they skip
# without a Chromium); the capture's signal tests wait for a file another process creates (no inotify in
# the standard library). Each polls the state with a bound, never a fixed time standing for "settled".
POLLS = {"test_serve_browser.py", "test_serve_page.py", "test_serve_attacker.py", "test_capture_signals.py"}


def sleeps(path: Path) -> list[str]:
    """Each time.sleep, asyncio.sleep or pilot.pause(delay) in ``path``'s code (code in strings aside),
    as "file:line call"."""
    hits = []
    for node in ast.walk(_parsed(path)):
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
        owner = f.value.id if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) else ""
        if name == "sleep" and path.name not in POLLS:
            hits.append(f"{path.name}:{node.lineno} {owner + '.' if owner else ''}sleep")
        elif name == "pause" and (node.args or node.keywords):
            hits.append(f"{path.name}:{node.lineno} pause(delay)")
    return hits


def test_the_sleep_rule_finds_each_kind(tmp_path):
    (tmp_path / "t.py").write_text(
        "import time\nfrom time import sleep\nasync def t(pilot):\n    time.sleep(1)\n    sleep(1)\n"
        "    await pilot.pause(0.6)\n    await pilot.pause()\n    code = 'time.sleep(600)'\n"
    )
    assert sleeps(tmp_path / "t.py") == ["t.py:4 time.sleep", "t.py:5 sleep", "t.py:6 pause(delay)"]


def test_no_test_waits_on_the_wall_clock():
    """A test waits on the state it expects (the pilot's pause(), a worker, a line of output, a process's
    pidfd), never a fixed time standing for "settled"."""
    hits = [hit for p in _files(TESTS) for hit in sleeps(p)]
    assert hits == [], hits

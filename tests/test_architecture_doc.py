"""ARCHITECTURE.md cannot go stale silently: every path it names exists, and every `file.py:name`
(a function, class, constant or `Class.method`) is defined in that file."""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "ARCHITECTURE.md"
# `path`, `path:name`, `path:Class.method`; a path has a slash or a known suffix
REF = re.compile(r"`((?:[\w.-]+/)*[\w.-]+(?:/|\.(?:py|tcss|toml|md|sh)))(?::([\w.]+))?`")
# `name` right after a reference in a list: `attn_tui/core/limits.py:C_MIN`, `C_MAX` names limits.py's C_MAX
BARE = re.compile(r"`([A-Za-z_]\w*(?:\.\w+)?)`")
LISTED = (", ", " (", " → ", " … ")  # what separates a bare name from the reference before it


def references(text: str) -> list[tuple[str, str | None]]:
    """(path, name or None) for each reference; a bare `name` is read as a name of the last
    `file.py` of its table cell (or line) when only a LISTED separator stands between them."""
    refs = []
    for line in text.splitlines():
        for cell in line.split("|"):
            last, end = None, 0  # last: the file.py a bare name after it belongs to, while the list goes on
            for m in re.finditer(rf"{REF.pattern}|{BARE.pattern}", cell):
                if m.group(1):
                    last = m.group(1) if m.group(1).endswith(".py") else None
                    refs.append((m.group(1), m.group(2)))
                elif last and cell[end : m.start()] in LISTED:
                    refs.append((last, m.group(3)))
                else:
                    last = None  # another list: `x` (of no file named here), `y`
                end = m.end()
    return refs


@cache
def defined(path: Path) -> frozenset[str]:
    """Top-level names of a module (functions, classes, assignments) and Class.member names."""
    names = set()

    def targets(node):
        if isinstance(node, ast.Assign):  # x = ..., and x, y = ...
            flat = [e for t in node.targets for e in (t.elts if isinstance(t, ast.Tuple) else [t])]
            return [t.id for t in flat if isinstance(t, ast.Name)]
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            return [node.target.id]
        return []

    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        names.update(targets(node))
        if isinstance(node, ast.ClassDef):
            for member in node.body:
                if isinstance(member, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                    names.add(f"{node.name}.{member.name}")
                names.update(f"{node.name}.{t}" for t in targets(member))
    return frozenset(names)


def test_the_doc_names_what_it_maps():
    refs = references(DOC.read_text())
    assert len({p for p, _ in refs}) > 60  # the parser finds the map's paths (a broken pattern finds none)
    assert sum(1 for _, n in refs if n) > 80


@pytest.mark.parametrize("path,name", sorted(set(references(DOC.read_text())), key=str))
def test_reference_exists(path, name):
    target = ROOT / path
    assert target.exists(), f"ARCHITECTURE.md names {path}, which does not exist"
    if name:
        assert name in defined(target), f"ARCHITECTURE.md names {path}:{name}, not defined there"


def test_references_are_read():
    """The reader itself: a path, a path with a name, a bare name after it, a name of no file."""
    line = "| a | `x/y.py:f`, `g` → `h` and `i`, `j`; `z.tcss`, `k` | `C` |"
    assert references(line) == [("x/y.py", "f"), ("x/y.py", "g"), ("x/y.py", "h"), ("z.tcss", None)]


def test_a_missing_name_is_caught(tmp_path):
    mod = tmp_path / "m.py"
    mod.write_text("class A:\n    x = 1\n    def f(self): ...\nB: int = 2\nC, D = 1, 2\ndef g(): ...\n")
    assert defined(mod) == {"A", "A.x", "A.f", "B", "C", "D", "g"}


DOCS = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "docs").glob("*.md"))


@pytest.mark.parametrize("doc", ["README.md", "ARCHITECTURE.md", *DOCS])
def test_relative_links_resolve(doc):
    """The README links the map and the pages moved out of it; each relative link's file exists."""
    page = ROOT / doc
    links = [m for m in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", page.read_text()) if "://" not in m]
    assert links, f"{doc} links nothing"  # each page links at least the README or the map
    missing = [m for m in links if not (page.parent / m).exists()]
    assert not missing, f"{doc} links to {missing}, which do not exist"


def test_readme_links_the_map_on_its_first_screen():
    first = (ROOT / "README.md").read_text().splitlines()[:60]
    assert any("(ARCHITECTURE.md)" in line for line in first)


def test_the_readme_is_a_start_that_links_every_page():
    """The README stays a first screen and a list of where the rest is: every docs/ page is linked
    from it, and every page links back to it."""
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) <= 80, "the README is a start: move references to a docs/ page"
    assert len(DOCS) >= 10  # the glob finds the pages (a wrong folder finds none)
    assert "tests/core/test_heads_model.py" in (ROOT / "docs" / "HEADS.md").read_text()  # what the next test reads
    assert not [d for d in DOCS if f"]({d})" not in readme]
    assert not [d for d in DOCS if "](../README.md" not in (ROOT / d).read_text()]


@pytest.mark.parametrize("doc", ["README.md", *DOCS])
def test_no_page_writes_a_test_count_or_a_suite_time(doc):
    """How many tests pass and how long they take change with each commit and each load: each run
    prints its own (pytest's last line, .ci/run's), so no page copies one, where it goes stale."""
    text = (ROOT / doc).read_text()
    stale = re.findall(r"[\d,]+ passed|about \d+ min on an idle", text)
    assert not stale, f"{doc} writes {stale}"


@pytest.mark.parametrize(
    "container, header",
    [("attn_tui.tui", "| layer | modules |"), ("attn_tui.cli", "| command layer | modules |")],
)
def test_the_layers_table_is_the_contract(container, header):
    """Each table of layers in ARCHITECTURE.md lists pyproject.toml's layers contract of its package, in order."""
    import tomllib

    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    (layers,) = [c["layers"] for c in contracts if c["type"] == "layers" and c["containers"] == [container]]
    contract = [set(re.split(r"\s*[|:]\s*", layer)) for layer in layers]
    text = DOC.read_text()
    section = text[text.index(header) :]
    section = section[: section.index("\n\n")]
    rows = re.findall(r"^\| \d+ \| (.*?) \| [^|]*\|$", section, flags=re.MULTILINE)
    folder = container.replace(".", "/")
    table = [{m.strip("/").removesuffix(".py") for m in re.findall(rf"`{folder}/([\w/.]+)`", r)} for r in rows]
    assert table == contract


@pytest.mark.parametrize("doc", DOCS)
def test_the_moved_pages_name_files_that_exist(doc):
    """The pages moved out of the README name tests, scripts and modules by path; each exists."""
    named = set(re.findall(r"(?:tests|scripts|attn_tui)/[\w/.]+\.(?:py|md|sh)", (ROOT / doc).read_text()))
    assert not [p for p in sorted(named) if not (ROOT / p).exists()]


def tree_names(text: str) -> set[str]:
    """The module paths the map's file tree names: each `name.py` on a line of the tree, in the folder
    that line sits in (a folder's own line and its continuation lines are inside it; a `sub/name.py`
    there is below that folder or below attn_tui/)."""
    block = text[text.index("```\nattn_tui/\n") + 4 :]
    block = block[: block.index("```")]
    named, folders, here = set(), [], ""  # folders: (indent, path) of the open ones
    for line in block.splitlines()[1:]:
        indent = len(line) - len(line.lstrip())
        first = line.split()[0] if line.strip() else ""
        if indent < 24 and first:  # a new entry (continuation lines start in the description column)
            folders = [(i, p) for i, p in folders if i < indent]
            if indent == 0:  # tests/, scripts/: outside the package
                folders, here = [(0, first)], first
                continue
            here = folders[-1][1] if folders else "attn_tui/"
            if first.endswith("/"):
                folders.append((indent, here + first))
                here = here + first
        for name in re.findall(r"[\w/]*\w\.py\b", line):
            named.add(here + name)
            named.add("attn_tui/" + name)
    return named


def modules() -> list[str]:
    """Every module of the package but a package's __init__.py holding only its docstring."""
    out = []
    for path in sorted((ROOT / "attn_tui").rglob("*.py")):
        if path.name == "__init__.py":
            body = ast.parse(path.read_text()).body
            if all(isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant) for n in body):
                continue
        out.append(path.relative_to(ROOT).as_posix())
    return out


def test_the_map_names_every_module():
    """A module the map does not name fails here, as a name the map writes that no longer exists fails above:
    named in the file tree (its folder's entry) or by its path anywhere in ARCHITECTURE.md."""
    text = DOC.read_text()
    named = tree_names(text) | {p for p, _ in references(text)}
    assert len(modules()) > 150  # the glob finds the package (a wrong folder finds nothing)
    unnamed = [m for m in modules() if m not in named]
    assert not unnamed, f"ARCHITECTURE.md does not name {unnamed}"


def test_the_tree_reader_places_names_in_their_folder():
    """The reader itself: a file of a folder, a name in a folder's description, one after a
    continuation line, a `sub/name.py` below the package, and a folder closed by a shallower entry."""
    text = (
        "```\nattn_tui/\n  a.py                  x\n  core/                 b.py (y)\n"
        "    c.py              z\n                        (d.py: w)\n    heads/            e.py\n"
        "  tui/                  f.py, views/g.py\ntests/                h.py\n```\n"
    )
    named = tree_names(text)
    for path in [
        "attn_tui/a.py",
        "attn_tui/core/b.py",
        "attn_tui/core/c.py",
        "attn_tui/core/d.py",
        "attn_tui/core/heads/e.py",
        "attn_tui/tui/f.py",
        "attn_tui/tui/views/g.py",
    ]:
        assert path in named, path
    assert "attn_tui/core/f.py" not in named and "attn_tui/h.py" not in named

"""The bad-input corpus of issue 10, generated: ``write_corpus(folder)`` writes every bad
scenario file (and FIFO, symlink loop, over-long name, ...) into ``folder`` and returns
one Case per file: its path, its class and the words the one-line refusal must contain.

Every case must be refused by every door (``attn-tui report --scenario F``,
``attn-tui --scenario F``, the core's ``resolve`` and the app's open) with one line
naming the file. Nothing is committed but this script.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from attn_tui.core.limits import MAX_FILE_BYTES
from tests.core.badarrays import ARRAYS, TOML  # issue 34: array files and TOML bombs

ESC, BEL = "\x1b", "\x07"
QK = "Q = [[1.0, 0.0], [0.0, 1.0]]\nK = [[1.0, 0.0], [0.0, 1.0]]\n"
PIPE = "X = [[1.0, 0.0], [0.0, 1.0]]\nW_Q = [[1.0], [0.0]]\nW_K = [[1.0], [0.0]]\nW_V = [[1.0], [0.0]]\n"
F16 = 'dtype = "float16"\nmask = "none"\n'
HUGE = "1" + "0" * 400  # an integer literal beyond float64


@dataclass(frozen=True)
class Case:
    name: str  # unique, also the test id
    cls: str  # the class of issue 10 it belongs to
    path: Path
    words: tuple  # what the refusal must contain (besides the file's name)


def toml(n):
    """A 1 x n row of zeros as TOML."""
    return "[" + ", ".join(["0.0"] * n) + "]"


# (name, class, file text, words); the text is written as UTF-8
TEXTS = [
    # -- not TOML, not text ----------------------------------------------------------
    ("unterminated array", "syntax", "Q = [[1.0,\n", ["not valid TOML"]),
    ("duplicate key", "syntax", QK + "Q = [[2.0]]\n", ["not valid TOML"]),
    ("bare word", "syntax", QK + "mask = causal\n", ["not valid TOML"]),
    ("unterminated string", "syntax", 'title = "abc\n' + QK, ["not valid TOML"]),
    ("bad escape", "syntax", 'title = "a\\qb"\n' + QK, ["not valid TOML"]),
    ("5000-digit integer", "huge integer", "Q = [[" + "9" * 5000 + "]]\nK = [[1.0]]\n", ["not valid TOML"]),
    ("empty file", "structure", "", ["X", "missing"]),
    ("only a comment", "structure", "# nothing here\n", ["X", "missing"]),
    ("table header", "structure", "[scenario]\n" + QK, ["scenario", "unknown key"]),
    # -- structure ---------------------------------------------------------------
    ("unknown key", "structure", QK + "colour = 3\n", ["colour", "unknown key"]),
    ("misspelt key", "structure", QK + "W_q = [[1.0]]\n", ["W_q", "unknown key"]),
    ("both X and Q", "structure", PIPE + "Q = [[1.0]]\n", ["Q", "either"]),
    ("X without W_Q", "structure", "X = [[1.0]]\nW_K = [[1.0]]\nW_V = [[1.0]]\n", ["W_Q", "missing"]),
    ("Y with Q", "structure", QK + "Y = [[1.0, 0.0]]\n", ["Y"]),
    ("key_tokens without Y", "structure", PIPE + 'key_tokens = ["a", "b"]\n', ["key_tokens", "without Y"]),
    ("ragged rows", "shape", "Q = [[1.0, 0.0], [0.0]]\nK = [[1.0, 0.0]]\n", ["Q", "row 2", "ragged"]),
    ("row not a list", "shape", "Q = [1.0, 2.0]\nK = [[1.0]]\n", ["Q", "row 1", "not a list"]),
    ("matrix a string", "shape", 'Q = "abc"\nK = [[1.0]]\n', ["Q", "list of rows"]),
    ("empty matrix", "shape", "Q = []\nK = [[1.0]]\n", ["Q", "non-empty"]),
    ("empty rows", "shape", "Q = [[]]\nK = [[1.0]]\n", ["Q", "empty"]),
    ("3-D matrix", "shape", "Q = [[[1.0]]]\nK = [[1.0]]\n", ["Q", "row 1, column 1", "not a number"]),
    ("K wrong width", "shape", "Q = [[1.0, 0.0]]\nK = [[1.0, 0.0, 1.0]]\n", ["K", "3 columns"]),
    ("V wrong rows", "shape", QK + "V = [[1.0], [2.0], [3.0]]\n", ["V", "3 rows"]),
    ("W_Q wrong rows", "shape", PIPE.replace("W_Q = [[1.0], [0.0]]", "W_Q = [[1.0]]"), ["W_Q", "1 rows"]),
    ("Y wrong width", "shape", PIPE + "Y = [[1.0, 2.0, 3.0]]\n", ["Y", "3 columns"]),
    ("tokens count", "labels", QK + 'tokens = ["a"]\n', ["tokens", "1 labels"]),
    ("tokens a string", "labels", QK + 'tokens = "ab"\n', ["tokens", "list of strings"]),
    ("tokens a number", "labels", QK + 'tokens = ["a", 2]\n', ["tokens", "list of strings"]),
    ("title a number", "structure", "title = 3\n" + QK, ["title", "string"]),
    ("dtype unknown", "settings", QK + 'dtype = "float8"\n', ["dtype", "float8"]),
    ("dtype a number", "settings", QK + "dtype = 16\n", ["dtype", "string"]),
    ("fill unknown", "settings", QK + "fill = -5\n", ["fill", "-5"]),
    ("mask unknown", "settings", QK + 'mask = "diagonal"\n', ["mask", "diagonal"]),
    ("scaled a string", "settings", QK + 'scaled = "yes"\n', ["scaled", "true or false"]),
    ("padding too big", "settings", QK + "padding = [3]\n", ["padding", "1..2"]),
    ("padding zero", "settings", QK + "padding = [0]\n", ["padding", "1..2"]),
    ("padding a float", "settings", QK + "padding = [1, 1.5]\n", ["padding", "entry 2"]),
    ("padding not a list", "settings", QK + "padding = 1\n", ["padding", "list"]),
    ("padding huge", "huge integer", QK + f"padding = [{HUGE}]\n", ["padding", "401 digits"]),
    # -- values --------------------------------------------------------------------
    ("nan cell", "non-finite", "Q = [[1.0, nan], [0.0, 1.0]]\nK = [[1.0, 0.0]]\n", ["Q", "row 1, column 2"]),
    ("inf cell", "non-finite", "Q = [[1.0, 0.0]]\nK = [[1.0, 0.0], [-inf, 1.0]]\n", ["K", "row 2, column 1"]),
    ("1e400 float", "non-finite", "Q = [[1.0, 0.0], [0.0, 1e400]]\nK = [[1.0, 0.0]]\n", ["Q", "row 2, column 2"]),
    ("1e-400 float", "underflow", "Q = [[1.0, 0.0],\n [0.0, 1e-400]]\nK = [[1.0, 0.0]]\n", ["Q: '1e-400' (line 2)"]),
    ("c 1e-400", "underflow", QK + "c = 1e-400\n", ["c: '1e-400' (line 3)", "read it as 0"]),
    ("huge int cell", "huge integer", f"Q = [[1.0, {HUGE}]]\nK = [[1.0, 0.0]]\n", ["Q", "row 1, column 2"]),
    ("string cell", "values", 'Q = [[1.0, "a"]]\nK = [[1.0, 0.0]]\n', ["Q", "row 1, column 2", "not a number"]),
    ("bool cell", "values", "Q = [[true, 1.0]]\nK = [[1.0, 0.0]]\n", ["Q", "row 1, column 1", "not a number"]),
    ("beyond bound", "values", QK.replace("[0.0, 1.0]]\nK", "[0.0, 1e7]]\nK"), ["Q", "row 2, column 2", "1e+06"]),
    (
        "beyond bound negative",
        "values",
        PIPE.replace("W_V = [[1.0], [0.0]]", "W_V = [[1.0], [-2e6]]"),
        ["W_V", "row 2, column 1", "1e+06"],
    ),
    (
        "X and W_Q 1e308",
        "values",
        "X = [[1e308]]\nW_Q = [[1e308]]\nW_K = [[1.0]]\nW_V = [[1.0]]\n",
        ["X", "row 1, column 1"],
    ),
    # -- computes? (float16 overflow inside the bound) -------------------------------
    (
        "f16 Q from X and W_Q",
        "overflow",
        F16 + "X = [[300.0]]\nW_Q = [[300.0]]\nW_K = [[1.0]]\nW_V = [[1.0]]\n",
        ["X row 1 and W_Q column 1", "float16", "65504"],
    ),
    (
        "f16 K from X and W_K",
        "overflow",
        F16 + "X = [[1.0], [300.0]]\nW_Q = [[1.0]]\nW_K = [[300.0]]\nW_V = [[1.0]]\n",
        ["X row 2 and W_K column 1", "float16"],
    ),
    (
        "f16 K from Y and W_K",
        "overflow",
        F16 + "X = [[1.0]]\nY = [[300.0]]\nW_Q = [[1.0]]\nW_K = [[300.0]]\nW_V = [[1.0]]\n",
        ["Y row 1 and W_K column 1", "float16"],
    ),
    (
        "f16 V from X and W_V",
        "overflow",
        F16 + "X = [[300.0]]\nW_Q = [[1.0]]\nW_K = [[1.0]]\nW_V = [[300.0]]\n",
        ["X row 1 and W_V column 1", "float16"],
    ),
    (
        "f16 scores from X",
        "overflow",
        F16 + "X = [[250.0, 250.0]]\nW_Q = [[1.0, 0.0], [0.0, 1.0]]\n"
        "W_K = [[1.0, 0.0], [0.0, 1.0]]\nW_V = [[1.0], [1.0]]\n",
        ["X row 1 (through W_Q) and X row 1", "S"],
    ),
    (
        "f16 scores from Q and K",
        "overflow",
        F16 + "Q = [[250.0, 250.0]]\nK = [[250.0, 250.0]]\n",
        ["Q row 1 and K row 1", "S overflows float16"],
    ),
    ("f16 Q given", "overflow", F16 + "Q = [[100000.0]]\nK = [[1.0]]\n", ["Q row 1, column 1", "float16"]),
    ("f16 scores with c", "overflow", F16 + "c = 1000.0\nQ = [[10.0]]\nK = [[10.0]]\n", ["Q row 1 and K row 1", "S"]),
    # -- sizes (refused before allocating) ------------------------------------------
    (
        "T = 100000",
        "size",
        "Q = [" + ", ".join(["[0.0]"] * 100000) + "]\nK = [[0.0]]\n",
        ["Q: more than", "lists", "512"],
    ),
    (
        "T = 513",
        "size",
        "X = [" + ", ".join(["[0.0]"] * 513) + "]\nW_Q = [[1.0]]\nW_K = [[1.0]]\nW_V = [[1.0]]\n",
        ["X", "513 rows"],
    ),
    ("d = 513", "size", f"Q = [{toml(513)}]\nK = [{toml(513)}]\n", ["Q", "513 columns"]),
    ("T' = 600", "size", "Q = [[0.0]]\nK = [" + ", ".join(["[0.0]"] * 600) + "]\n", ["K", "600 rows"]),
    ("nesting 5000", "nesting", "a = " + "[" * 5000 + "]" * 5000 + "\n", ["nest", "16"]),
    ("nesting 17", "nesting", QK + "V = " + "[" * 17 + "1.0" + "]" * 17 + "\n", ["nest", "line 3"]),
    ("inline tables 40 deep", "nesting", "a = " + "{b = " * 40 + "1" + "}" * 40 + "\n", ["nest"]),
    # -- bombs: few bytes each, millions of objects for tomllib (refused before it parses) ----
    ("list bomb", "size", "a = [" + "[]," * 5000 + "]\n", ["lists", "line 1"]),
    ("inline table bomb", "size", "a = [" + "{}," * 5000 + "]\n", ["lists"]),
    ("string bomb", "size", "a = [" + '"",' * 40000 + "]\n", ["strings"]),
    ("comment bomb", "size", "#\n" * 40000 + QK, ["comments", "line 33345"]),
    ("comma bomb", "size", "Q = [[" + "0," * 1400000 + "0]]\nK = [[0.0]]\n", ["commas", "512 x 512"]),
    ("key bomb", "size", "".join(f"k{i} = 0\n" for i in range(70000)) + QK, ["'=' signs"]),
    # -- scalars: c and window ---------------------------------------------------------
    ("c 10**400", "huge integer", QK + f"c = {HUGE}\n", ["c", "401 digits"]),
    ("c 1e400", "range", QK + "c = 1e400\n", ["c", "inf"]),
    ("c below range", "range", QK + "c = 0.0001\n", ["c", "0.001", "1000"]),
    ("c above range", "range", QK + "c = 10000\n", ["c", "0.001", "1000"]),
    ("c zero", "range", QK + "c = 0\n", ["c"]),
    ("c negative", "range", QK + "c = -1.0\n", ["c", "positive"]),
    ("c nan", "range", QK + "c = nan\n", ["c", "nan"]),
    ("c a string", "range", QK + 'c = "big"\n', ["c", "big"]),
    ("window 10**30", "huge integer", QK + 'mask = "window"\nwindow = 1' + "0" * 30 + "\n", ["window", "16384"]),
    ("window 10**30 causal", "window", QK + "window = 1" + "0" * 30 + "\n", ["window", "causal"]),
    ("window with causal", "window", QK + 'mask = "causal"\nwindow = 3\n', ["window", "causal"]),
    ("window with none", "window", QK + 'mask = "none"\nwindow = 1\n', ["window", "none"]),
    ("window without mask key", "window", QK + "window = 2\n", ["window", "causal"]),
    ("window zero", "window", QK + 'mask = "window"\nwindow = 0\n', ["window", ">= 1"]),
    ("window 600", "window", QK + 'mask = "window"\nwindow = 600\n', ["window", "512"]),
    ("window a float", "window", QK + 'mask = "window"\nwindow = 2.5\n', ["window", "whole number"]),
    ("window missing", "window", QK + 'mask = "window"\n', ["window", ">= 1"]),
    # -- titles and labels ---------------------------------------------------------------
    ("empty label", "labels", QK + 'tokens = ["a", ""]\n', ["tokens: label 2", "empty"]),
    ("blank label", "labels", QK + 'tokens = ["  ", "b"]\n', ["tokens: label 1", "empty"]),
    ("ESC in label", "control characters", QK + 'tokens = ["a\\u001b[31m", "b"]\n', ["tokens: label 1", "\\x1b"]),
    ("BEL in label", "control characters", QK + 'tokens = ["a", "b\\u0007"]\n', ["tokens: label 2", "\\x07"]),
    (
        "DEL in feature",
        "control characters",
        PIPE.replace("W_Q", 'features = ["a\\u007f", "b"]\nW_Q', 1),
        ["features: label 1", "\\x7f"],
    ),
    (
        "ESC in key token",
        "control characters",
        PIPE + 'Y = [[1.0, 0.0]]\nkey_tokens = ["\\u001bk"]\n',
        ["key_tokens: label 1", "\\x1b"],
    ),
    ("ESC in title", "control characters", 'title = "\\u001b]0;pwned\\u0007"\n' + QK, ["title", "\\x1b"]),
    ("BEL in title", "control characters", 'title = "ding\\u0007"\n' + QK, ["title", "\\x07"]),
    ("C1 CSI in title", "control characters", 'title = "x\\u009b2J"\n' + QK, ["title", "\\x9b"]),
    ("NUL escape in title", "control characters", 'title = "a\\u0000b"\n' + QK, ["title", "\\x00"]),
    ("empty title", "labels", 'title = ""\n' + QK, ["title", "empty"]),
    ("label 25 characters", "labels", QK + f'tokens = ["{"x" * 25}", "b"]\n', ["tokens: label 1", "24"]),
    ("label 3000 characters", "labels", QK + f'tokens = ["{"x" * 3000}", "b"]\n', ["tokens: label 1", "3000"]),
    ("title 201 characters", "labels", f'title = "{"x" * 201}"\n' + QK, ["title", "200"]),
    *TOML,
]

BYTES = [  # (name, class, raw bytes, words)
    ("binary PNG", "not text", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", ["not a text"]),
    ("NUL byte", "not text", b'title = "a"\x00\n', ["binary data"]),
    ("invalid UTF-8", "not text", b'title = "caf\xe9"\n', ["not a text"]),
    ("UTF-16", "not text", "\ufefftitle = 'x'\n".encode("utf-16"), ["not a text"]),
    ("BOM then bad TOML", "syntax", b"\xef\xbb\xbfQ = [[1.0,\n", ["not valid TOML"]),
]


def _special(folder: Path) -> list[tuple]:
    """Files that are not regular files, or names the OS refuses: (name, class, path, words)."""
    out = []
    fifo = folder / "fifo.toml"
    os.mkfifo(fifo)
    out.append(("FIFO", "special file", fifo, ["FIFO"]))
    zero = folder / "zero.toml"
    zero.symlink_to("/dev/zero")
    out.append(("symlink to /dev/zero", "special file", zero, ["character device"]))
    out.append(("/dev/zero itself", "special file", Path("/dev/zero"), ["character device"]))
    sub = folder / "a-folder.toml"
    sub.mkdir()
    out.append(("a folder", "special file", sub, ["is a folder"]))
    a, b = folder / "loop-a.toml", folder / "loop-b.toml"
    a.symlink_to(b)
    b.symlink_to(a)
    out.append(("symlink loop", "special file", a, ["cannot read", "symbolic links"]))
    me = folder / "self.toml"
    me.symlink_to(me)
    out.append(("symlink to itself", "special file", me, ["cannot read"]))
    dangling = folder / "dangling.toml"
    dangling.symlink_to(folder / "nowhere.toml")
    out.append(("dangling symlink", "special file", dangling, ["no such file"]))
    long = folder / ("n" * 300 + ".toml")
    out.append(("name of 300 characters", "special file", long, ["cannot read", "too long"]))
    plain = folder / "plain.toml"
    plain.write_text(QK, encoding="utf-8")
    out.append(("path through a file", "special file", plain / "x.toml", ["cannot read", "Not a directory"]))
    big = folder / "big.toml"
    with open(big, "wb") as f:
        f.truncate(MAX_FILE_BYTES + 1)  # sparse: no disk used, refused by its size before reading
    out.append(("file over the size limit", "size", big, [f"{MAX_FILE_BYTES // 2**20} MiB"]))
    weird = folder / f"esc{ESC}[31m{BEL}bad\nname.toml"
    weird.write_text(QK + "padding = [9]\n", encoding="utf-8")
    out.append(("ESC and newline in the file name", "control characters", weird, ["padding", "\\x1b", "\\n"]))
    return out


def write_corpus(folder) -> list[Case]:
    """Write every bad file into ``folder`` (which must exist) and return the cases."""
    folder = Path(folder)
    cases = []
    for i, (name, cls, text, words) in enumerate(TEXTS):
        p = folder / f"t{i:03d}.toml"
        p.write_text(text, encoding="utf-8")
        cases.append(Case(name, cls, p, tuple(words)))
    for i, (name, cls, raw, words) in enumerate(BYTES):
        p = folder / f"b{i:03d}.toml"
        p.write_bytes(raw)
        cases.append(Case(name, cls, p, tuple(words)))
    for i, (name, cls, suffix, raw, words) in enumerate(ARRAYS):
        p = folder / f"a{i:03d}{suffix}"
        p.write_bytes(raw)
        cases.append(Case(name, cls, p, tuple(words)))
    cases += [Case(name, cls, p, tuple(words)) for name, cls, p, words in _special(folder)]
    assert len({c.name for c in cases}) == len(cases)
    return cases


CLASSES = (
    "syntax",
    "underflow",
    "huge integer",
    "structure",
    "shape",
    "labels",
    "settings",
    "non-finite",
    "values",
    "overflow",
    "size",
    "nesting",
    "range",
    "window",
    "control characters",
    "not text",
    "special file",
    "array headers",
    "zip entries",
    "safetensors header",
    "toml bombs",
    "format characters",
)


def run_driver(driver: str, paths, folder) -> dict:
    """Run ``driver`` (a Python script taking a JSON list of file paths) in a fresh interpreter over
    ``paths``; what it printed as JSON. The doors run there, so an import or a crash of one is seen."""
    import json
    import subprocess
    import sys

    listing = folder / "files.json"
    listing.write_text(json.dumps([str(p) for p in paths]))
    res = subprocess.run(
        [sys.executable, "-c", driver, str(listing)],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
        stdin=subprocess.DEVNULL,
    )
    assert res.returncode == 0 and res.stderr == "", res.stderr[-3000:]
    return json.loads(res.stdout)

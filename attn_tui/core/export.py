"""Export the current matrices: one CSV or .npy file per matrix, in a folder.

Inputs (X, W_Q, W_K, W_V, Y or Q, K, V) and the trace (Q, K, V, S, M, S_masked, A,
O) are written as computed, in the scenario's dtype. CSV cells use repr(float),
which reads back bit for bit (``-inf`` and ``nan`` included); the first row holds
the column labels and the first column the row labels. All files are written or none
(core.atomic_folder: staged in a temporary folder, then renamed into place).
"""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from .atomic_folder import write_all_or_none
from .limits import EXPORT_MAX, gib
from .scenario import Scenario

if TYPE_CHECKING:
    from typing import Any

    from attn_tui.core.attention import Trace

FORMATS = ("csv", "npy")


def matrices(s: Scenario, trace: Trace) -> dict[Any, Any]:
    """name -> (array, row labels, column labels) of everything worth exporting."""
    q, k = s.tokens, s.keys
    d_k = tuple(f"k{j + 1}" for j in range(s.d_k))
    out = {}
    if s.projected:
        f = s.features
        out["X"] = (s.X, q, f)
        out["W_Q"] = (s.W_Q, f, d_k)
        out["W_K"] = (s.W_K, f, d_k)
        out["W_V"] = (s.W_V, f, s.value_features)
        if s.cross:
            out["Y"] = (s.Y, k, f)
    out["Q"] = (trace.Q, q, d_k)
    out["K"] = (trace.K, k, d_k)
    out["V"] = (trace.V, k, s.value_features)
    out["S"] = (trace.S, q, k)
    out["M"] = (trace.M, q, k)
    out["S_masked"] = (trace.S_masked, q, k)
    out["A"] = (trace.A, q, k)
    out["O"] = (trace.O, q, s.value_features)
    return out


def csv_text(a: np.ndarray, rows: Any, cols: Any) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["", *cols])
    for label, row in zip(rows, np.asarray(a)):
        w.writerow([label, *(repr(float(x)) for x in row)])
    return buf.getvalue()


def planned(folder: str | Path, fmt: str, names: Any) -> list[Path]:
    return [Path(folder) / f"{n}.{fmt}" for n in names]


def export(s: Scenario, trace: Trace, folder: str | Path, fmt: str = "csv", overwrite: bool = False) -> list[Path]:
    """Write every matrix of ``s``/``trace`` to ``folder`` as NAME.csv or NAME.npy.

    The folder is created if missing. FileExistsError (naming the first file)
    unless ``overwrite``; ValueError for an unknown format or a path that is a file.
    """
    if fmt not in FORMATS:
        raise ValueError(f"format: {fmt!r} is not one of {', '.join(FORMATS)}")
    if max(s.T, s.T_k) > EXPORT_MAX:  # a large scenario's trace is lazy (core.lazy): never materialised
        raise ValueError(
            f"{max(s.T, s.T_k)} tokens: matrices are exported up to {EXPORT_MAX} tokens (S alone would be "
            f"{gib(np.dtype(s.dtype).itemsize * s.T * s.T_k)} in {s.dtype} here); "
            "`attn-tui report --scenario FILE --json` summarises it"
        )
    folder = Path(folder).expanduser()
    if folder.exists() and not folder.is_dir():
        raise ValueError(f"{folder}: is a file; export writes a folder of {fmt} files")
    mats = matrices(s, trace)
    paths = planned(folder, fmt, mats)
    if not overwrite:
        for p in paths:
            if p.exists():
                raise FileExistsError(f"{p}: already exists")
    items = ((p.name, file_bytes(fmt, *m)) for p, m in zip(paths, mats.values()))  # one file in memory at a time
    write_all_or_none(folder, items)
    return paths


def file_bytes(fmt: str, a: np.ndarray, rows: Any, cols: Any) -> bytes:
    """The bytes of one exported matrix: CSV with labels, or .npy."""
    if fmt == "csv":
        return csv_text(a, rows, cols).encode("utf-8")
    buf = io.BytesIO()
    np.save(buf, np.asarray(a), allow_pickle=False)
    return buf.getvalue()

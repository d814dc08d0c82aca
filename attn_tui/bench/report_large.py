"""`report` on a large file against plain NumPy: `python -m attn_tui.bench --large --report`.

A random T x 64 Q, K, V in float32, causal, saved with ``np.savez`` (issue 32: T = 16384). Two
comparisons, each the median over interleaved runs:

- **end to end**, what the user waits for: ``python -m attn_tui report --scenario FILE`` (start,
  imports, the file's checks and load, the summary, its print) against ``python -c FLOOR FILE``
  (start, numpy, ``np.load``, the floor's pass);
- **in process**: ``summary.summarise`` of the loaded scenario (caches of core.stream emptied before
  each run) against the floor's function on the same arrays.

The floor is the simplest honest NumPy loop over the same work in the same dtype: row blocks of
S = scale · Q Kᵀ over the keys a causal row block may see (K[:r1], not the masked upper part),
the mask, softmax, entropy and O = A V. It runs on NumPy's default BLAS threads and on one (as
the report does; OPENBLAS_NUM_THREADS=1 for the command), and the faster of the two is the floor:
two BLAS threads help an idle 2-core machine and spin against other jobs on a loaded one. The
summary prints no O, so the floor without A V is printed too.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from typing import TYPE_CHECKING

import numpy as np
from threadpoolctl import threadpool_limits

from ..core.machine import cpus

if TYPE_CHECKING:
    from typing import Any

T_REPORT = 16384
GOAL = 1.5

FLOOR = '''
import sys
import numpy as np


def floor(Q, K, V, block=256, av=True):
    """H (bits) of every row of causal softmax(scale Q K^T), and O = A V, in the arrays' dtype."""
    T = Q.shape[0]
    scale = Q.dtype.type(1 / np.sqrt(Q.shape[1]))
    H = np.empty(T, dtype=Q.dtype)
    for r0 in range(0, T, block):
        r1 = min(r0 + block, T)
        S = (Q[r0:r1] @ K[:r1].T) * scale  # (rows, r1): the keys these rows may see, and the masked rest
        S[np.arange(r0, r1)[:, None] < np.arange(r1)[None, :]] = -np.inf
        A = np.exp(S - S.max(axis=1, keepdims=True))
        A /= A.sum(axis=1, keepdims=True)
        H[r0:r1] = -(A * np.log2(A, out=np.zeros_like(A), where=A > 0)).sum(axis=1)
        if av:
            O = A @ V[:r1]  # noqa: F841  (the work is the point)
    return H


if __name__ == "__main__":
    f = np.load(sys.argv[1])
    H = floor(f["Q"], f["K"], f["V"])
    print(f"mean H {H.mean():.3f} bits")
'''


def _floor():
    """The floor's function (FLOOR run as a module, not as a script)."""
    space: dict = {"__name__": "floor"}
    exec(compile(FLOOR, "<floor>", "exec"), space)
    return space["floor"]


def write_npz(path: str, T: int, d: int = 64, seed: int = 0) -> str:
    """Random float32 Q, K, V of T x d and a causal mask setting (the issue's case)."""
    rng = np.random.default_rng(seed)
    Q, K, V = (rng.standard_normal((T, d)).astype(np.float32) for _ in range(3))
    np.savez(path, Q=Q, K=K, V=V, mask=np.array("causal"))
    return path


def _wall(cmd, env=None) -> float:
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, env=None if env is None else os.environ | env)
    return time.perf_counter() - t0


def _in_process(path: str) -> dict:
    """One run each of summarise() (cold caches) and the floor with and without A V, seconds."""
    from ..core import stream_source
    from ..core.scenario_io import resolve
    from ..report import summary

    s = resolve(path, large=True)
    f = np.load(path)
    Q, K, V = f["Q"], f["K"], f["V"]
    floor = _floor()

    def ours(threads=None) -> None:
        stream_source.forget()  # a cold start each run
        chosen = summary.workers
        if threads:
            summary.workers = lambda: threads
        try:
            summary.summarise(s)
        finally:
            summary.workers = chosen

    def one_thread(**kw: Any) -> None:
        with threadpool_limits(1, user_api="blas"):
            floor(Q, K, V, **kw)

    return {
        "summarise": ours,  # on summary.workers() threads, as the command
        "summarise_1": lambda: ours(1),
        "summarise_cores": lambda: ours(cpus()),
        "floor": lambda: floor(Q, K, V),
        "floor_1t": one_thread,
        "floor_no_av": lambda: floor(Q, K, V, av=False),
        "floor_no_av_1t": lambda: one_thread(av=False),
    }


ONE_THREAD = {name: "1" for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")}


def run(T: int = T_REPORT, repeats: int = 5) -> dict:
    """Medians of ``repeats`` interleaved runs of each case (module doc), seconds."""
    times: dict = {}
    load = [os.getloadavg()]
    with tempfile.TemporaryDirectory() as tmp:
        path = write_npz(os.path.join(tmp, f"random{T}_f32.npz"), T)
        cli = [sys.executable, "-m", "attn_tui", "report", "--scenario", path]
        floor_cli = [sys.executable, "-c", FLOOR, path]
        inproc = _in_process(path)
        for _ in range(repeats):
            times.setdefault("cli", []).append(_wall(cli))
            times.setdefault("floor_cli", []).append(_wall(floor_cli))
            times.setdefault("floor_cli_1t", []).append(_wall(floor_cli, ONE_THREAD))
            for name, f in inproc.items():
                t0 = time.perf_counter()
                f()
                times.setdefault(name, []).append(time.perf_counter() - t0)
    load.append(os.getloadavg())
    return {"T": T, "repeats": repeats, "load": load, **{k: statistics.median(v) for k, v in times.items()}}


def _floor_of(r: dict, name: str) -> tuple[float, str]:
    """The faster of the floor on default threads and on one, and which it was."""
    return min((r[name], "default threads"), (r[name + "_1t"], "1 thread"))


def report(r: dict) -> list[str]:
    load = " then ".join(", ".join(f"{x:.2f}" for x in la) for la in r["load"])
    cli, cli_how = _floor_of(r, "floor_cli")
    floor, how = _floor_of(r, "floor")
    bare, bare_how = _floor_of(r, "floor_no_av")
    return [
        f"`report` on a random T={r['T']} x 64 float32 causal .npz against a plain NumPy pass (row blocks of S, "
        f"softmax, entropy, A V), medians of {r['repeats']} interleaved runs (load average {load}):",
        f"  end to end: attn-tui report {r['cli']:6.2f} s   python -c FLOOR FILE {cli:6.2f} s ({cli_how}; "
        f"{r['floor_cli']:.2f} s and {r['floor_cli_1t']:.2f} s)   {r['cli'] / cli:.2f}x (goal <= {GOAL}x)",
        f"  in process: summarise() {r['summarise']:6.2f} s   floor {floor:6.2f} s ({how})   "
        f"{r['summarise'] / floor:.2f}x",
        f"  floor without A V (the summary computes no O) {bare:6.2f} s ({bare_how})   {r['summarise'] / bare:.2f}x",
        f"  summarise() on 1 thread {r['summarise_1']:6.2f} s, on one per core {r['summarise_cores']:6.2f} s "
        f"(the command takes summary.workers(): more than 1 while cores are idle)",
    ]

"""The launch benchmark (bench/launch.py): both processes are timed to their first frame in a pty
and reported with the ratio (a smoke test: no timing is asserted)."""

from __future__ import annotations

import pytest

from attn_tui.bench import launch


def test_the_report_gives_both_figures_and_the_ratios():
    r = {"runs": 5, "explorer_wall_s": 0.9, "bare_wall_s": 0.6, "wall_ratio": 1.5}
    r.update(explorer_cpu_s=0.3, bare_cpu_s=0.2, cpu_ratio=1.5)
    lines = launch.report(r)
    assert "5 interleaved runs" in lines[0]
    assert "explorer 0.90 s" in lines[1] and "floor 0.60 s" in lines[1] and "1.50x" in lines[1]
    assert f"goal <= {launch.GOAL}x" in lines[1] and "0.30 s" in lines[2] and "0.20 s" in lines[2]
    assert "DIFFERS" in launch.report({**r, "first_is_settled": False})[3]


@pytest.mark.long
@pytest.mark.slow  # four processes started in a pty, to their first frames
def test_each_process_is_timed_to_its_first_frame():
    r = launch.measure(runs=1)
    assert len(r["explorer_all"]) == len(r["bare_all"]) == 1
    for kind in ("wall", "cpu"):
        e, b = r[f"explorer_{kind}_s"], r[f"bare_{kind}_s"]
        assert e > 0 and b > 0 and r[f"{kind}_ratio"] == e / b
    assert all(0 < cpu for _wall, cpu in r["explorer_all"] + r["bare_all"])  # each process's own CPU, read
    assert r["first_is_settled"] is True  # the clock stopped at the whole first screen
    assert "drawn whole" in launch.report(r)[3]


def test_a_process_that_never_draws_its_marker_is_reported_not_waited_for():
    with pytest.raises(RuntimeError, match="no first frame"):
        launch.launch_s(["sh", "-c", "exit 3"], ("never",))

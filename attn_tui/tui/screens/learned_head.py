"""The training screen's `s`: the learned head (W_Q, W_K; W_V = I is fixed) with the probe
sequence saved as a TOML scenario, loaded back and opened on the pipeline."""

from __future__ import annotations

from ...core import scenario_io as io
from ...core.train.scenario import learned_scenario
from ..served_root import rooted, served_root
from .files import SaveScreen

SAVE_DEFAULT = "learned_head.toml"


def save_learned(app, trainer, path: str, overwrite: bool) -> str | None:
    """Save ``trainer``'s learned head (TOML) at ``path``, load it back and open it on ``app``'s
    pipeline: None when opened, else the line the save dialog shows."""
    if not path:
        return f"type a file name, e.g. {SAVE_DEFAULT}"
    try:
        p = rooted(path)  # served: below the root
    except (ValueError, RuntimeError) as exc:
        return f"not saved: {exc}"
    if p.is_dir():
        return f"{p}: is a folder; type a file name inside it"
    if p.exists() and not overwrite:
        return SaveScreen.EXISTS
    try:
        io.save(learned_scenario(trainer), p, overwrite=True, within=served_root())
        scenario = io.load(p)
    except (OSError, ValueError, io.ScenarioError) as exc:
        return f"{path}: not saved ({getattr(exc, 'strerror', None) or exc})"
    app.paths.save = path
    why = app.open_scenario(scenario, note=f"opened the learned head from {p}")
    if why:
        return why
    app.set_state(app.state.with_(row=0))
    app.call_later(app.switch_mode, "pipeline")
    return None

"""Write every built-in scenario to assets/scenarios/NAME.toml (run after changing builtins.py)."""

from pathlib import Path

from attn_tui.core.builtins import BUILTINS
from attn_tui.core.scenario_io import save

out = Path(__file__).resolve().parent.parent / "assets" / "scenarios"
out.mkdir(parents=True, exist_ok=True)
for name, make in BUILTINS.items():
    print(save(make(), out / f"{name}.toml", overwrite=True))

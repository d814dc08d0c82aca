"""Export the scale sweep (the lesson's softmax_sharpening animation) as SVG.

One animated SVG (SMIL, plays in any browser: one frame every 1/fps seconds,
looping) and, beside it, one static SVG per frame. Each frame draws the two
bar charts of the lesson: the scores c·q·k/√d_k (the lesson's y from -3 to 6, widened so no
bar of the sweep is clipped) and the
softmax row (y from 0 to 1), titled with c and H(A_t) in bits.
No UI imports: frames come from ``core.experiments.scale_sweep``.
"""

from __future__ import annotations

import math
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING
from xml.sax.saxutils import escape

from ..core.atomic_folder import write_all_or_none
from ..core.experiments import LESSON_YLIM, sweep_ylim

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

W, H = 780, 290  # canvas, px
PANEL_W, PANEL_H, TOP, LEFT = 320, 200, 50, 40


def _bars(values: Any, x0: Any, lo: float, hi: float, colour: Any) -> Any:
    """SVG rects for ``values`` in a panel at x0 with y range [lo, hi]."""
    n = max(1, len(values))
    step = PANEL_W / n
    zero = TOP + PANEL_H * hi / (hi - lo)  # y pixel of value 0
    out = []
    for j, v in enumerate(values):
        v = 0.0 if not math.isfinite(v) else max(lo, min(hi, float(v)))
        y = TOP + PANEL_H * (hi - max(v, 0)) / (hi - lo)
        h = abs(v) * PANEL_H / (hi - lo)
        out.append(
            f'<rect x="{x0 + j * step + 4:.1f}" y="{y:.1f}" width="{step - 8:.1f}" height="{h:.1f}" fill="{colour}"/>'
        )
    out.append(f'<line x1="{x0}" y1="{zero:.1f}" x2="{x0 + PANEL_W}" y2="{zero:.1f}" stroke="#888"/>')
    return out


def _axes(x0: Any, lo: float, hi: float, labels: Any, title: Any) -> Any:
    out = [
        f'<rect x="{x0}" y="{TOP}" width="{PANEL_W}" height="{PANEL_H}" fill="none" stroke="#ccc"/>',
        f'<text x="{x0 + PANEL_W / 2}" y="{TOP - 12}" text-anchor="middle" font-size="13">{escape(title)}</text>',
        f'<text x="{x0 - 4}" y="{TOP + 4}" text-anchor="end" font-size="10">{hi:g}</text>',
        f'<text x="{x0 - 4}" y="{TOP + PANEL_H}" text-anchor="end" font-size="10">{lo:g}</text>',
    ]
    step = PANEL_W / max(1, len(labels))
    for j, lab in enumerate(labels):
        out.append(
            f'<text x="{x0 + (j + 0.5) * step:.1f}" y="{TOP + PANEL_H + 16}" '
            f'text-anchor="middle" font-size="11">{escape(lab)}</text>'
        )
    return out


def frame_body(frame: Any, labels: Any, uniform_bits: Any, ylim: Any = LESSON_YLIM) -> Any:
    """The SVG elements of one frame: {c, H, row, scores} from scale_sweep; ylim: the scores' y range
    (sweep_ylim: the lesson's -3..6 widened so no bar is clipped)."""
    c, h = frame["c"], frame["H"]
    lo, hi = ylim
    left = _axes(LEFT, lo, hi, labels, f"scores  c·q·k/√d_k,   c = {c:.2f}")
    left += _bars(list(frame["scores"]), LEFT, lo, hi, "#3b528b")
    x1 = LEFT + PANEL_W + 50
    right = _axes(x1, 0, 1, labels, f"softmax row:  H(A_t) = {h:.2f} bits  (uniform = {uniform_bits:.2f})")
    right += _bars(list(frame["row"]), x1, 0, 1, "#21918c")
    return left + right


def _svg(body: Any) -> Any:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" '
        f'font-family="sans-serif">\n<rect width="{W}" height="{H}" fill="white"/>\n' + "\n".join(body) + "\n</svg>\n"
    )


def animated_svg(frames: Any, labels: Any, fps: float = 6.0) -> str:
    """One SVG whose frames show in turn, looping (discrete SMIL opacity)."""
    n = len(frames)
    dur = n / fps
    uniform = math.log2(len(labels)) if labels else 0.0
    body = []
    for k, fr in enumerate(frames):
        if k == 0:
            values, times = "1;0", f"0;{1 / n:.6f}"
        else:
            values, times = "0;1;0", f"0;{k / n:.6f};{(k + 1) / n:.6f}"
        body.append(f'<g opacity="{1 if k == 0 else 0}">')
        body.append(
            f'<animate attributeName="opacity" values="{values}" keyTimes="{times}" '
            f'dur="{dur:.3f}s" calcMode="discrete" repeatCount="indefinite"/>'
        )
        body += frame_body(fr, labels, uniform, sweep_ylim(frames))
        body.append("</g>")
    return _svg(body)


def frame_svg(frame: Any, labels: Any, ylim: Any = LESSON_YLIM) -> str:
    """A static SVG of one frame."""
    return _svg(frame_body(frame, labels, math.log2(len(labels)) if labels else 0.0, ylim))


def existing(directory: str | Path, stem: str = "softmax_sharpening") -> list[Path]:
    """The files ``export`` would overwrite in ``directory`` (the animation, the frames folder)."""
    directory = Path(directory)
    return [p for p in (directory / f"{stem}.svg", directory / f"{stem}_frames") if p.exists()]


def export(frames: Any, labels: Any, directory: str | Path, stem: str = "softmax_sharpening", fps: float = 6.0) -> Path:
    """Write <stem>.svg (animated) and <stem>_frames/frame_NN.svg; return the animated file's path.

    Raises OSError (with the path) when the directory cannot be written; then every file there is
    as it was (core.atomic_folder: all files or none).
    """
    directory = Path(directory)
    ylim = sweep_ylim(frames)  # one range for every frame, as the animation's
    files: list[tuple[str, Callable[[], str]]] = [(f"{stem}.svg", lambda: animated_svg(frames, labels, fps))]
    for k, fr in enumerate(frames):
        files.append((f"{stem}_frames/frame_{k + 1:02d}.svg", partial(frame_svg, fr, labels, ylim)))
    write_all_or_none(directory, ((name, make().encode("utf-8")) for name, make in files))
    return directory / f"{stem}.svg"

"""The scale sweep's export: an animated SVG and one SVG per frame."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import numpy as np

from attn_tui.core.experiments import scale_sweep
from attn_tui.report import sweep_svg as sweep_export

NS = "{http://www.w3.org/2000/svg}"
LABELS = [f"t{i + 1}" for i in range(8)]


def test_animated_svg_has_thirty_looping_frames_titled_with_c_and_h():
    frames = scale_sweep()
    root = ET.fromstring(sweep_export.animated_svg(frames, LABELS, fps=6))
    groups = root.findall(f"{NS}g")
    assert len(groups) == 30
    for k, (g, fr) in enumerate(zip(groups, frames)):
        anim = g.find(f"{NS}animate")
        assert anim.get("repeatCount") == "indefinite" and anim.get("dur") == "5.000s"
        assert anim.get("calcMode") == "discrete"
        titles = [t.text for t in g.iter(f"{NS}text")]
        assert f"c = {fr['c']:.2f}" in titles[0]
        assert any(f"H(A_t) = {fr['H']:.2f} bits" in t for t in titles)
        assert g.get("opacity") == ("1" if k == 0 else "0")  # only the first frame shows at rest


def test_entropy_falls_across_the_exported_titles():
    svg = sweep_export.animated_svg(scale_sweep(), LABELS)
    hs = [float(h) for h in re.findall(r"H\(A_t\) = ([0-9.]+) bits", svg)]
    assert len(hs) == 30
    assert hs[0] > 2.9 and hs[-1] < 0.5  # flat at c = 0.1, nearly one-hot at c = 3
    assert all(a >= b - 1e-9 for a, b in zip(hs, hs[1:]))


def test_bars_stay_inside_their_panels_and_nan_does_not_crash():
    fr = {"c": 1.0, "H": float("nan"), "row": np.array([np.nan, 1.0]), "scores": np.array([np.inf, -50.0])}
    root = ET.fromstring(sweep_export.frame_svg(fr, ["a", "b"]))
    for r in root.iter(f"{NS}rect"):
        y, h = float(r.get("y", 0)), float(r.get("height"))
        assert h >= 0 and y + h <= sweep_export.H


def test_export_writes_the_animation_and_the_frames(tmp_path):
    path = sweep_export.export(scale_sweep(), LABELS, tmp_path / "out")
    assert path == tmp_path / "out" / "softmax_sharpening.svg"
    ET.parse(path)
    frames = sorted((tmp_path / "out" / "softmax_sharpening_frames").glob("frame_*.svg"))
    assert [f.name for f in frames[:2]] == ["frame_01.svg", "frame_02.svg"] and len(frames) == 30
    ET.parse(frames[-1])

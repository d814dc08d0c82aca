"""The sweep's SVG drawn where its layout says, element by element (report/sweep_svg.py).

The layout, written here as the specification the export follows: a 780×290 white canvas; two
320×200 panels 50 px from the top, the scores' at x = 40 (y from -3 to 6) and the softmax row's
50 px to its right (y from 0 to 1); bar j of n fills its 320/n slot less 4 px each side, from
the zero line to its value clipped to the panel (a non-finite value draws no bar); labels
under the slot centres 16 px below the panel, the range's ends beside the panel's left edge,
the title 12 px above it. Every coordinate is recomputed from the frame's numbers; a wrong sign,
factor or offset in the drawing fails (scripts/mutation.sh, mutants of report/sweep_svg.py).
"""

from __future__ import annotations

import io
import math
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from attn_tui.core.experiments import scale_sweep
from attn_tui.report import sweep_svg

NS = "{http://www.w3.org/2000/svg}"
TOP, PW, PH = 50, 320, 200
PANELS = ((40, -3, 6, "#3b528b", "scores"), (410, 0, 1, "#21918c", "row"))


def panel(x0, lo, hi, colour, values, labels, title):
    """The (tag, attributes, text) of one panel, as the layout above draws it."""
    out = [
        ("rect", {"x": x0, "y": TOP, "width": PW, "height": PH, "fill": "none", "stroke": "#ccc"}, None),
        ("text", {"x": x0 + PW / 2, "y": TOP - 12, "text-anchor": "middle"}, title),
        ("text", {"x": x0 - 4, "y": TOP + 4, "text-anchor": "end"}, f"{hi:g}"),
        ("text", {"x": x0 - 4, "y": TOP + PH, "text-anchor": "end"}, f"{lo:g}"),
    ]
    slot = PW / max(1, len(labels))
    out += [("text", {"x": x0 + (j + 0.5) * slot, "y": TOP + PH + 16}, lab) for j, lab in enumerate(labels)]
    px = PH / (hi - lo)  # pixels per unit
    zero = TOP + hi * px
    slot = PW / max(1, len(values))
    for j, v in enumerate(values):
        v = min(hi, max(lo, float(v))) if math.isfinite(v) else 0.0
        top = zero - v * px if v > 0 else zero
        out.append(
            ("rect", {"x": x0 + j * slot + 4, "y": top, "width": slot - 8, "height": abs(v) * px, "fill": colour}, None)
        )
    out.append(("line", {"x1": x0, "y1": zero, "x2": x0 + PW, "y2": zero, "stroke": "#888"}, None))
    return out


def frame_elements(frame, labels):
    uniform = math.log2(len(labels)) if labels else 0.0
    titles = (
        f"scores  c·q·k/√d_k,   c = {frame['c']:.2f}",
        f"softmax row:  H(A_t) = {frame['H']:.2f} bits  (uniform = {uniform:.2f})",
    )
    out = []
    for (x0, lo, hi, colour, key), title in zip(PANELS, titles):
        out += panel(x0, lo, hi, colour, list(frame[key]), labels, title)
    return out


def check(elements, want):
    assert len(elements) == len(want)
    for el, (tag, attrs, text) in zip(elements, want):
        assert el.tag == NS + tag
        for k, v in attrs.items():
            if isinstance(v, str):
                assert el.get(k) == v, (tag, k)
            else:
                assert float(el.get(k)) == pytest.approx(v, abs=0.051), (tag, k, el.attrib)
        if text is not None:
            assert el.text == text
        assert not (el.tail or "").strip()  # nothing but whitespace between elements


def check_canvas(root):
    assert (root.get("width"), root.get("height"), root.get("viewBox")) == ("780", "290", "0 0 780 290")
    bg = root[0]
    assert (bg.tag, bg.get("width"), bg.get("height"), bg.get("fill")) == (NS + "rect", "780", "290", "white")
    assert not (root.text or "").strip() and not (bg.tail or "").strip()


FRAMES = [
    ({"c": 1.25, "H": 1.5, "row": [0.1, 0.7, 0.2], "scores": [-5.0, 2.5, 9.0]}, ["a", "b", "c"]),
    ({"c": 0.5, "H": 0.0, "row": [1.0], "scores": [-1.5]}, ["only"]),
    ({"c": 2.0, "H": float("nan"), "row": [np.nan, 0.4], "scores": [np.inf, -np.inf]}, ["x", "y"]),
    ({"c": 1.0, "H": 0.0, "row": [], "scores": []}, []),
    (scale_sweep()[7], [f"t{i + 1}" for i in range(8)]),
]


@pytest.mark.parametrize("frame, labels", FRAMES)
def test_a_frame_draws_every_bar_label_and_title_where_the_layout_says(frame, labels):
    root = ET.fromstring(sweep_svg.frame_svg(frame, labels))
    check_canvas(root)
    check(list(root)[1:], frame_elements(frame, labels))


def test_the_animation_shows_each_frame_for_one_nth_of_the_loop():
    frames, labels = scale_sweep()[:4], ["p", "q", "r", "s", "t", "u", "v", "w"]
    n = len(frames)
    root = ET.fromstring(sweep_svg.animated_svg(frames, labels))  # the default: 6 frames a second
    check_canvas(root)
    groups = list(root)[1:]
    assert len(groups) == n
    for k, (g, fr) in enumerate(zip(groups, frames)):
        assert g.tag == NS + "g" and g.get("opacity") == ("1" if k == 0 else "0")
        anim, *body = list(g)
        ends = [k / n, (k + 1) / n]
        values, times = ("1;0", [0, ends[1]]) if k == 0 else ("0;1;0", [0, *ends])
        assert anim.get("values") == values and anim.get("attributeName") == "opacity"
        assert [float(x) for x in anim.get("keyTimes").split(";")] == pytest.approx(times, abs=1e-6)
        assert anim.get("dur") == f"{n / 6:.3f}s" and anim.get("repeatCount") == "indefinite"
        check(body, frame_elements(fr, labels))
        assert not (g.tail or "").strip()


def test_the_animation_of_frames_without_labels_and_at_another_speed(tmp_path):
    frames = [{"c": 1.0, "H": 0.0, "row": [], "scores": []}] * 2
    root = ET.fromstring(sweep_svg.animated_svg(frames, []))
    check_canvas(root)
    for g in list(root)[1:]:
        check(list(g)[1:], frame_elements(frames[0], []))  # uniform = 0.00 bits with no label
    path = sweep_svg.export(scale_sweep()[:3], ["a", "b"], tmp_path, fps=3.0)
    anim = ET.parse(path).getroot()[1][0]
    assert anim.get("dur") == f"{3 / 3.0:.3f}s"


def test_export_makes_missing_parents_writes_utf8_and_overwrites(tmp_path, monkeypatch):
    # a locale whose encoding cannot write "√": the files must say UTF-8 themselves
    real = io.text_encoding
    monkeypatch.setattr(io, "text_encoding", lambda enc, *a: real(enc or "cp1252", *a))
    frames, labels = scale_sweep()[:3], ["a", "b"]
    out = tmp_path / "deep" / "er"
    assert sweep_svg.existing(out) == []
    for _ in range(2):  # the second export overwrites the first
        path = sweep_svg.export(frames, labels, out)
    assert path == out / "softmax_sharpening.svg"
    assert path.read_text(encoding="utf-8") == sweep_svg.animated_svg(frames, labels, 6.0)
    for k, fr in enumerate(frames):
        got = (out / "softmax_sharpening_frames" / f"frame_{k + 1:02d}.svg").read_text(encoding="utf-8")
        assert got == sweep_svg.frame_svg(fr, labels)
    assert sweep_svg.existing(out) == [path, out / "softmax_sharpening_frames"]
    assert sweep_svg.existing(out, "other") == []

"""Headless output: the lesson's numbers as text (``text``) and JSON (``as_json``), the
scale sweep as SVG (``sweep_svg``). Imports the core only, never a UI library."""

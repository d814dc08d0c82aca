"""What more than one command's arguments share: the scenario option's help and the ASCII number type."""

from __future__ import annotations

import argparse

from ..core.builtins import BUILTINS
from ..core.numparse import parse_float, parse_int

SCENARIO_HELP = f"a built-in ({', '.join(BUILTINS)}) or a scenario file (.toml, .npz, .safetensors)"
# core.heads.demo.HEAD_BUILTINS, written out: importing core.heads to build the parser costs ~0.1 s
# (tests/report/test_cli_help_names.py keeps this the same list)
HEAD_NAMES = ("induction-demo", "text-demo")
HEADS_HELP = f"a multi-head built-in ({', '.join(HEAD_NAMES)}) or a multi-head file"


def number_type(kind, name: str):
    """An argparse type reading ASCII digits only (core.numparse): int() took '١' as 1. For every
    whole-number option (train's, report's and heads' --layer, --head)."""

    def parse(text: str):
        try:  # ASCII only, bounded (core.numparse); the commands check the ranges
            return parse_float(text, name) if kind is float else parse_int(text, name)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc).split(": ", 1)[1]) from None

    parse.__name__ = name  # argparse names the option in its message
    return parse

"""The lenses' tables: no box, a bold header, numbers right-aligned (key and address columns left)."""

from __future__ import annotations

from rich.table import Table


def table(*headers) -> Table:
    t = Table(box=None, pad_edge=False, padding=(0, 1), show_header=True, header_style="bold")
    for h in headers:
        t.add_column(h, justify="right" if h not in ("key", "address") else "left", no_wrap=True)
    return t

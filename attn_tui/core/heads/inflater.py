"""One deflated .npz member read at any position, backward too, without starting from its first byte.

A zip member's stream (zipfile.ZipExtFile) seeks forward by decompressing and backward by starting
again from the member's first byte. Attention rollout reads the layers last to first, so each layer
of a compressed file decompressed every layer before it again: O(L²) for L layers (1 min 51 s for one
row of 64 layers x 64 heads x 16,384 tokens). Here the decompressor's state is kept every SPACING
bytes of output (zlib's ``decompressobj().copy()``: its window and position, some 40 KB), so a read
behind the position resumes from the checkpoint before it. At most MARKS checkpoints: on a member of
many gigabytes (a compression bomb of zeros) they are spaced wider, never more memory.
"""

from __future__ import annotations

import zlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

SPACING = 4 * 2**20  # bytes of output between two checkpoints, at least
MARKS = 256  # checkpoints kept at most
CHUNK = 2**20  # compressed bytes read from the file at a time


class Inflater:
    """``read(at, n)``: n bytes from byte ``at`` of the raw-deflate data of ``size`` compressed bytes
    at ``offset`` in ``path``, decompressing to ``total`` bytes (the member's declared size)."""

    def __init__(self, path: str | Path, offset: int, size: int, total: int) -> None:
        self.f = open(path, "rb")  # noqa: SIM115  (close())
        self.offset, self.size = offset, size
        self.spacing = max(SPACING, -(-total // MARKS))
        self._at(0, 0, zlib.decompressobj(-zlib.MAX_WBITS), b"")
        self.marks = [(0, 0, self.d.copy(), b"")]  # (output position, input fed, decompressor, its tail)

    def _at(self, out: int, fed: int, d: Any, tail: bytes) -> None:
        self.out, self.fed, self.d, self.tail = out, fed, d, tail

    def close(self) -> None:
        self.f.close()

    def read(self, at: int, n: int) -> bytes:
        if at < self.out:  # behind: the last checkpoint at or before it
            out, fed, d, tail = max((m for m in self.marks if m[0] <= at), key=lambda m: m[0])
            self._at(out, fed, d.copy(), tail)
        got = bytearray()
        while self.out < at or len(got) < n:
            skip = at - self.out
            piece = self._inflate(skip if skip > 0 else n - len(got))
            if not piece:
                break  # the data ended: the caller sees fewer bytes than it asked for
            if skip > 0:
                piece = piece[skip:]
            got += piece
        return bytes(got[:n])

    def _inflate(self, most: int) -> bytes:
        """Up to ``most`` more bytes of output (b"" at the end of the data); a checkpoint when one is due."""
        most = min(most, self.spacing - self.out % self.spacing)  # up to the next checkpoint, not past it
        while True:
            if self.d.eof:
                return b""
            data = self.tail
            if not data and self.fed < self.size:
                self.f.seek(self.offset + self.fed)
                data = self.f.read(min(CHUNK, self.size - self.fed))
                if not data:
                    raise ValueError("truncated inside the .npz")
                self.fed += len(data)
            # no input left: b"" drains what zlib holds (all input taken, output still to come)
            piece = self.d.decompress(data, most)
            self.tail = self.d.unconsumed_tail
            if piece:
                before, self.out = self.out, self.out + len(piece)
                if self.out % self.spacing == 0 and self.out > before and len(self.marks) < MARKS:
                    self.marks.append((self.out, self.fed, self.d.copy(), self.tail))
                return piece
            if not data:
                return b""  # nothing in, nothing out: the data ended

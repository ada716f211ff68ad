"""Line sources: a binary scan file as blocks of whole lines (pure core: no Django)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import BinaryIO

MAX_LINE_BYTES = 1 << 20  # a scan line is a path and a few fields (PATH_MAX is 4 KB)


class ScanLineTooLong(ValueError):
    """A line longer than MAX_LINE_BYTES: a damaged file, not a scan, or a decompression bomb."""


def iter_blocks(fileobj: BinaryIO, block_bytes: int = 1 << 20) -> Iterator[bytes]:
    """Blocks of whole lines (each ending in ``\\n``) read from a binary file.

    ``\\r\\n`` becomes ``\\n``; a final line without newline gets one.  A line longer than
    MAX_LINE_BYTES raises ScanLineTooLong: carried forward it would be held whole and re-copied at
    every read (a few MB of gzip can hold gigabytes without a line break).
    """
    carry = b""
    lines_done = 0
    while True:
        if len(carry) > MAX_LINE_BYTES:
            raise ScanLineTooLong(f"line {lines_done + 1:,} is longer than {MAX_LINE_BYTES >> 20} MB without a line "
                                  "break: the file is damaged or is not a scan")
        data = fileobj.read(block_bytes)
        if not data:
            break
        data = carry + data
        if b"\r" in data:
            keep_cr = data.endswith(b"\r")
            data = data.replace(b"\r\n", b"\n")
            if keep_cr:
                carry, data = b"\r", data[:-1]
            else:
                carry = b""
        cut = data.rfind(b"\n")
        if cut < 0:
            carry = data
            continue
        carry = data[cut + 1 :]
        lines_done += data.count(b"\n", 0, cut + 1)
        yield data[: cut + 1]
    if carry:
        yield carry + b"\n"


def lines_of_block(block: bytes) -> list[bytes]:
    lines = block.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    return lines


def iter_lines(fileobj: BinaryIO) -> Iterator[bytes]:
    for block in iter_blocks(fileobj):
        yield from lines_of_block(block)

"""Line sources: a binary scan file as blocks of whole lines (pure core: no Django)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import BinaryIO


def iter_blocks(fileobj: BinaryIO, block_bytes: int = 1 << 20) -> Iterator[bytes]:
    """Blocks of whole lines (each ending in ``\\n``) read from a binary file.

    ``\\r\\n`` becomes ``\\n``; a final line without newline gets one.
    """
    carry = b""
    while True:
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

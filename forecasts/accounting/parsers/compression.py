"""Open an accounting file, transparently decompressing it (pure core, no Django).

The compression is detected from the first bytes, never from the file name: a
rotated ``20240101`` may be gzipped and a ``.gz`` may not be.  Supported:
gzip (``1f 8b``, multi-member files such as ``cat a.gz b.gz`` included), bzip2
(``BZh``, multi-stream included) and xz (``fd 37 7a 58 5a 00``).  Anything else
passes through unchanged.  zstd is recognised only to raise a clear error.
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
from collections.abc import Iterator
from typing import BinaryIO, Union

GZIP_MAGIC = b"\x1f\x8b"
BZIP2_MAGIC = b"BZh"
XZ_MAGIC = b"\xfd7zXZ\x00"
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
_SNIFF = 6

Source = Union[str, "os.PathLike[str]", BinaryIO]


class UnsupportedCompression(ValueError):
    """The input is compressed with something the standard library cannot read."""


class TruncatedInput(ValueError):
    """Compressed input that ends before its end-of-stream marker (a copy cut short)."""


TRUNCATED = "the file is truncated (compressed data ended early)"


class StopAtTruncation(io.RawIOBase):
    """Reads a decompressing stream and ends it where the compressed data ends early, instead of raising.

    Everything decompressed before the cut is still read (and loaded); ``truncated`` then says the
    stream did not end properly.  Plain streams are never wrapped (see ``is_compressed``).
    """

    def __init__(self, inner: BinaryIO) -> None:
        self._inner = inner
        self.truncated = False

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        if self.truncated:
            return 0
        view = memoryview(buffer).cast("B")
        try:
            # read1: one step of decompression at a time, so what came before the cut is returned by an
            # earlier call (read(n) loops to fill n bytes and drops them when the cut raises)
            data = self._inner.read1(len(view))  # type: ignore[attr-defined]
        except EOFError:
            self.truncated = True
            return 0
        view[: len(data)] = data
        return len(data)


MAX_LINE_BYTES = 16 * 1024 * 1024  # far above any real record (a PBS exec_host list for 100,000 cores is ~1.2 MB)


class LineTooLong(TruncatedInput):
    """A line longer than MAX_LINE_BYTES: the run stops there like a cut file (said in words, not retried)."""


TOO_LONG = f"is longer than {MAX_LINE_BYTES // 1024**2} MB without a line break"


def too_long_message(name: str, line: int, records: int) -> str:
    return (f"{name}: line {line:,} {TOO_LONG}, after "
            f"{records:,} records: those are loaded, the rest of the file is not read. No accounting format has "
            "lines this long: the file is damaged or is not an accounting log")


class LineLimit:
    """The lines of a binary stream, each read with a bound so that one without a line break cannot fill memory.

    A compressed file of a few megabytes can decompress to gigabytes without a newline; iterating it
    line by line held them all in one bytes object.  Iteration stops at an over-long line and
    ``too_long_at`` names it (1-based).
    """

    def __init__(self, stream: BinaryIO, limit: int = MAX_LINE_BYTES) -> None:
        self._stream = stream
        self._limit = limit
        self.too_long_at: int | None = None

    def __iter__(self) -> Iterator[bytes]:
        line_number = 0
        while True:
            line = self._stream.readline(self._limit + 1)
            if not line:
                return
            line_number += 1
            if len(line) > self._limit and not line.endswith(b"\n"):
                self.too_long_at = line_number
                return
            yield line


UTF8_BOM = b"\xef\xbb\xbf"


def skip_bom(stream: BinaryIO) -> None:
    """Read past a UTF-8 byte-order mark at the start of ``stream`` (a file saved by Windows Notepad or Excel):
    left in, it made the first line (a header) unreadable and every record of the file was rejected."""
    peek = getattr(stream, "peek", None)
    if peek is not None and peek(len(UTF8_BOM))[:len(UTF8_BOM)] == UTF8_BOM:
        stream.read(len(UTF8_BOM))


def is_compressed(stream: object) -> bool:
    return isinstance(stream, (gzip.GzipFile, bz2.BZ2File, lzma.LZMAFile))


def compression_of(head: bytes) -> str | None:
    """The compression named by the first bytes: "gzip", "bzip2", "xz", "zstd" or None."""
    if head.startswith(GZIP_MAGIC):
        return "gzip"
    if head.startswith(BZIP2_MAGIC):
        return "bzip2"
    if head.startswith(XZ_MAGIC):
        return "xz"
    if head.startswith(ZSTD_MAGIC):
        return "zstd"
    return None


class _Prefixed(io.RawIOBase):
    """A raw stream that yields ``prefix`` and then the rest of ``inner``.

    Used to "un-read" the sniffed bytes of a stream that cannot seek (a pipe, a socket).
    """

    def __init__(self, prefix: bytes, inner: BinaryIO) -> None:
        self._prefix = prefix
        self._inner = inner

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        view = memoryview(buffer).cast("B")
        if self._prefix:
            n = min(len(view), len(self._prefix))
            view[:n] = self._prefix[:n]
            self._prefix = self._prefix[n:]
            return n
        data = self._inner.read(len(view))
        if not data:
            return 0
        view[: len(data)] = data
        return len(data)


def _wrap(kind: str | None, raw: BinaryIO) -> BinaryIO:
    if kind == "gzip":
        return gzip.GzipFile(fileobj=raw, mode="rb")  # type: ignore[return-value]
    if kind == "bzip2":
        return bz2.BZ2File(raw, mode="rb")  # type: ignore[return-value]
    if kind == "xz":
        return lzma.LZMAFile(raw, mode="rb")  # type: ignore[return-value]
    if kind == "zstd":
        raise UnsupportedCompression(
            "input is zstd-compressed, which this Python cannot read: decompress it first (zstd -d FILE)"
        )
    return raw


def open_source(path_or_fileobj: Source) -> BinaryIO:
    """A streaming binary file object over the decompressed content.

    Given a path, the returned object owns the file (close it, or use ``with``).
    Given a binary file object, the caller keeps ownership of it; the object is
    read from its current position.  Iterating the result yields byte lines.
    """
    if isinstance(path_or_fileobj, (str, os.PathLike)):
        path = os.fspath(path_or_fileobj)
        with open(path, "rb") as probe:
            kind = compression_of(probe.read(_SNIFF))
        if kind == "gzip":
            return gzip.open(path, "rb")  # type: ignore[return-value]
        if kind == "bzip2":
            return bz2.open(path, "rb")  # type: ignore[return-value]
        if kind == "xz":
            return lzma.open(path, "rb")  # type: ignore[return-value]
        if kind == "zstd":
            _wrap(kind, io.BytesIO())  # raises the explanatory error
        return open(path, "rb")

    fileobj = path_or_fileobj
    peek = getattr(fileobj, "peek", None)
    if peek is not None:
        head = peek(_SNIFF)[:_SNIFF]
        if len(head) >= _SNIFF or not head:
            return _wrap(compression_of(head), fileobj)
    seekable = False
    try:
        seekable = fileobj.seekable()
    except (AttributeError, OSError, ValueError):
        seekable = False
    if seekable:
        pos = fileobj.tell()
        head = fileobj.read(_SNIFF)
        fileobj.seek(pos)
        return _wrap(compression_of(head), fileobj)
    head = b""
    while len(head) < _SNIFF:
        chunk = fileobj.read(_SNIFF - len(head))
        if not chunk:
            break
        head += chunk
    stream: BinaryIO = io.BufferedReader(_Prefixed(head, fileobj))  # type: ignore[assignment]
    return _wrap(compression_of(head), stream)

"""Streaming parsers for file-system scans (pure core: no Django).

Three inputs, all read as bytes lines:

``FindTsvParser``
    One line per file system entry, as written by
    ``find /gpfs -printf '%s\\t%u\\t%g\\t%T@\\t%y\\t%p\\n'`` (the default column order: size in
    bytes, owner, group, mtime in epoch seconds, type letter, path) or by a GUFI query with the
    same columns. A header line (optionally starting with ``#``) such as
    ``size<TAB>owner<TAB>path`` sets another column order; the delimiter is a tab unless the
    header or first line says otherwise (``,`` or ``|``). Only ``size`` is required; the path
    may contain the delimiter only when it is the last column (the line is split at most
    ``columns - 1`` times). No CSV quoting.

``GpfsListParser``
    The list files ``mmapplypolicy -I defer -f /tmp/scan`` writes, one line per inode:
    ``inode generation snapid SHOW-fields -- /path``. The policy we expect (see
    ``GPFS_POLICY``) shows ``FILE_SIZE USER_ID GROUP_ID MODIFICATION_TIME KB_ALLOCATED
    MISC_ATTRIBUTES``; other positional orders are configured with ``show_fields``, and
    ``key=value`` tokens (``s=``, ``u=``, ``g=``, ``m=``, ``kb=``, ``t=``/``misc=``) are read
    whatever their order. MODIFICATION_TIME may be epoch seconds or ``YYYY-MM-DD HH:MM:SS[.f]``
    (read as UTC).

``HistogramParser``
    Pre-aggregated size histograms: NERSC's ``*_sizebytype_hist.csv`` (``bin_size`` labels the
    inclusive *end* of a power-of-two bin: ``bin_size=b`` holds sizes in (b/2, b]; a file
    without a ``0`` row folds zero-length files into ``bin_size=1``), NERSC's HPSS histogram
    (``bin start`` is the inclusive start: [start, 2*start), with exact byte sums), and our own
    ``size_min_bytes,size_max_bytes,files[,bytes]`` (both bounds inclusive).

Every line read becomes exactly one of an entry, a ``Skipped`` (blank, comment, header) or a
``Rejected`` (line number, reason, raw text), so ``read == entries + skipped + rejected``.
Parsers never raise on input.

Two ways in: ``parse_line`` (one object per line: for tests and small files) and the
columnar fast path ``parse_block``, which turns a block of lines into numpy arrays
(``EntryChunk``) with no per-line Python objects; ``ScanAccumulator.consume_*`` uses it.
Lines the fast path cannot vouch for go through ``parse_line``, so both paths give the same
result.

The pieces live in ``forecasts.storage.scan``: ``records`` (entries, skips, rejections,
``ParseReport``), ``lines`` (line sources), ``hashing`` (span hashes), ``columnar`` (the fast
path's ``EntryChunk`` and vectorised field reading), ``find``, ``gpfs`` and ``histogram`` (one
module per input). Their public names are re-exported here.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from forecasts.storage.scan.columnar import EntryChunk, chunk_from_entries
from forecasts.storage.scan.find import DEFAULT_COLUMNS, FindTsvParser
from forecasts.storage.scan.gpfs import GPFS_POLICY, GpfsListParser
from forecasts.storage.scan.hashing import PAD_BYTES, hash_strings, padded, run_heads, span_hashes, windows
from forecasts.storage.scan.histogram import HistogramParser, iter_histogram
from forecasts.storage.scan.lines import iter_blocks, iter_lines, lines_of_block
from forecasts.storage.scan.records import (
    BLOCK_LINES,
    F64,
    I64,
    KIND_DIR,
    KIND_FILE,
    KIND_LINK,
    KIND_OTHER,
    MAX_LINE_BYTES,
    MAX_RAW_CHARS,
    MAX_SIZE_BYTES,
    U8,
    U64,
    FileEntry,
    HistogramBin,
    HistogramItem,
    ParsedItem,
    ParseReport,
    Rejected,
    Skipped,
)

__all__ = [
    "BLOCK_LINES",
    "DEFAULT_COLUMNS",
    "F64",
    "GPFS_POLICY",
    "I64",
    "KIND_DIR",
    "KIND_FILE",
    "KIND_LINK",
    "KIND_OTHER",
    "MAX_LINE_BYTES",
    "MAX_RAW_CHARS",
    "MAX_SIZE_BYTES",
    "PAD_BYTES",
    "U8",
    "U64",
    "EntryChunk",
    "FileEntry",
    "FindTsvParser",
    "GpfsListParser",
    "HistogramBin",
    "HistogramItem",
    "HistogramParser",
    "ParseReport",
    "ParsedItem",
    "Rejected",
    "Skipped",
    "chunk_from_entries",
    "hash_strings",
    "iter_blocks",
    "iter_histogram",
    "iter_items",
    "iter_lines",
    "lines_of_block",
    "padded",
    "run_heads",
    "span_hashes",
    "windows",
]


def iter_items(parser: FindTsvParser | GpfsListParser, lines: Iterable[bytes]) -> Iterator[ParsedItem]:
    """One object per line (entries, skips, rejections): the simple API, for small inputs."""
    for i, line in enumerate(lines, start=1):
        yield parser.parse_line(line, i)


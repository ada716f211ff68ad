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
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import BinaryIO

import numpy as np
import numpy.typing as npt

MAX_SIZE_BYTES = 2**53  # 8 PiB: larger sizes are rejected (and keep float64 sums exact)
MAX_LINE_BYTES = 65536
MAX_RAW_CHARS = 300
BLOCK_LINES = 65536  # lines per columnar chunk: bounds the transient numpy memory (~30 MB)

KIND_FILE = ord("f")
KIND_DIR = ord("d")
KIND_LINK = ord("l")
KIND_OTHER = ord("o")

U8 = npt.NDArray[np.uint8]
I64 = npt.NDArray[np.int64]
U64 = npt.NDArray[np.uint64]
F64 = npt.NDArray[np.float64]

GPFS_POLICY = """\
RULE EXTERNAL LIST 'scan' EXEC ''
RULE 'scan_all' LIST 'scan' DIRECTORIES_PLUS
  SHOW(VARCHAR(FILE_SIZE) || ' ' || VARCHAR(USER_ID) || ' ' || VARCHAR(GROUP_ID) || ' ' ||
       VARCHAR(MODIFICATION_TIME) || ' ' || VARCHAR(KB_ALLOCATED) || ' ' || MISC_ATTRIBUTES)
"""
"""The policy we expect: ``mmapplypolicy /gpfs/fs -P scan.pol -I defer -f /tmp/scan``."""


# --------------------------------------------------------------------------------------------
# Records


@dataclass(slots=True)
class FileEntry:
    """One file system entry. ``kind``: 'f' file, 'd' directory, 'l' symlink, 'o' other."""

    size_bytes: int
    path: str = ""
    owner: str | None = None
    group: str | None = None
    mtime_epoch: float | None = None
    kind: str = "f"
    allocated_bytes: int | None = None
    line: int = 0


@dataclass(slots=True)
class HistogramBin:
    """A pre-aggregated bin: ``files`` regular files with sizes in [size_min, size_max]."""

    size_min_bytes: int
    size_max_bytes: int
    files: int
    bytes: int | None = None  # exact byte sum when the source has it
    directories: int = 0
    symlinks: int = 0
    other: int = 0
    line: int = 0


@dataclass(slots=True)
class Skipped:
    line: int
    reason: str


@dataclass(slots=True)
class Rejected:
    """A line that could not be understood, kept with (the start of) its raw text."""

    line: int
    reason: str
    raw: str = ""


ParsedItem = FileEntry | Skipped | Rejected
HistogramItem = HistogramBin | Skipped | Rejected


def _raw(line: bytes) -> str:
    return line[:MAX_RAW_CHARS].decode("utf-8", "backslashreplace")


def _text(value: bytes) -> str:
    return value.decode("utf-8", "surrogateescape")


@dataclass(slots=True)
class ParseReport:
    """Line accounting for one parse; ``read == entries + skipped + rejected`` always."""

    read: int = 0
    entries: int = 0
    skipped: int = 0
    rejected: int = 0
    skipped_reasons: dict[str, int] = field(default_factory=dict)
    rejections: list[Rejected] = field(default_factory=list)  # the first ``keep`` of them
    keep: int = 1000

    def skip(self, reason: str, n: int = 1) -> None:
        self.read += n
        self.skipped += n
        self.skipped_reasons[reason] = self.skipped_reasons.get(reason, 0) + n

    def reject(self, item: Rejected) -> None:
        self.read += 1
        self.rejected += 1
        if len(self.rejections) < self.keep:
            self.rejections.append(item)

    def add_entries(self, n: int) -> None:
        self.read += n
        self.entries += n

    def add(self, item: ParsedItem | HistogramItem) -> None:
        if isinstance(item, Skipped):
            self.skip(item.reason)
        elif isinstance(item, Rejected):
            self.reject(item)
        else:
            self.add_entries(1)

    def merge(self, other: ParseReport) -> None:
        self.read += other.read
        self.entries += other.entries
        self.skipped += other.skipped
        self.rejected += other.rejected
        for reason, n in other.skipped_reasons.items():
            self.skipped_reasons[reason] = self.skipped_reasons.get(reason, 0) + n
        room = self.keep - len(self.rejections)
        self.rejections.extend(other.rejections[: max(room, 0)])

    def to_dict(self) -> dict[str, object]:
        return {
            "read": self.read,
            "entries": self.entries,
            "skipped": self.skipped,
            "rejected": self.rejected,
            "skipped_reasons": dict(sorted(self.skipped_reasons.items())),
            "rejections": [{"line": r.line, "reason": r.reason, "raw": r.raw} for r in self.rejections],
        }


# --------------------------------------------------------------------------------------------
# Deterministic 64-bit hashes of byte spans (owners, groups, parent directories)

PAD_BYTES = MAX_LINE_BYTES + 64  # zero padding around a block, so fixed-width windows fit
_WORD_WEIGHTS = np.random.default_rng(0x5EED).integers(
    0, 2**63, size=(PAD_BYTES // 8) + 1, dtype=np.uint64
) * np.uint64(2) + np.uint64(
    1
)  # fixed odd multipliers, one per 8-byte word position: the same in every process
_WIDTHS = (16, 32, 64, 128, 256, 512, 1024, 4096, PAD_BYTES - 64)


def _fmix64(x: U64) -> U64:
    x = x ^ (x >> np.uint64(33))
    x = x * np.uint64(0xFF51AFD7ED558CCD)
    x = x ^ (x >> np.uint64(33))
    x = x * np.uint64(0xC4CEB9FE1A85EC53)
    return x ^ (x >> np.uint64(33))


def padded(buf: U8) -> U8:
    """``buf`` with PAD_BYTES zeros on both sides (span offsets shift by PAD_BYTES)."""
    out = np.zeros(len(buf) + 2 * PAD_BYTES, dtype=np.uint8)
    out[PAD_BYTES : PAD_BYTES + len(buf)] = buf
    return out


def windows(bufp: U8, starts: I64, width: int) -> U8:
    """Rows of ``width`` bytes of the padded buffer from each start (a copy, no index matrix)."""
    view = np.lib.stride_tricks.sliding_window_view(bufp, width)
    return view[starts]


def span_hashes(bufp: U8, starts: I64, ends: I64) -> U64:
    """64-bit hash of each span ``bufp[start:end]`` (offsets into a ``padded`` buffer).

    The span's bytes, read as little-endian 8-byte words from its own start (so the hash does
    not depend on where the span sits), are masked past its end, multiplied by fixed random odd
    weights and summed modulo 2**64, with the length mixed in; MurmurHash3's fmix64 finishes it
    so the top bits are uniform (they drive the directory sampling). Deterministic across
    processes, unlike ``hash()``.
    """
    lengths = (ends - starts).astype(np.int64)
    out = np.empty(len(starts), dtype=np.uint64)
    lower = -1
    for width in _WIDTHS:
        sel = (
            np.flatnonzero((lengths > lower) & (lengths <= width))
            if lower >= 0
            else np.flatnonzero(lengths <= width)
        )
        lower = width
        if not len(sel):
            continue
        nwords = width // 8
        rows = windows(bufp, starts[sel], width)
        length = lengths[sel]
        rows *= np.arange(width, dtype=np.int64) < length[:, None]  # zero the bytes past the span
        words = rows.view("<u8")
        with np.errstate(over="ignore"):
            h = words @ _WORD_WEIGHTS[:nwords]  # integer matmul wraps modulo 2**64
            h = h + length.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15)
            out[sel] = _fmix64(h)
    return out


def hash_strings(values: list[bytes]) -> U64:
    """``span_hashes`` of whole byte strings (the slow path's equivalent of the fast path)."""
    if not values:
        return np.zeros(0, dtype=np.uint64)
    lengths = np.fromiter((min(len(v), PAD_BYTES - 64) for v in values), dtype=np.int64, count=len(values))
    joined = b"".join(v[: PAD_BYTES - 64] for v in values)
    ends = np.cumsum(lengths) + PAD_BYTES
    return span_hashes(padded(np.frombuffer(joined, dtype=np.uint8)), ends - lengths, ends)


# --------------------------------------------------------------------------------------------
# Columnar chunk


@dataclass(slots=True)
class EntryChunk:
    """Parsed entries of a block as arrays (the fast path's unit of work).

    ``owner_idx``/``group_idx`` index ``owner_names``/``group_names`` (None when the scan has
    no such column); ``parent_hash`` hashes each entry's parent directory path (None without
    paths); ``mtimes`` is NaN where unknown (None without an mtime column).
    """

    sizes: I64
    kinds: U8
    mtimes: F64 | None = None
    owner_idx: I64 | None = None
    owner_names: list[str] = field(default_factory=list)
    group_idx: I64 | None = None
    group_names: list[str] = field(default_factory=list)
    parent_hash: U64 | None = None
    allocated: I64 | None = None
    report: ParseReport = field(default_factory=ParseReport)

    def __len__(self) -> int:
        return len(self.sizes)


def _codes(values: list[str]) -> tuple[I64, list[str]]:
    index: dict[str, int] = {}
    codes = np.fromiter((index.setdefault(v, len(index)) for v in values), dtype=np.int64, count=len(values))
    return codes, list(index)


def chunk_from_entries(entries: list[FileEntry], report: ParseReport | None = None) -> EntryChunk:
    """The slow path's entries as a chunk (hashes computed exactly as the fast path does)."""
    rep = report if report is not None else ParseReport()
    n = len(entries)
    sizes = np.fromiter((e.size_bytes for e in entries), dtype=np.int64, count=n)
    kinds = np.frombuffer("".join(e.kind for e in entries).encode("ascii"), dtype=np.uint8).copy()
    chunk = EntryChunk(sizes=sizes, kinds=kinds, report=rep)
    if any(e.mtime_epoch is not None for e in entries):
        chunk.mtimes = np.array([np.nan if e.mtime_epoch is None else e.mtime_epoch for e in entries])
    if any(e.owner is not None for e in entries):
        chunk.owner_idx, chunk.owner_names = _codes([e.owner or "" for e in entries])
    if any(e.group is not None for e in entries):
        chunk.group_idx, chunk.group_names = _codes([e.group or "" for e in entries])
    if any(e.path for e in entries):
        parents = [e.path.encode("utf-8", "surrogateescape").rpartition(b"/")[0] for e in entries]
        chunk.parent_hash = hash_strings(parents)
    if any(e.allocated_bytes is not None for e in entries):
        chunk.allocated = np.fromiter((e.allocated_bytes or 0 for e in entries), dtype=np.int64, count=n)
    return chunk


# --------------------------------------------------------------------------------------------
# Line sources


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


# --------------------------------------------------------------------------------------------
# find / GUFI TSV

_COLUMN_ALIASES = {
    "size": "size", "size_bytes": "size", "bytes": "size", "%s": "size", "st_size": "size",
    "owner": "owner", "user": "owner", "uid": "owner", "%u": "owner", "%u\u0000": "owner",
    "%U": "owner", "username": "owner", "user_name": "owner",
    "group": "group", "gid": "group", "%g": "group", "%G": "group", "group_name": "group",
    "mtime": "mtime", "%t@": "mtime", "%T@": "mtime", "modification_time": "mtime",
    "time": "mtime", "st_mtime": "mtime",
    "type": "type", "%y": "type", "kind": "type",
    "path": "path", "%p": "path", "name": "path", "file": "path", "filename": "path",
}  # fmt: skip
DEFAULT_COLUMNS = ("size", "owner", "group", "mtime", "type", "path")
_TYPE_WORDS = {
    b"f": "f", b"d": "d", b"l": "l", b"": "f",
    b"file": "f", b"regular": "f", b"dir": "d", b"directory": "d", b"link": "l", b"symlink": "l",
}  # fmt: skip
_MTIME_RE = re.compile(rb"-?\d{1,12}(\.\d*)?")


def _header_columns(line: bytes, delim: bytes | None) -> tuple[bytes, tuple[str, ...]] | None:
    """The column order a header line declares, or None when the line is not a header."""
    text = line.lstrip(b"#").strip()
    if not text:
        return None
    for d in [delim] if delim else [b"\t", b",", b"|", b" "]:
        tokens = [t.strip().decode("utf-8", "replace") for t in text.split(d)]
        names = [_COLUMN_ALIASES.get(t, _COLUMN_ALIASES.get(t.lower(), "")) for t in tokens]
        if len(tokens) >= 2 and all(names) and "size" in names and len(set(names)) == len(names):
            return d, tuple(names)
    return None


class FindTsvParser:
    """``find -printf`` / GUFI TSV scans (see the module docstring)."""

    def __init__(self, columns: Iterable[str] = DEFAULT_COLUMNS, delimiter: bytes | None = None) -> None:
        self.delimiter = delimiter
        self._started = False  # True once a data line has fixed the delimiter and columns
        self._set_columns(tuple(columns))

    def _set_columns(self, columns: tuple[str, ...]) -> None:
        unknown = [c for c in columns if c not in DEFAULT_COLUMNS]
        if unknown or "size" not in columns or len(set(columns)) != len(columns):
            raise ValueError(f"columns must be distinct names from {DEFAULT_COLUMNS}, with size")
        self.columns = columns
        self._index = {c: i for i, c in enumerate(columns)}

    # ---- slow path: one line at a time (the reference behaviour)
    def parse_line(self, line: bytes, line_no: int) -> ParsedItem:
        try:
            return self._parse_line(line.rstrip(b"\r\n"), line_no)
        except Exception as exc:  # never raise on input  # noqa: BLE001
            return Rejected(line_no, f"unexpected error: {exc}", _raw(line))

    def _parse_line(self, line: bytes, line_no: int) -> ParsedItem:
        if len(line) > MAX_LINE_BYTES:
            return Rejected(line_no, f"line longer than {MAX_LINE_BYTES} bytes", _raw(line))
        if not line.strip():
            return Skipped(line_no, "blank")
        header = _header_columns(line, self.delimiter)
        if header is not None:
            self.delimiter = header[0]
            self._set_columns(header[1])
            return Skipped(line_no, "header")
        if line.startswith(b"#"):
            return Skipped(line_no, "comment")
        if self.delimiter is None:
            self.delimiter = next((d for d in (b"\t", b",", b"|") if d in line), b"\t")
        n = len(self.columns)
        parts = line.split(self.delimiter, n - 1)
        last_is_path = self.columns[-1] == "path"
        if len(parts) != n or (not last_is_path and self.delimiter in parts[-1]):
            return Rejected(
                line_no, f"expected {n} columns, found {line.count(self.delimiter) + 1}", _raw(line)
            )
        get = self._index.get
        size_raw = parts[self._index["size"]]
        if not (size_raw.isdigit() and len(size_raw) <= 16):
            return Rejected(line_no, "size is not a whole number of bytes", _raw(line))
        size = int(size_raw)
        if size > MAX_SIZE_BYTES:
            return Rejected(line_no, "size larger than 8 PiB", _raw(line))
        entry = FileEntry(size_bytes=size, line=line_no)
        if (i := get("mtime")) is not None:
            m = parts[i]
            if m and m != b"-":
                if not _MTIME_RE.fullmatch(m):
                    return Rejected(line_no, "mtime is not epoch seconds", _raw(line))
                entry.mtime_epoch = float(m)
        if (i := get("type")) is not None:
            t = parts[i]
            kind = _TYPE_WORDS.get(t.lower()) if len(t) != 1 else _TYPE_WORDS.get(t, "o")
            if kind is None:
                return Rejected(line_no, "unknown file type", _raw(line))
            entry.kind = kind
        if (i := get("owner")) is not None:
            entry.owner = _text(parts[i])
        if (i := get("group")) is not None:
            entry.group = _text(parts[i])
        if (i := get("path")) is not None:
            entry.path = _text(parts[i])
        return entry

    # ---- fast path: a block of lines to arrays
    def parse_block(self, block: bytes, first_line_no: int) -> list[EntryChunk]:
        """Parse ``block`` (whole lines, each ending in ``\\n``) into columnar chunks."""
        if not block.endswith(b"\n"):
            block += b"\n"
        if not self._started:
            # settle the delimiter and header on the first lines, one at a time
            lines = lines_of_block(block)
            head: list[ParsedItem] = []
            i = 0
            while i < len(lines) and i < 64:
                item = self.parse_line(lines[i], first_line_no + i)
                head.append(item)
                i += 1
                if isinstance(item, FileEntry):
                    break
            self._started = any(isinstance(item, FileEntry) for item in head)
            chunks = [_chunk_from_items(head)]
            rest = b"\n".join(lines[i:]) + b"\n" if i < len(lines) else b""
            if rest:
                chunks.extend(self._parse_block_fast(rest, first_line_no + i))
            return chunks
        return self._parse_block_fast(block, first_line_no)

    def _parse_block_fast(self, block: bytes, first_line_no: int) -> list[EntryChunk]:
        assert self.delimiter is not None
        path_last = self.columns[-1] == "path"
        f = _split_fields(block, self.delimiter, len(self.columns) - 1, path_last)
        if f is None:
            return self._slow(block, first_line_no)
        if not f.n:
            return []
        fs, fe, bufp, col = f.fs, f.fe, f.bufp, self._index
        good = bufp[fs[0]] != 35  # a '#' line is a comment, whatever its columns
        sizes, valid = _parse_uint(bufp, fs[col["size"]], fe[col["size"]], 16)
        good &= valid & (sizes <= MAX_SIZE_BYTES)
        mtimes = None
        if "mtime" in col:
            mtimes, valid = _parse_epoch(bufp, fs[col["mtime"]], fe[col["mtime"]])
            good &= valid
        kinds = np.full(len(f.idx), KIND_FILE, dtype=np.uint8)
        if "type" in col:
            ts, te = fs[col["type"]], fe[col["type"]]
            tlen = te - ts
            good &= tlen <= 1
            one = tlen == 1
            letter = bufp[ts]
            kinds = np.where(one, letter, KIND_FILE).astype(np.uint8)
            kinds[one & (letter != KIND_FILE) & (letter != KIND_DIR) & (letter != KIND_LINK)] = KIND_OTHER
        keep = good
        chunk = EntryChunk(sizes=sizes[keep], kinds=kinds[keep])
        chunk.mtimes = None if mtimes is None else mtimes[keep]
        _set_keys(chunk, f, keep, {c: col[c] for c in ("owner", "group") if c in col})
        if "path" in col:
            ps, pe = fs[col["path"]][keep], fe[col["path"]][keep]
            chunk.parent_hash = _parent_hashes(f, keep, ps, pe, path_last)
        chunk.report.add_entries(len(chunk))
        bad_rows = np.concatenate([np.flatnonzero(~f.ok), f.idx[~good]])
        if not len(bad_rows):
            return [chunk]
        bad_rows.sort()
        saved = (self.delimiter, self.columns)
        items = [
            self.parse_line(block[f.starts[r] : f.ends[r]], first_line_no + int(r)) for r in bad_rows.tolist()
        ]
        if (self.delimiter, self.columns) != saved:
            # a header in mid-block changed the layout: redo the whole block line by line
            self.delimiter, self.columns = saved
            self._index = {c: i for i, c in enumerate(self.columns)}
            return self._slow(block, first_line_no)
        return [chunk, _chunk_from_items(items)]

    def _slow(self, block: bytes, first_line_no: int) -> list[EntryChunk]:
        lines = lines_of_block(block)
        return [_chunk_from_items([self.parse_line(ln, first_line_no + i) for i, ln in enumerate(lines)])]


@dataclass(slots=True)
class _Fields:
    """A block split into lines and delimited fields (offsets into the padded buffer)."""

    n: int  # lines in the block
    starts: I64  # line starts and ends in the block (unpadded)
    ends: I64
    ok: npt.NDArray[np.bool_]  # lines with the right number of delimiters
    idx: I64  # the ok lines' numbers
    fs: list[I64]  # field k of ok line i spans [fs[k][i], fe[k][i]) in bufp
    fe: list[I64]
    bufp: U8
    slashes: I64  # slash offsets in bufp
    slashes_at_nl: npt.NDArray[np.int32]  # slashes before each line's end


def _split_fields(block: bytes, delimiter: bytes, need: int, last_absorbs: bool) -> _Fields | None:
    """Vectorised split of whole lines at their first ``need`` delimiters (None: not possible)."""
    if b"\x00" in block or b"\r" in block or len(delimiter) != 1:
        return None
    buf = np.frombuffer(block, dtype=np.uint8)
    delim = delimiter[0]
    # one pass finds newlines, tabs, spaces, commas and slashes together (all bytes <= 47)
    special = np.flatnonzero(buf <= 47)
    what = buf[special]
    is_nl = what == 10
    nl = special[is_nl]
    n = len(nl)
    empty = np.zeros(0, dtype=np.int64)
    if n == 0:
        return _Fields(0, empty, empty, np.zeros(0, bool), empty, [], [], buf, empty, np.zeros(0, np.int32))
    ends = nl.astype(np.int64)
    starts = np.empty(n, dtype=np.int64)
    starts[0] = 0
    starts[1:] = ends[:-1] + 1
    tab_line: npt.NDArray[np.integer]
    if delim <= 47:
        tab_sp = np.flatnonzero(what == delim)
        tabs = special[tab_sp]
        tab_line = np.cumsum(is_nl, dtype=np.int32)[tab_sp]  # newlines before a delimiter: its line
    else:
        tabs = np.flatnonzero(buf == delim)
        tab_line = np.searchsorted(nl, tabs)
    per_line = np.bincount(tab_line, minlength=n)
    ok = per_line >= need if last_absorbs else per_line == need
    ok &= (ends - starts) <= MAX_LINE_BYTES
    idx = np.flatnonzero(ok)
    ft = (np.cumsum(per_line) - per_line)[idx]  # first delimiter of each good line
    is_slash = what == 47
    bufp = padded(buf)
    fs = [starts[idx] + PAD_BYTES] + [tabs[ft + k] + (1 + PAD_BYTES) for k in range(need)]
    fe = [tabs[ft + k] + PAD_BYTES for k in range(need)] + [ends[idx] + PAD_BYTES]
    return _Fields(
        n, starts, ends, ok, idx, fs, fe, bufp,
        special[is_slash] + PAD_BYTES, np.cumsum(is_slash, dtype=np.int32)[is_nl],
    )  # fmt: skip


def _set_keys(chunk: EntryChunk, f: _Fields, keep: npt.NDArray[np.bool_], fields: dict[str, int]) -> None:
    """Owner/group codes for the kept rows: hashed in one call, grouped by hash."""
    if not fields:
        return
    m = int(keep.sum())
    ks = np.concatenate([f.fs[k][keep] for k in fields.values()])
    ke = np.concatenate([f.fe[k][keep] for k in fields.values()])
    codes, names = _span_keys(f.bufp, ks, ke)
    for i, name in enumerate(fields):  # codes index the shared names list
        setattr(chunk, f"{name}_idx", codes[i * m : (i + 1) * m])
        setattr(chunk, f"{name}_names", names)


def _parent_hashes(f: _Fields, keep: npt.NDArray[np.bool_], ps: I64, pe: I64, path_last: bool) -> U64:
    """Hash of each path's parent directory (everything before its last '/')."""
    # the line's last slash: known per line when the path ends the line, else searched
    last = (f.slashes_at_nl[f.idx][keep] - 1).astype(np.int64) if path_last else np.searchsorted(f.slashes, pe) - 1
    if len(f.slashes):
        slash_pos = f.slashes[np.maximum(last, 0)]
        parent_end = np.where((last >= 0) & (slash_pos >= ps), slash_pos, ps)
    else:
        parent_end = ps
    return span_hashes(f.bufp, ps, parent_end)


def _chunk_from_items(items: list[ParsedItem]) -> EntryChunk:
    report = ParseReport()
    entries: list[FileEntry] = []
    for item in items:
        report.add(item)
        if isinstance(item, FileEntry):
            entries.append(item)
    return chunk_from_entries(entries, report)


_ZERO_LANES = np.uint64(0x3030303030303030)


def _swar8(words: U64) -> U64:
    """Eight ASCII digits per little-endian word (first digit most significant) to a number."""
    v = words - _ZERO_LANES
    v = (v * np.uint64(10) + (v >> np.uint64(8))) & np.uint64(0x00FF00FF00FF00FF)
    v = (v * np.uint64(100) + (v >> np.uint64(16))) & np.uint64(0x0000FFFF0000FFFF)
    return (v * np.uint64(10000) + (v >> np.uint64(32))) & np.uint64(0xFFFFFFFF)


def _digits_window(bufp: U8, s: I64, e: I64) -> tuple[U8, npt.NDArray[np.bool_]]:
    """16-byte right-aligned windows ending at ``e`` with the bytes before ``s`` set to '0'."""
    length = e - s
    w = windows(bufp, e - 16, 16)
    w = np.where(np.arange(16) >= (16 - length)[:, None], w, np.uint8(48))
    bad = ((w - np.uint8(48)) > 9).view(np.uint64)  # 16 flags as two words per row
    valid = (length >= 1) & (length <= 16) & ((bad[:, 0] | bad[:, 1]) == 0)
    return w, valid


def _parse_uint(bufp: U8, s: I64, e: I64, width: int = 16) -> tuple[I64, npt.NDArray[np.bool_]]:
    """Vectorised ``int(bufp[s:e])`` for 1..width ASCII digits (width <= 16): (values, valid)."""
    w, valid = _digits_window(bufp, s, e)
    words = w.view("<u8")
    with np.errstate(over="ignore"):
        values = _swar8(words[:, 0]) * np.uint64(100_000_000) + _swar8(words[:, 1])
    return values.astype(np.int64), valid & (e - s <= width)


def _parse_epoch(bufp: U8, s: I64, e: I64) -> tuple[F64, npt.NDArray[np.bool_]]:
    """Vectorised epoch seconds ``digits[.digits]`` (empty = unknown); whole seconds kept."""
    width = 24
    length = e - s
    w = windows(bufp, s, width)
    isdot = w == 46
    first = np.argmax(isdot, axis=1)
    dot_at = np.where(isdot[np.arange(len(s)), first], first, width)
    dot_at = np.minimum(dot_at, length)  # a dot past the field belongs to another field
    j = np.arange(width)
    bad = (((w - np.uint8(48)) > 9) & (j < length[:, None]) & (j != dot_at[:, None])).view(np.uint64)
    secs, valid = _parse_uint(bufp, s, s + dot_at, 12)
    valid &= (length <= width) & ((bad[:, 0] | bad[:, 1] | bad[:, 2]) == 0)
    valid |= length == 0
    return np.where(length == 0, np.nan, secs.astype(np.float64)), valid


def run_heads(values: npt.NDArray[np.generic]) -> I64:
    """Indexes where a run of equal consecutive values starts (scans list a directory at a time)."""
    if not len(values):
        return np.zeros(0, dtype=np.int64)
    change = np.empty(len(values), dtype=bool)
    change[0] = True
    np.not_equal(values[1:], values[:-1], out=change[1:])
    return np.flatnonzero(change)


def _span_keys(bufp: U8, s: I64, e: I64) -> tuple[I64, list[str]]:
    """Codes (equal text, equal code) and the text of each code, for byte spans.

    Sorts only the heads of runs of equal values: consecutive lines mostly share an owner.
    """
    h = span_hashes(bufp, s, e)
    heads = run_heads(h)
    uniq, first, inv = np.unique(h[heads], return_index=True, return_inverse=True)
    run_id = np.repeat(np.arange(len(heads)), np.diff(np.append(heads, len(h))))
    names = [_text(bytes(bufp[s[heads[i]] : e[heads[i]]])) for i in first.tolist()]
    return inv.ravel().astype(np.int64)[run_id], names


# --------------------------------------------------------------------------------------------
# GPFS mmapplypolicy LIST files

_GPFS_FIELDS = ("FILE_SIZE", "USER_ID", "GROUP_ID", "MODIFICATION_TIME", "KB_ALLOCATED", "MISC_ATTRIBUTES")
_GPFS_KEYS = {
    "s": "FILE_SIZE", "size": "FILE_SIZE", "file_size": "FILE_SIZE",
    "u": "USER_ID", "uid": "USER_ID", "user": "USER_ID", "user_id": "USER_ID", "user_name": "USER_ID",
    "g": "GROUP_ID", "gid": "GROUP_ID", "group": "GROUP_ID", "group_id": "GROUP_ID",
    "group_name": "GROUP_ID",
    "m": "MODIFICATION_TIME", "mtime": "MODIFICATION_TIME", "modification_time": "MODIFICATION_TIME",
    "kb": "KB_ALLOCATED", "kb_allocated": "KB_ALLOCATED",
    "t": "MISC_ATTRIBUTES", "misc": "MISC_ATTRIBUTES", "misc_attributes": "MISC_ATTRIBUTES",
}  # fmt: skip
_DATE_RE = re.compile(rb"\d{4}-\d{2}-\d{2}")
_TIME_RE = re.compile(rb"\d{2}:\d{2}:\d{2}(\.\d+)?")


def _gpfs_kind(attrs: bytes) -> str:
    """MISC_ATTRIBUTES letters: D directory, L symbolic link, F regular file."""
    if b"D" in attrs:
        return "d"
    if b"L" in attrs:
        return "l"
    if b"F" in attrs or not attrs:
        return "f"
    return "o"


class GpfsListParser:
    """``mmapplypolicy`` LIST output: ``inode gen snapid [SHOW fields] -- /path``."""

    def __init__(self, show_fields: Iterable[str] = _GPFS_FIELDS) -> None:
        self.show_fields = tuple(f.upper() for f in show_fields)
        if "FILE_SIZE" not in self.show_fields and "KB_ALLOCATED" not in self.show_fields:
            raise ValueError("show_fields needs FILE_SIZE or KB_ALLOCATED")

    def parse_line(self, line: bytes, line_no: int) -> ParsedItem:
        try:
            return self._parse_line(line.rstrip(b"\r\n"), line_no)
        except Exception as exc:  # never raise on input  # noqa: BLE001
            return Rejected(line_no, f"unexpected error: {exc}", _raw(line))

    def _fields(self, tokens: list[bytes]) -> dict[str, bytes] | str:
        if tokens and all(b"=" in t for t in tokens):
            out: dict[str, bytes] = {}
            for t in tokens:
                k, _, v = t.partition(b"=")
                name = _GPFS_KEYS.get(k.decode("ascii", "replace").lower())
                if name:
                    out[name] = v
            return out
        out = {}
        i = 0
        for name in self.show_fields:
            if i >= len(tokens):
                return f"expected {len(self.show_fields)} SHOW fields, found {len(tokens)}"
            value = tokens[i]
            i += 1
            is_date = name == "MODIFICATION_TIME" and _DATE_RE.fullmatch(value)
            if is_date and i < len(tokens) and _TIME_RE.fullmatch(tokens[i]):
                value = value + b" " + tokens[i]  # 'YYYY-MM-DD HH:MM:SS' is two tokens
                i += 1
            out[name] = value
        return out

    def _parse_line(self, line: bytes, line_no: int) -> ParsedItem:
        if len(line) > MAX_LINE_BYTES:
            return Rejected(line_no, f"line longer than {MAX_LINE_BYTES} bytes", _raw(line))
        if not line.strip():
            return Skipped(line_no, "blank")
        if line.lstrip().startswith(b"#"):
            return Skipped(line_no, "comment")
        head, sep, path = line.partition(b" -- ")
        if not sep:
            return Rejected(line_no, "no ' -- ' before the path", _raw(line))
        tokens = head.split()
        if len(tokens) < 3 or not all(t.isdigit() for t in tokens[:3]):
            return Rejected(line_no, "expected 'inode generation snapid' first", _raw(line))
        fields = self._fields(tokens[3:])
        if isinstance(fields, str):
            return Rejected(line_no, fields, _raw(line))
        kb = fields.get("KB_ALLOCATED")
        allocated = None
        if kb is not None:
            if not (kb.isdigit() and len(kb) <= 13):
                return Rejected(line_no, "KB_ALLOCATED is not a whole number", _raw(line))
            allocated = int(kb) * 1024
        size_raw = fields.get("FILE_SIZE")
        if size_raw is None:
            if allocated is None:
                return Rejected(line_no, "no FILE_SIZE or KB_ALLOCATED", _raw(line))
            size = allocated  # allocated, not logical, size: the best the policy gave us
        else:
            if not (size_raw.isdigit() and len(size_raw) <= 16):
                return Rejected(line_no, "FILE_SIZE is not a whole number of bytes", _raw(line))
            size = int(size_raw)
        if size > MAX_SIZE_BYTES:
            return Rejected(line_no, "size larger than 8 PiB", _raw(line))
        entry = FileEntry(size_bytes=size, path=_text(path), allocated_bytes=allocated, line=line_no)
        if (u := fields.get("USER_ID")) is not None:
            entry.owner = _text(u)
        if (g := fields.get("GROUP_ID")) is not None:
            entry.group = _text(g)
        if (m := fields.get("MODIFICATION_TIME")) is not None:
            mtime = _gpfs_time(m)
            if mtime is None:
                return Rejected(line_no, "MODIFICATION_TIME not understood", _raw(line))
            entry.mtime_epoch = mtime
        if (t := fields.get("MISC_ATTRIBUTES")) is not None:
            entry.kind = _gpfs_kind(t)
        return entry

    def parse_block(self, block: bytes, first_line_no: int) -> list[EntryChunk]:
        """Columnar fast path for the expected policy's layout (``GPFS_POLICY``); anything else,
        and any line it cannot vouch for, goes through ``parse_line``."""
        if self.show_fields != _GPFS_FIELDS:
            return self._slow(block, first_line_no)
        # inode gen snap size uid gid date time kb misc "-- path": 10 single spaces, path last
        f = _split_fields(block, b" ", 10, True)
        if f is None:
            return self._slow(block, first_line_no)
        if not f.n:
            return []
        fs, fe, bufp = f.fs, f.fe, f.bufp
        good = np.ones(len(f.idx), dtype=bool)
        for k in (0, 1, 2):
            good &= _parse_uint(bufp, fs[k], fe[k], 16)[1]
        sizes, valid = _parse_uint(bufp, fs[3], fe[3], 16)
        good &= valid & (sizes <= MAX_SIZE_BYTES)
        for k in (4, 5, 9):  # owner, group, misc: 1-16 visible bytes
            good &= _visible(bufp, fs[k], fe[k])
        mtimes, valid = _parse_gpfs_time(bufp, fs[6], fe[6], fs[7], fe[7])
        good &= valid
        kb, valid = _parse_uint(bufp, fs[8], fe[8], 13)
        good &= valid
        misc = windows(bufp, fs[9], 16) * (np.arange(16) < (fe[9] - fs[9])[:, None])
        kinds = np.where(
            (misc == 68).any(axis=1), KIND_DIR,
            np.where((misc == 76).any(axis=1), KIND_LINK,
                     np.where((misc == 70).any(axis=1), KIND_FILE, KIND_OTHER)),
        ).astype(np.uint8)  # fmt: skip
        rest = windows(bufp, fs[10], 3)
        good &= (rest[:, 0] == 45) & (rest[:, 1] == 45) & (rest[:, 2] == 32) & (fe[10] - fs[10] >= 3)
        keep = good
        chunk = EntryChunk(sizes=sizes[keep], kinds=kinds[keep], mtimes=mtimes[keep])
        chunk.allocated = kb[keep] * 1024
        _set_keys(chunk, f, keep, {"owner": 4, "group": 5})
        chunk.parent_hash = _parent_hashes(f, keep, fs[10][keep] + 3, fe[10][keep], True)
        chunk.report.add_entries(len(chunk))
        bad_rows = np.concatenate([np.flatnonzero(~f.ok), f.idx[~good]])
        if not len(bad_rows):
            return [chunk]
        bad_rows.sort()
        items = [
            self.parse_line(block[f.starts[r] : f.ends[r]], first_line_no + int(r)) for r in bad_rows.tolist()
        ]
        return [chunk, _chunk_from_items(items)]

    def _slow(self, block: bytes, first_line_no: int) -> list[EntryChunk]:
        items = [self.parse_line(ln, first_line_no + i) for i, ln in enumerate(lines_of_block(block))]
        return [_chunk_from_items(items)]


def _visible(bufp: U8, s: I64, e: I64) -> npt.NDArray[np.bool_]:
    """Spans of 1-16 bytes with no byte <= 32 (what ``bytes.split()`` keeps as one token)."""
    length = e - s
    w = windows(bufp, s, 16)
    low = ((w <= 32) & (np.arange(16) < length[:, None])).view(np.uint64)
    return (length >= 1) & (length <= 16) & ((low[:, 0] | low[:, 1]) == 0)


_DAYS_BEFORE_MONTH = np.array([0, 0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334], dtype=np.int64)
_DAYS_IN_MONTH = np.array([0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31], dtype=np.int64)


def _parse_gpfs_time(bufp: U8, ds: I64, de: I64, ts: I64, te: I64) -> tuple[F64, npt.NDArray[np.bool_]]:
    """``YYYY-MM-DD`` + ``HH:MM:SS[.ffffff]`` (UTC) to epoch seconds, vectorised; (values, valid)."""
    d = windows(bufp, ds, 10).astype(np.int64) - 48
    t = windows(bufp, ts, 15).astype(np.int64) - 48
    tlen = te - ts
    digits_d = np.array([0, 1, 2, 3, 5, 6, 8, 9])
    digits_t = np.array([0, 1, 3, 4, 6, 7])
    j = np.arange(15)
    frac = (j >= 9) & (j < tlen[:, None])
    valid = (de - ds == 10) & ((tlen == 8) | ((tlen >= 10) & (tlen <= 15)))
    valid &= ((d[:, digits_d] >= 0) & (d[:, digits_d] <= 9)).all(axis=1)
    valid &= (d[:, 4] == -3) & (d[:, 7] == -3)  # '-'
    valid &= ((t[:, digits_t] >= 0) & (t[:, digits_t] <= 9)).all(axis=1)
    valid &= (t[:, 2] == 10) & (t[:, 5] == 10)  # ':'
    valid &= (tlen == 8) | (t[:, 8] == -2)  # '.'
    valid &= ~(frac & ((t < 0) | (t > 9))).any(axis=1)
    year = d[:, 0] * 1000 + d[:, 1] * 100 + d[:, 2] * 10 + d[:, 3]
    month = d[:, 5] * 10 + d[:, 6]
    day = d[:, 8] * 10 + d[:, 9]
    hour, minute, sec = t[:, 0] * 10 + t[:, 1], t[:, 3] * 10 + t[:, 4], t[:, 6] * 10 + t[:, 7]
    leap = ((year % 4 == 0) & (year % 100 != 0)) | (year % 400 == 0)
    m = np.clip(month, 1, 12)
    valid &= (year >= 1) & (month >= 1) & (month <= 12) & (day >= 1)
    valid &= day <= _DAYS_IN_MONTH[m] + ((m == 2) & leap)
    valid &= (hour <= 23) & (minute <= 59) & (sec <= 59)
    y = year - 1
    days = y * 365 + y // 4 - y // 100 + y // 400 + _DAYS_BEFORE_MONTH[m] + ((m > 2) & leap) + day - 1
    days -= 719162  # 0001-01-01 to 1970-01-01
    secs = days * 86400 + hour * 3600 + minute * 60 + sec
    return secs.astype(np.float64), valid


def _gpfs_time(value: bytes) -> float | None:
    if _MTIME_RE.fullmatch(value):
        return float(value)
    try:
        text = value.decode("ascii").replace(" ", "T")
        return datetime.fromisoformat(text).replace(tzinfo=UTC).timestamp()
    except ValueError:
        return None


# --------------------------------------------------------------------------------------------
# Pre-aggregated histograms


class HistogramParser:
    """NERSC ``sizebytype`` and HPSS histograms, and ``size_min_bytes,size_max_bytes,files[,bytes]``."""

    def __init__(self) -> None:
        self.layout: str | None = None
        self._cols: dict[str, int] = {}
        self._seen_zero_bin = False

    def parse_line(self, line: bytes, line_no: int) -> HistogramItem:
        try:
            return self._parse_line(line.rstrip(b"\r\n"), line_no)
        except Exception as exc:  # never raise on input  # noqa: BLE001
            return Rejected(line_no, f"unexpected error: {exc}", _raw(line))

    def _parse_line(self, line: bytes, line_no: int) -> HistogramItem:
        if not line.strip():
            return Skipped(line_no, "blank")
        text = line.decode("utf-8", "replace").strip()
        if text.startswith("#"):
            return Skipped(line_no, "comment")
        cells = [c.strip() for c in text.split(",")]
        names = [c.lower() for c in cells]
        if "bin_size" in names and "num_files" in names:
            self.layout, self._cols = "nersc_sizebytype", {n: i for i, n in enumerate(names)}
            return Skipped(line_no, "header")
        if "bin start" in names and "object count" in names:
            self.layout, self._cols = "nersc_hpss", {n: i for i, n in enumerate(names)}
            return Skipped(line_no, "header")
        if "size_min_bytes" in names and "size_max_bytes" in names and "files" in names:
            self.layout, self._cols = "generic", {n: i for i, n in enumerate(names)}
            return Skipped(line_no, "header")
        if self.layout is None:
            return Rejected(line_no, "no histogram header seen yet", _raw(line))
        if len(cells) < len(self._cols):
            return Rejected(line_no, f"expected {len(self._cols)} columns, found {len(cells)}", _raw(line))

        def num(name: str) -> int:
            value = cells[self._cols[name]]
            if not value.isdigit():
                raise _BadCell(f"{name} is not a whole number: {value[:40]!r}")
            return int(value)

        try:
            if self.layout == "nersc_sizebytype":
                end = num("bin_size")
                if end & (end - 1):
                    return Rejected(line_no, "bin_size is not 0 or a power of two", _raw(line))
                if end == 0:
                    self._seen_zero_bin = True
                if end == 0:
                    lo = 0
                elif end == 1:
                    lo = 1 if self._seen_zero_bin else 0  # no 0 row: zero-length files are in 1
                else:
                    lo = end // 2 + 1
                other = sum(
                    num(c) for c in ("num_blks", "num_chrs", "num_fifos", "num_socks") if c in self._cols
                )
                return HistogramBin(
                    size_min_bytes=lo, size_max_bytes=end, files=num("num_files"),
                    directories=num("num_dirs") if "num_dirs" in self._cols else 0,
                    symlinks=num("num_symlinks") if "num_symlinks" in self._cols else 0,
                    other=other, line=line_no,
                )  # fmt: skip
            if self.layout == "nersc_hpss":
                start = num("bin start")
                byte_col = "object size sum (bytes)"
                return HistogramBin(
                    size_min_bytes=start, size_max_bytes=max(start * 2 - 1, 0), files=num("object count"),
                    bytes=num(byte_col) if byte_col in self._cols else None, line=line_no,
                )  # fmt: skip
            lo, hi = num("size_min_bytes"), num("size_max_bytes")
            if hi < lo:
                return Rejected(line_no, "size_max_bytes below size_min_bytes", _raw(line))
            nbytes = num("bytes") if "bytes" in self._cols and cells[self._cols["bytes"]] else None
            return HistogramBin(
                size_min_bytes=lo, size_max_bytes=hi, files=num("files"), bytes=nbytes, line=line_no
            )
        except _BadCell as exc:
            return Rejected(line_no, str(exc), _raw(line))


class _BadCell(ValueError):
    pass


def iter_items(parser: FindTsvParser | GpfsListParser, lines: Iterable[bytes]) -> Iterator[ParsedItem]:
    """One object per line (entries, skips, rejections): the simple API, for small inputs."""
    for i, line in enumerate(lines, start=1):
        yield parser.parse_line(line, i)


def iter_histogram(lines: Iterable[bytes], parser: HistogramParser | None = None) -> Iterator[HistogramItem]:
    p = parser or HistogramParser()
    for i, line in enumerate(lines, start=1):
        yield p.parse_line(line, i)

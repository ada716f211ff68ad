"""The columnar fast path shared by the line parsers (pure core: no Django).

A block of lines becomes an ``EntryChunk`` of numpy arrays with no per-line Python object:
``_split_fields`` finds every line's delimited fields in one vectorised pass, ``_parse_uint``
and ``_parse_epoch`` read numbers eight digits per word, ``_set_keys`` and ``_parent_hashes``
hash owners, groups and parent directories.  Lines the fast path cannot vouch for go through a
parser's ``parse_line`` and come back through ``_chunk_from_items``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from forecasts.storage.scan.hashing import PAD_BYTES, _span_keys, hash_strings, padded, span_hashes, windows
from forecasts.storage.scan.records import (
    F64,
    I64,
    MAX_LINE_BYTES,
    U8,
    U64,
    FileEntry,
    ParsedItem,
    ParseReport,
)


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


"""GPFS ``mmapplypolicy`` LIST files (pure core: no Django).

The layout is described in ``forecasts.storage.parsers``' docstring; ``GPFS_POLICY`` is the
policy whose output the columnar fast path reads.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import UTC, datetime

import numpy as np
import numpy.typing as npt

from forecasts.storage.scan.columnar import (
    EntryChunk,
    _chunk_from_items,
    _parent_hashes,
    _parse_uint,
    _set_keys,
    _split_fields,
)
from forecasts.storage.scan.find import _MTIME_RE
from forecasts.storage.scan.hashing import windows
from forecasts.storage.scan.lines import lines_of_block
from forecasts.storage.scan.records import (
    F64,
    I64,
    KIND_DIR,
    KIND_FILE,
    KIND_LINK,
    KIND_OTHER,
    MAX_LINE_BYTES,
    MAX_SIZE_BYTES,
    U8,
    FileEntry,
    ParsedItem,
    Rejected,
    Skipped,
    _raw,
    _text,
)

GPFS_POLICY = """\
RULE EXTERNAL LIST 'scan' EXEC ''
RULE 'scan_all' LIST 'scan' DIRECTORIES_PLUS
  SHOW(VARCHAR(FILE_SIZE) || ' ' || VARCHAR(USER_ID) || ' ' || VARCHAR(GROUP_ID) || ' ' ||
       VARCHAR(MODIFICATION_TIME) || ' ' || VARCHAR(KB_ALLOCATED) || ' ' || MISC_ATTRIBUTES)
"""
"""The policy we expect: ``mmapplypolicy /gpfs/fs -P scan.pol -I defer -f /tmp/scan``."""


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


"""``find -printf`` / GUFI TSV scans (pure core: no Django).

The layout is described in ``forecasts.storage.parsers``' docstring.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import numpy as np

from forecasts.storage.scan.columnar import (
    EntryChunk,
    _chunk_from_items,
    _parent_hashes,
    _parse_epoch,
    _parse_uint,
    _set_keys,
    _split_fields,
)
from forecasts.storage.scan.lines import lines_of_block
from forecasts.storage.scan.records import (
    KIND_DIR,
    KIND_FILE,
    KIND_LINK,
    KIND_OTHER,
    MAX_LINE_BYTES,
    MAX_SIZE_BYTES,
    FileEntry,
    ParsedItem,
    Rejected,
    Skipped,
    _raw,
    _text,
)

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
# find -printf %y's letters (block, character, directory, pipe, file, link, socket, door): any other single
# character in the type column (a digit of a histogram read as a scan) is no file type
_FIND_TYPE_LETTERS = b"bcdpflsD"
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
            kind = _TYPE_WORDS.get(t.lower()) if len(t) != 1 else (
                _TYPE_WORDS.get(t, "o") if t in _FIND_TYPE_LETTERS else None)
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
            good &= ~one | np.isin(letter, np.frombuffer(_FIND_TYPE_LETTERS, dtype=np.uint8))
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


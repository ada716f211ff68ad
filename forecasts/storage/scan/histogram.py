"""Pre-aggregated size histograms: NERSC ``sizebytype`` and HPSS, and our own CSV (pure core).

The layouts and how their bin bounds are read are described in ``forecasts.storage.parsers``'
docstring.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from forecasts.storage.scan.records import HistogramBin, HistogramItem, Rejected, Skipped, _raw

# A bin's counts and sizes: far above any file system (a thousand trillion files, 4.6 EB), and small enough that
# the fine-bin arithmetic (int64) holds their sums.
MAX_BIN_COUNT = 10**15
MAX_BIN_BYTES = 2**62
COUNT_COLUMNS = {"files", "num_files", "num_dirs", "num_symlinks", "num_blks", "num_chrs", "num_fifos", "num_socks",
                 "object count"}


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
            most = MAX_BIN_COUNT if name in COUNT_COLUMNS else MAX_BIN_BYTES
            if len(value) > 20 or int(value) > most:  # past int64 the spread over fine bins failed the whole scan
                raise _BadCell(f"{name} {value[:40]} is out of range (at most {most:,})")
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


def iter_histogram(lines: Iterable[bytes], parser: HistogramParser | None = None) -> Iterator[HistogramItem]:
    p = parser or HistogramParser()
    for i, line in enumerate(lines, start=1):
        yield p.parse_line(line, i)

"""What a scan's statistics say: totals, quantiles, deciles, age, directories, ``to_dict``.

Pure core: no Django.  ``ScanSummary`` holds the read-only queries of
``forecasts.storage.stats.ScanAccumulator``, which inherits them; the accumulator's feeding and
merging stay with it.
"""

from __future__ import annotations

import math
from datetime import UTC, datetime

import numpy as np

from forecasts.storage.scan.bins import (
    _LOG2_OF_BIN,
    BIN_LOWER_BYTES,
    BIN_UPPER_BYTES,
    EXACT_BELOW_BYTES,
    I64,
    N_DAYS,
    SECONDS_PER_DAY,
    SizeBins,
    format_size,
    size_bin_index,
)
from forecasts.storage.scan.directories import DirectorySample
from forecasts.storage.scan.records import MAX_SIZE_BYTES, ParseReport
from forecasts.units import bytes_to_tb

AGE_BUCKETS_DAYS = (30, 90, 365, 1095)
AGE_LABELS = ("<30d", "30-90d", "90d-1y", "1-3y", ">3y")
SMALL_FILE_THRESHOLDS_BYTES = (1024, 4096, 32768, 1048576)
MANY_FILES_PER_DIRECTORY = 10_000


class ScanSummary:
    """The queries and the report of a ``ScanAccumulator`` (which sets the attributes below)."""

    # set by ScanAccumulator.__init__ (forecasts.storage.stats)
    scan_time_epoch: float | None
    max_owners: int
    files_by_bin: I64
    bytes_by_bin: I64
    min_size_bytes: int | None
    max_size_bytes: int | None
    directory_entries: int
    symlinks: int
    other_entries: int
    owners: dict[str, list[int]]
    groups: dict[str, list[int]]
    owners_truncated: bool
    files_by_mtime_day: I64
    bytes_by_mtime_day: I64
    allocated_bytes: int
    allocated_files: int
    dirs: DirectorySample
    report: ParseReport
    from_histogram: bool
    histogram_bytes_estimated: bool

    @property
    def files(self) -> int:
        return int(self.files_by_bin.sum())

    @property
    def total_bytes(self) -> int:
        return sum(self.bytes_by_bin.tolist())

    def size_bins(self) -> SizeBins:
        return SizeBins(BIN_LOWER_BYTES, BIN_UPPER_BYTES, self.files_by_bin.copy(), self.bytes_by_bin.copy())

    def quantile_size_bytes(self, q: float) -> int | None:
        """Nearest-rank quantile: the smallest size s with at least q x files of size <= s."""
        n = self.files
        if not n:
            return None
        rank = max(1, math.ceil(q * n - 1e-9))
        return self._size_at_rank(rank)

    def _size_at_rank(self, rank: int) -> int:
        cum = np.cumsum(self.files_by_bin)
        k = int(np.searchsorted(cum, rank))
        value = int(BIN_UPPER_BYTES[k])
        if self.max_size_bytes is not None:
            value = min(value, self.max_size_bytes)
        if self.min_size_bytes is not None:
            value = max(value, self.min_size_bytes)
        return value

    def deciles(self) -> list[dict[str, object]]:
        """Table 2 of the Minerva paper: per decile the max size and the files in its band."""
        n = self.files
        if not n:
            return []
        cum = np.cumsum(self.files_by_bin)
        rows: list[dict[str, object]] = []
        prev_k, prev_cum = -1, 0
        for d in range(1, 11):
            rank = max(1, (n * d + 9) // 10)
            k = int(np.searchsorted(cum, rank))
            size = self._size_at_rank(rank)
            band = int(cum[k]) - prev_cum if k > prev_k else 0
            rows.append(
                {"decile": d * 10, "max_size_bytes": size, "max_size": format_size(size),
                 "files": band, "cumulative_files": int(cum[k])}
            )  # fmt: skip
            if k > prev_k:
                prev_k, prev_cum = k, int(cum[k])
        return rows

    def under(self, threshold_bytes: int) -> tuple[int, int]:
        """(files, bytes) of files smaller than ``threshold_bytes`` (exact at bin edges)."""
        k = int(size_bin_index(np.array([min(threshold_bytes, MAX_SIZE_BYTES)]))[0])
        if k >= EXACT_BELOW_BYTES and BIN_LOWER_BYTES[k] != threshold_bytes:
            k += 1  # not a bin edge: count the whole bin holding the threshold as under it
        return int(self.files_by_bin[:k].sum()), int(self.bytes_by_bin[:k].sum())

    def _files_per_directory(self) -> dict[str, object]:
        d = self.dirs
        d.compact()
        scale = d.scale
        with_files = len(d.keys) * scale
        if self.directory_entries:
            # a partial scan may lack some parents' own entries: never fewer than hold files
            count, method = max(self.directory_entries, with_files), "exact: directory entries in the scan"
        elif d.level == 0:
            count, method = with_files, "exact: distinct parent directories of files"
        else:
            count, method = with_files, f"estimated: distinct sample at rate 1/{scale}"
        rse = 0.0 if d.level == 0 else math.sqrt((1 - 1 / scale) / max(len(d.keys), 1))
        known = len(d.keys) > 0 or not self.from_histogram
        hist: list[dict[str, int]] = []
        if known:
            if self.directory_entries and count > with_files:
                hist.append({"min_files": 0, "max_files": 0, "directories": count - with_files})
            if len(d.files):
                b = np.frexp(d.files.astype(np.float64))[1].astype(np.int64)
                per = np.bincount(b)
                for i in range(1, len(per)):
                    if per[i]:
                        hist.append({"min_files": 1 << (i - 1), "max_files": (1 << i) - 1,
                                     "directories": int(per[i]) * scale})  # fmt: skip
        return {
            "count": count,
            "method": method,
            "relative_standard_error": round(rse, 6),
            "with_files": with_files,
            "with_one_file": int((d.files == 1).sum()) * scale,
            f"with_over_{MANY_FILES_PER_DIRECTORY}_files": int((d.files > MANY_FILES_PER_DIRECTORY).sum())
            * scale,
            "max_files_in_one_directory": int(d.files.max()) if len(d.files) else 0,
            "files_per_directory": hist if known else None,
            "sample_level": d.level,
        }

    def _age(self, as_of_epoch: float | None) -> dict[str, object]:
        dated = int(self.files_by_mtime_day.sum())
        if not dated:
            return {"as_of": None, "files_with_mtime": 0, "buckets": []}
        if as_of_epoch is None:
            as_of_epoch = self.scan_time_epoch
        derived = as_of_epoch is None
        if as_of_epoch is None:
            last = int(np.flatnonzero(self.files_by_mtime_day)[-1])
            as_of_epoch = float((last + 1) * SECONDS_PER_DAY)
        as_of_day = math.floor(as_of_epoch / SECONDS_PER_DAY)
        ages = as_of_day - np.arange(N_DAYS)
        bucket = np.searchsorted(np.array(AGE_BUCKETS_DAYS), ages, side="right")
        files = np.zeros(len(AGE_LABELS), dtype=np.int64)
        nbytes = np.zeros(len(AGE_LABELS), dtype=np.int64)
        np.add.at(files, bucket, self.files_by_mtime_day)
        np.add.at(nbytes, bucket, self.bytes_by_mtime_day)
        return {
            "as_of": datetime.fromtimestamp(as_of_epoch, tz=UTC).isoformat(),
            "as_of_derived_from_newest_mtime": derived,
            "files_with_mtime": dated,
            "buckets": [
                {
                    "label": label,
                    "max_age_days": AGE_BUCKETS_DAYS[i] if i < len(AGE_BUCKETS_DAYS) else None,
                    "files": int(files[i]),
                    "bytes": int(nbytes[i]),
                }
                for i, label in enumerate(AGE_LABELS)
            ],  # fmt: skip
        }

    def log2_histogram(self) -> list[dict[str, int]]:
        """Files and bytes per power-of-two size bin ([0,0], [1,1], [2,3], [4,7], ...)."""
        files = np.zeros(64, dtype=np.int64)
        nbytes = np.zeros(64, dtype=np.int64)
        np.add.at(files, _LOG2_OF_BIN, self.files_by_bin)
        np.add.at(nbytes, _LOG2_OF_BIN, self.bytes_by_bin)
        used = np.flatnonzero(files)
        if not len(used):
            return []
        rows = []
        for b in range(int(used[0]), int(used[-1]) + 1):
            lo = 0 if b == 0 else 1 << (b - 1)
            hi = 0 if b == 0 else (1 << b) - 1
            rows.append(
                {"size_min_bytes": lo, "size_max_bytes": hi, "files": int(files[b]), "bytes": int(nbytes[b])}
            )
        return rows

    def to_dict(self, as_of_epoch: float | None = None) -> dict[str, object]:
        """A JSON-serialisable snapshot of every statistic (see the keys below)."""
        files = self.files
        total = self.total_bytes
        small = []
        for t in SMALL_FILE_THRESHOLDS_BYTES:
            f, b = self.under(t)
            small.append({"under_bytes": t, "label": f"< {format_size(t)}", "files": f,
                          "files_share": f / files if files else 0.0, "bytes": b,
                          "bytes_share": b / total if total else 0.0})  # fmt: skip
        notes = [
            "sizes exact below 4 KiB; above, quantiles are bin upper edges (bins 0.39-0.78% wide)",
        ]
        if self.from_histogram:
            notes.append(
                "built from a pre-aggregated histogram: quantiles interpolated log-uniformly within bins"
            )
            if self.histogram_bytes_estimated:
                notes.append("the histogram has no byte sums: bytes estimated within each bin's bounds")
        if self.owners_truncated:
            notes.append(f"more than {self.max_owners} owners or groups: the rest are under '(other)'")
        median = self.quantile_size_bytes(0.5)
        return {
            "schema": "scan-stats/1",
            "lines": self.report.to_dict(),
            "files": files,
            "bytes": total,
            "tb": bytes_to_tb(total),
            "zero_length_files": int(self.files_by_bin[0]),
            "symlinks": self.symlinks,
            "other_entries": self.other_entries,
            "directory_entries": self.directory_entries,
            "directories": self._files_per_directory(),
            "min_size_bytes": self.min_size_bytes,
            "max_size_bytes": self.max_size_bytes,
            "mean_size_bytes": total / files if files else None,
            "median_size_bytes": median,
            "deciles": self.deciles(),
            "small_files": small,
            "owners": {k: {"files": v[0], "bytes": v[1]} for k, v in sorted(self.owners.items())},
            "groups": {k: {"files": v[0], "bytes": v[1]} for k, v in sorted(self.groups.items())},
            "age": self._age(as_of_epoch),
            "size_histogram_log2": self.log2_histogram(),
            "allocated_bytes": self.allocated_bytes if self.allocated_files else None,
            "from_histogram": self.from_histogram,
            "histogram_bytes_estimated": self.histogram_bytes_estimated,
            "notes": notes,
        }

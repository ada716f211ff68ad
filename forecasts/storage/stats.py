"""Bounded-memory, mergeable statistics of a file-system scan (pure core: no Django).

``ScanAccumulator`` never holds the file list: memory is fixed (about 1 MB of histograms, plus
the per-owner/group dicts and the directory sample, at most ``dir_sample_capacity`` x 16
bytes), whatever the number of lines. Two accumulators add up exactly (``merge``), so a scan can
be split across workers.

Size resolution. Sizes are counted in an exact histogram: one bin per byte value below 4 KiB
(4,096 bins), then 128 equal-width bins per power of two up to 8 PiB (a bin is 0.39%-0.78% of
its size wide; every power of two, hence 32 KiB, 128 KiB, 1 MiB..., is a bin edge). Counts and
byte sums per bin are exact integers. Quantiles (median, deciles) are exact below 4 KiB; above,
the reported size is the upper edge of the bin holding the quantile (at most 0.78% above the
true value), clipped to the exact largest size seen.

Directories. Exact when the scan includes directory entries (``type d``): their count. Files
per directory come from a distinct sample of parent-directory hashes (64-bit, deterministic):
exact while fewer than ``dir_sample_capacity`` (default 1,048,576) directories hold files;
beyond that the sample keeps directories whose hash has ``level`` leading zero bits (rate
2**-level, Gibbons' distinct sampling) and the estimates are scaled by 2**level; a kept
directory's file count is still exact. Relative standard error of the directory count is about
sqrt((1 - p) / kept) (0.1% at the default capacity), reported in ``to_dict``.

Pre-aggregated histograms (``add_histogram_bin``) are spread over the fine bins log-uniformly
within each input bin (byte sums kept when the source has them); the quantiles are then
interpolations and ``to_dict`` says so.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import BinaryIO

import numpy as np
import numpy.typing as npt

from forecasts.storage.parsers import (
    BLOCK_LINES,
    KIND_DIR,
    KIND_FILE,
    KIND_LINK,
    MAX_LINE_BYTES,
    MAX_SIZE_BYTES,
    EntryChunk,
    FileEntry,
    FindTsvParser,
    GpfsListParser,
    HistogramBin,
    HistogramParser,
    ParseReport,
    Rejected,
    chunk_from_entries,
    iter_blocks,
    run_heads,
)
from forecasts.units import BYTES_PER_KB, bytes_to_tb

I64 = npt.NDArray[np.int64]
U64 = npt.NDArray[np.uint64]

EXACT_BELOW_BYTES = 4096
SUB_BINS_PER_OCTAVE = 128
_OCTAVES = 42  # 2**12 .. 2**54: covers MAX_SIZE_BYTES (2**53)
N_SIZE_BINS = EXACT_BELOW_BYTES + _OCTAVES * SUB_BINS_PER_OCTAVE

SECONDS_PER_DAY = 86400
N_DAYS = 50000  # mtime days since 1970-01-01, through 2106; earlier/later are clipped
AGE_BUCKETS_DAYS = (30, 90, 365, 1095)
AGE_LABELS = ("<30d", "30-90d", "90d-1y", "1-3y", ">3y")
SMALL_FILE_THRESHOLDS_BYTES = (1024, 4096, 32768, 1048576)
MANY_FILES_PER_DIRECTORY = 10_000


def _bin_edges() -> tuple[I64, I64]:
    k = np.arange(N_SIZE_BINS, dtype=np.int64)
    j = np.maximum(k - EXACT_BELOW_BYTES, 0)
    octave, sub = j // SUB_BINS_PER_OCTAVE, j % SUB_BINS_PER_OCTAVE
    lower = np.where(k < EXACT_BELOW_BYTES, k, (1 << (12 + octave)) + sub * (1 << (5 + octave)))
    upper = np.where(k < EXACT_BELOW_BYTES, k, lower + (1 << (5 + octave)) - 1)
    return lower.astype(np.int64), upper.astype(np.int64)


BIN_LOWER_BYTES, BIN_UPPER_BYTES = _bin_edges()


def size_bin_index(sizes_bytes: I64) -> I64:
    """Fine-bin index of each size (0 <= size <= 2**53)."""
    m, e = np.frexp(sizes_bytes.astype(np.float64))
    big = (
        EXACT_BELOW_BYTES
        + (e.astype(np.int64) - 13) * SUB_BINS_PER_OCTAVE
        + ((m - 0.5) * 256).astype(np.int64)
    )
    return np.where(sizes_bytes < EXACT_BELOW_BYTES, sizes_bytes, big)


def _log2_of_bins() -> I64:
    k = np.arange(N_SIZE_BINS, dtype=np.int64)
    small = np.frexp(np.maximum(k, 1).astype(np.float64))[1].astype(np.int64)
    small[0] = 0
    return np.where(k < EXACT_BELOW_BYTES, small, 13 + (k - EXACT_BELOW_BYTES) // SUB_BINS_PER_OCTAVE)


_LOG2_OF_BIN = _log2_of_bins()


def _wsum(idx: I64, values: I64, n: int) -> I64:
    """Exact per-index sums of non-negative int64 values below 2**53 (two float64 bincounts)."""
    out = np.zeros(n, dtype=np.int64)
    step = 1 << 26  # keeps each float64 partial sum below 2**53, hence exact
    for a in range(0, len(values), step):
        i, v = idx[a : a + step], values[a : a + step]
        hi = np.bincount(i, weights=(v >> 26).astype(np.float64), minlength=n).astype(np.int64)
        lo = np.bincount(i, weights=(v & ((1 << 26) - 1)).astype(np.float64), minlength=n).astype(np.int64)
        out += (hi << 26) + lo
    return out


def format_size(size_bytes: float) -> str:
    """``3 B``, ``3.7 KB``, ``17 KB``, ``5 TB``: binary multiples, as file sizes are quoted."""
    if size_bytes < BYTES_PER_KB:
        return f"{int(size_bytes)} B"
    value = float(size_bytes)
    for unit in ("KB", "MB", "GB", "TB", "PB", "EB"):
        value /= BYTES_PER_KB
        if value < BYTES_PER_KB or unit == "EB":
            text = f"{value:.1f}" if value < 10 else f"{value:.0f}"
            return f"{text.removesuffix('.0')} {unit}"
    raise AssertionError("unreachable")


class _DirectorySample:
    """Files per directory for a bounded distinct sample of parent-directory hashes."""

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self.level = 0
        self.keys: U64 = np.zeros(0, dtype=np.uint64)
        self.files: I64 = np.zeros(0, dtype=np.int64)
        self._pending: list[tuple[U64, I64]] = []
        self._pending_n = 0

    def _keep(self, keys: U64) -> npt.NDArray[np.bool_]:
        if self.level == 0:
            return np.ones(len(keys), dtype=bool)
        return (keys >> np.uint64(64 - self.level)) == 0

    def add(self, keys: U64, files: I64) -> None:
        if self.level:
            mask = self._keep(keys)
            keys, files = keys[mask], files[mask]
        self._pending.append((keys, files))
        self._pending_n += len(keys)
        if self._pending_n >= min(max(len(self.keys), 1 << 16), self.capacity):
            self.compact()

    def compact(self) -> None:
        if not self._pending:
            return
        keys = np.concatenate([self.keys] + [k for k, _ in self._pending])
        files = np.concatenate([self.files] + [f for _, f in self._pending])
        self._pending, self._pending_n = [], 0
        uniq, inv = np.unique(keys, return_inverse=True)
        total = np.bincount(inv.ravel(), weights=files.astype(np.float64), minlength=len(uniq)).astype(
            np.int64
        )
        while len(uniq) > self.capacity:
            self.level += 1
            mask = self._keep(uniq)
            uniq, total = uniq[mask], total[mask]
        self.keys, self.files = uniq, total

    def merge(self, other: _DirectorySample) -> None:
        other = copy.deepcopy(other)
        other.compact()
        self.compact()
        self.level = max(self.level, other.level)
        mask = self._keep(self.keys)
        self.keys, self.files = self.keys[mask], self.files[mask]
        self.add(other.keys, other.files)
        self.compact()

    @property
    def scale(self) -> int:
        return 1 << self.level


@dataclass(frozen=True, slots=True)
class SizeBins:
    """The fine size histogram as arrays (what the planner facts compute on)."""

    lower_bytes: I64
    upper_bytes: I64
    files: I64
    bytes: I64


class ScanAccumulator:
    """Streams scan entries into fixed-size statistics; see the module docstring."""

    def __init__(
        self,
        *,
        scan_time_epoch: float | None = None,
        dir_sample_capacity: int = 1 << 20,
        max_owners: int = 100_000,
        max_rejections_kept: int = 1000,
    ) -> None:
        self.scan_time_epoch = scan_time_epoch
        self.max_owners = max_owners
        self.files_by_bin: I64 = np.zeros(N_SIZE_BINS, dtype=np.int64)
        self.bytes_by_bin: I64 = np.zeros(N_SIZE_BINS, dtype=np.int64)
        self.min_size_bytes: int | None = None
        self.max_size_bytes: int | None = None
        self.directory_entries = 0
        self.symlinks = 0
        self.other_entries = 0
        self.owners: dict[str, list[int]] = {}
        self.groups: dict[str, list[int]] = {}
        self.owners_truncated = False
        self.files_by_mtime_day: I64 = np.zeros(N_DAYS, dtype=np.int64)
        self.bytes_by_mtime_day: I64 = np.zeros(N_DAYS, dtype=np.int64)
        self.allocated_bytes = 0
        self.allocated_files = 0
        self.dirs = _DirectorySample(dir_sample_capacity)
        self.report = ParseReport(keep=max_rejections_kept)
        self.from_histogram = False
        self.histogram_bytes_estimated = False

    # ---------------------------------------------------------------- feeding
    def add_chunk(self, chunk: EntryChunk) -> None:
        """Add a parsed chunk (the fast path)."""
        self.report.merge(chunk.report)
        n = len(chunk)
        if not n:
            return
        kinds = chunk.kinds
        is_file = kinds == KIND_FILE
        n_files = int(is_file.sum())
        n_dirs = int((kinds == KIND_DIR).sum())
        n_links = int((kinds == KIND_LINK).sum())
        self.directory_entries += n_dirs
        self.symlinks += n_links
        self.other_entries += n - n_files - n_dirs - n_links
        if not n_files:
            return
        sel = slice(None) if n_files == n else is_file
        sizes = chunk.sizes[sel]
        bins = size_bin_index(sizes)
        self.files_by_bin += np.bincount(bins, minlength=N_SIZE_BINS)
        self.bytes_by_bin += _wsum(bins, sizes, N_SIZE_BINS)
        self._extend_range(int(sizes.min()), int(sizes.max()))
        if chunk.owner_idx is not None:
            self._add_keyed(self.owners, chunk.owner_idx[sel], chunk.owner_names, sizes)
        if chunk.group_idx is not None:
            self._add_keyed(self.groups, chunk.group_idx[sel], chunk.group_names, sizes)
        if chunk.mtimes is not None:
            m = chunk.mtimes[sel]
            known = ~np.isnan(m)
            days = np.clip(np.floor(m[known] / SECONDS_PER_DAY), 0, N_DAYS - 1).astype(np.int64)
            self.files_by_mtime_day += np.bincount(days, minlength=N_DAYS)
            self.bytes_by_mtime_day += _wsum(days, sizes[known], N_DAYS)
        if chunk.parent_hash is not None:
            # runs of one directory collapse here; repeats across runs merge when the sample compacts
            parents = chunk.parent_hash[sel]
            heads = run_heads(parents)
            self.dirs.add(parents[heads], np.diff(np.append(heads, len(parents))).astype(np.int64))
        if chunk.allocated is not None:
            self.allocated_bytes += int(chunk.allocated[sel].sum())
            self.allocated_files += n_files

    def _extend_range(self, lo: int, hi: int) -> None:
        self.min_size_bytes = lo if self.min_size_bytes is None else min(self.min_size_bytes, lo)
        self.max_size_bytes = hi if self.max_size_bytes is None else max(self.max_size_bytes, hi)

    def _add_keyed(self, table: dict[str, list[int]], codes: I64, names: list[str], sizes: I64) -> None:
        files = np.bincount(codes, minlength=len(names)).tolist()
        nbytes = _wsum(codes, sizes, len(names)).tolist()
        for name, f, b in zip(names, files, nbytes, strict=True):
            if f:
                self._bump(table, name, f, b)

    def _bump(self, table: dict[str, list[int]], name: str, files: int, nbytes: int) -> None:
        row = table.get(name)
        if row is None:
            if len(table) >= self.max_owners:
                self.owners_truncated = True
                name = "(other)"
                row = table.get(name)
            if row is None:
                row = table[name] = [0, 0]
        row[0] += files
        row[1] += nbytes

    def add_entries(self, entries: Iterable[FileEntry]) -> None:
        """Add entries one object at a time (simple and slow: for tests and small inputs)."""
        batch: list[FileEntry] = []
        for e in entries:
            batch.append(e)
            if len(batch) >= BLOCK_LINES:
                self._add_entry_batch(batch)
                batch = []
        if batch:
            self._add_entry_batch(batch)

    def _add_entry_batch(self, batch: list[FileEntry]) -> None:
        chunk = chunk_from_entries(batch)
        self.add_chunk(chunk)
        self.report.add_entries(len(batch))

    def consume_file(
        self, fileobj: BinaryIO, parser: FindTsvParser | GpfsListParser, block_bytes: int = 1 << 20
    ) -> ParseReport:
        """Parse and add a whole scan file (binary); the fast path. Returns this parse's report."""
        return self.consume_blocks(iter_blocks(fileobj, block_bytes), parser)

    def consume_blocks(self, blocks: Iterable[bytes], parser: FindTsvParser | GpfsListParser) -> ParseReport:
        """Parse and add blocks of whole lines (each ending in ``\\n``)."""
        report = ParseReport(keep=self.report.keep)
        line_no = 1
        for block in blocks:
            start = 0
            while start < len(block):
                # ~BLOCK_LINES lines at a time keeps the numpy temporaries small
                cut = _nth_newline(block, start, BLOCK_LINES)
                piece = block[start : cut + 1]
                start = cut + 1
                for chunk in parser.parse_block(piece, line_no):
                    line_no += chunk.report.read
                    report.merge(chunk.report)
                    self.add_chunk(chunk)
        return report

    def consume_lines(self, lines: Iterable[bytes], parser: FindTsvParser | GpfsListParser) -> ParseReport:
        """Parse and add lines (each element one line, with or without its newline)."""
        report = ParseReport(keep=self.report.keep)
        line_no = 1
        for batch in _batches(lines):
            block = _join(batch)
            if block.count(b"\n") == len(batch):
                chunks = parser.parse_block(block, line_no)
            else:  # a newline inside an element: keep element = line, one at a time
                chunks = [_chunk_of_lines(parser, batch, line_no)]
            for chunk in chunks:
                report.merge(chunk.report)
                self.add_chunk(chunk)
            line_no += len(batch)
        return report

    def consume_histogram(self, lines: Iterable[bytes], parser: HistogramParser | None = None) -> ParseReport:
        """Add a pre-aggregated histogram file (NERSC layouts or ours)."""
        p = parser or HistogramParser()
        report = ParseReport(keep=self.report.keep)
        for i, line in enumerate(lines, start=1):
            item = p.parse_line(line, i)
            report.add(item)
            if isinstance(item, HistogramBin):
                self.add_histogram_bin(item)
        self.report.merge(report)
        return report

    def add_histogram_bin(self, hbin: HistogramBin) -> None:
        """Spread one pre-aggregated bin over the fine bins.

        Inside the bin the size density is taken as a power law s**-alpha: alpha = 1
        (log-uniform) when the bin has no byte sum, else the alpha whose mean size matches the
        bin's bytes / files, so the byte total is kept.
        """
        self.from_histogram = True
        self.directory_entries += hbin.directories
        self.symlinks += hbin.symlinks
        self.other_entries += hbin.other
        if hbin.files <= 0:
            return
        lo, hi = hbin.size_min_bytes, min(hbin.size_max_bytes, MAX_SIZE_BYTES)
        if hi <= 1 and lo == 0:
            hi = 0  # NERSC's [0, 1] bin: counted as zero-length files
        elif lo == 0:
            lo = 1  # the spread starts at 1 byte
        k0, k1 = int(size_bin_index(np.array([lo]))[0]), int(size_bin_index(np.array([hi]))[0])
        ks = np.arange(k0, k1 + 1)
        lower = np.maximum(BIN_LOWER_BYTES[ks], lo).astype(np.float64)
        upper = np.minimum(BIN_UPPER_BYTES[ks], hi).astype(np.float64)
        weight, mass = np.ones(1), np.ones(1)
        files = np.array([hbin.files], dtype=np.int64)
        if hi > lo:
            target = None if hbin.bytes is None else hbin.bytes / hbin.files
            for _ in range(20):
                weight, mass = _power_law_spread(
                    lower / lo, (upper + 1) / lo, target / lo if target else None
                )
                files = _largest_remainder(hbin.files, weight)
                if hbin.bytes is None or target is None:
                    break
                # whole files lost in a thin tail can leave the bounds unable to hold the bytes
                cap, floor = float((files * upper).sum()), float((files * lower).sum())
                if cap < hbin.bytes:
                    target *= hbin.bytes / cap * 1.0001
                elif floor > hbin.bytes:
                    target *= hbin.bytes / floor * 0.9999
                else:
                    break
        exact = upper == lower
        if hbin.bytes is not None and hi > lo and exact.all():
            files = _match_bytes_exact(files, lower.astype(np.int64), hbin.bytes)
        mean = np.clip(mass / np.maximum(weight, 1e-300) * lo, lower, upper) if hi > lo else lower
        est = np.where(exact, files * lower, files * mean)
        if hbin.bytes is not None and not exact.all():
            floor_b, cap_b = np.where(exact, est, files * lower), np.where(exact, est, files * upper)
            free = est[~exact].sum()
            target_free = hbin.bytes - est[exact].sum()
            if free > 0:
                est = np.where(exact, est, np.clip(est * (target_free / free), floor_b, cap_b))
            residue = hbin.bytes - est.sum()  # what the clipping moved: share it by room left
            room = cap_b - est if residue > 0 else est - floor_b
            if room.sum() > 0:
                est += np.sign(residue) * room * min(1.0, abs(residue) / room.sum())
        elif hbin.bytes is None:
            self.histogram_bytes_estimated = True
        nbytes = np.round(est).astype(np.int64)
        if hbin.bytes is not None and not exact.all():
            # put the rounding residue where it fits
            residue = hbin.bytes - int(nbytes.sum())
            room_up = np.where(exact, 0, (files * upper).astype(np.int64) - nbytes)
            room_down = np.where(exact, 0, nbytes - (files * lower).astype(np.int64))
            j = int(np.argmax(room_up if residue > 0 else room_down))
            nbytes[j] += max(-int(room_down[j]), min(int(room_up[j]), residue))
        self.files_by_bin[ks] += files
        self.bytes_by_bin[ks] += nbytes
        used = np.flatnonzero(files)
        self._extend_range(int(lower[used[0]]), hi)  # the bin's bound: all a histogram tells

    def add_size_counts(self, sizes_bytes: npt.ArrayLike, counts: npt.ArrayLike) -> None:
        """Add ``counts[i]`` regular files of exactly ``sizes_bytes[i]`` (an exact histogram)."""
        sizes = np.asarray(sizes_bytes, dtype=np.int64)
        n = np.asarray(counts, dtype=np.int64)
        keep = n > 0
        sizes, n = sizes[keep], n[keep]
        if not len(sizes):
            return
        if sizes.min() < 0 or sizes.max() > MAX_SIZE_BYTES:
            raise ValueError("sizes must be between 0 and 2**53 bytes")
        bins = size_bin_index(sizes)
        np.add.at(self.files_by_bin, bins, n)
        np.add.at(self.bytes_by_bin, bins, n * sizes)
        self._extend_range(int(sizes.min()), int(sizes.max()))

    # ---------------------------------------------------------------- combining
    def merge(self, other: ScanAccumulator) -> ScanAccumulator:
        """Add ``other`` into this accumulator (in place) and return it."""
        self.files_by_bin += other.files_by_bin
        self.bytes_by_bin += other.bytes_by_bin
        if other.min_size_bytes is not None and other.max_size_bytes is not None:
            self._extend_range(other.min_size_bytes, other.max_size_bytes)
        self.directory_entries += other.directory_entries
        self.symlinks += other.symlinks
        self.other_entries += other.other_entries
        for mine, theirs in ((self.owners, other.owners), (self.groups, other.groups)):
            for name, (f, b) in theirs.items():
                self._bump(mine, name, f, b)
        self.owners_truncated |= other.owners_truncated
        self.files_by_mtime_day += other.files_by_mtime_day
        self.bytes_by_mtime_day += other.bytes_by_mtime_day
        self.allocated_bytes += other.allocated_bytes
        self.allocated_files += other.allocated_files
        self.dirs.merge(other.dirs)
        self.report.merge(other.report)
        self.from_histogram |= other.from_histogram
        self.histogram_bytes_estimated |= other.histogram_bytes_estimated
        if self.scan_time_epoch is None:
            self.scan_time_epoch = other.scan_time_epoch
        return self

    def __add__(self, other: ScanAccumulator) -> ScanAccumulator:
        return copy.deepcopy(self).merge(other)

    # ---------------------------------------------------------------- queries
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
                notes.append("the histogram has no byte sums: bytes estimated at bin midpoints")
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
            "notes": notes,
        }


def _power_law_spread(
    a: npt.NDArray[np.float64], b: npt.NDArray[np.float64], mean: float | None
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Count and size mass of a density x**-alpha on each [a, b) (x in units of the bin start).

    alpha = 1 when ``mean`` is None, else solved (bisection) so that the mean of x is ``mean``.
    """

    single = (b - a) * a[0] <= 1.0 + 1e-9  # one whole byte value (x = size / bin start)

    def parts(alpha: float) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
        def integral(p: float) -> npt.NDArray[np.float64]:
            if abs(p) < 1e-9:
                return np.log(b / a)
            return (b**p - a**p) / p

        # a single byte value counts as a point mass (the density summed, not integrated)
        count = np.where(single, a**-alpha * (b - a), integral(1 - alpha))
        mass = np.where(single, a ** (1 - alpha) * (b - a), integral(2 - alpha))
        return count, mass

    if mean is None:
        return parts(1.0)
    lo_a, hi_a = -12.0, 40.0  # mean falls as alpha rises
    for _ in range(60):
        mid = (lo_a + hi_a) / 2
        count, mass = parts(mid)
        if mass.sum() / count.sum() > mean:
            lo_a = mid
        else:
            hi_a = mid
    return parts((lo_a + hi_a) / 2)


def _match_bytes_exact(files: I64, sizes: I64, target_bytes: int) -> I64:
    """Shift files between neighbouring byte values until their bytes sum to the target."""
    files = files.copy()
    residue = target_bytes - int((files * sizes).sum())
    for _ in range(4 * len(files) + 4):
        if residue == 0:
            break
        used = np.flatnonzero(files)
        if residue > 0:
            movable = used[used < len(files) - 1]
            if not len(movable):
                break
            i = int(movable[0])
            m = min(int(files[i]), residue // int(sizes[i + 1] - sizes[i]) or 1)
            files[i] -= m
            files[i + 1] += m
        else:
            movable = used[used > 0]
            if not len(movable):
                break
            i = int(movable[-1])
            m = min(int(files[i]), -residue // int(sizes[i] - sizes[i - 1]) or 1)
            files[i] -= m
            files[i - 1] += m
        residue = target_bytes - int((files * sizes).sum())
    return files


def _largest_remainder(total: int, weight: npt.NDArray[np.float64]) -> I64:
    """Split ``total`` into integers proportional to ``weight`` by rounding the cumulative share
    (systematic placement: a few files spread over the distribution instead of bunching)."""
    cum = np.cumsum(weight / weight.sum() * total)
    edges = np.floor(cum + 0.5).astype(np.int64)
    edges[-1] = total
    return np.diff(np.concatenate([[0], edges]))


def _nth_newline(block: bytes, start: int, n: int) -> int:
    """Index of a newline about ``n`` lines after ``start`` (or the block's last byte)."""
    sample = block.count(b"\n", start, start + 65536)
    if not sample:
        pos = block.find(b"\n", start)
        return len(block) - 1 if pos < 0 else pos
    guess = start + min(65536, len(block) - start) * n // sample  # jump ahead by mean line length
    if guess >= len(block):
        return len(block) - 1
    pos = block.find(b"\n", guess)
    return len(block) - 1 if pos < 0 else pos


def _batches(lines: Iterable[bytes]) -> Iterable[list[bytes]]:
    batch: list[bytes] = []
    for line in lines:
        batch.append(line)
        if len(batch) >= BLOCK_LINES:
            yield batch
            batch = []
    if batch:
        yield batch


def _join(batch: list[bytes]) -> bytes:
    stripped = [ln.rstrip(b"\r\n") for ln in batch]
    if max(map(len, stripped)) > MAX_LINE_BYTES:
        stripped = [ln if len(ln) <= MAX_LINE_BYTES else ln[: MAX_LINE_BYTES + 1] for ln in stripped]
    return b"\n".join(stripped) + b"\n"


def _chunk_of_lines(
    parser: FindTsvParser | GpfsListParser, batch: list[bytes], first_line_no: int
) -> EntryChunk:
    report = ParseReport()
    entries: list[FileEntry] = []
    for i, line in enumerate(batch):
        item = parser.parse_line(line, first_line_no + i)
        report.add(item)
        if isinstance(item, FileEntry):
            entries.append(item)
    return chunk_from_entries(entries, report)


__all__ = [
    "BIN_LOWER_BYTES",
    "BIN_UPPER_BYTES",
    "N_SIZE_BINS",
    "Rejected",
    "ScanAccumulator",
    "SizeBins",
    "format_size",
    "size_bin_index",
]

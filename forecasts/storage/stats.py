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

The pieces live in ``forecasts.storage.scan``: ``bins`` (bin geometry, exact sums,
``format_size``), ``directories`` (the directory sample), ``spread`` (histogram bins over the
fine bins) and ``summary`` (the queries and ``to_dict``, which ``ScanAccumulator`` inherits).
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from typing import BinaryIO

import numpy as np
import numpy.typing as npt

from forecasts.storage.scan.bins import (
    BIN_LOWER_BYTES,
    BIN_UPPER_BYTES,
    EXACT_BELOW_BYTES,
    I64,
    N_DAYS,
    N_SIZE_BINS,
    SECONDS_PER_DAY,
    SUB_BINS_PER_OCTAVE,
    U64,
    SizeBins,
    _wsum,
    format_size,
    size_bin_index,
)
from forecasts.storage.scan.columnar import EntryChunk, chunk_from_entries
from forecasts.storage.scan.directories import DirectorySample
from forecasts.storage.scan.find import FindTsvParser
from forecasts.storage.scan.gpfs import GpfsListParser
from forecasts.storage.scan.hashing import run_heads
from forecasts.storage.scan.histogram import HistogramParser
from forecasts.storage.scan.lines import iter_blocks
from forecasts.storage.scan.records import (
    BLOCK_LINES,
    KIND_DIR,
    KIND_FILE,
    KIND_LINK,
    MAX_LINE_BYTES,
    MAX_SIZE_BYTES,
    FileEntry,
    HistogramBin,
    ParseReport,
    Rejected,
)
from forecasts.storage.scan.spread import _largest_remainder, _match_bytes_exact, _power_law_spread
from forecasts.storage.scan.summary import (
    AGE_BUCKETS_DAYS,
    AGE_LABELS,
    MANY_FILES_PER_DIRECTORY,
    SMALL_FILE_THRESHOLDS_BYTES,
    ScanSummary,
)


class ScanAccumulator(ScanSummary):
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
        self.dirs = DirectorySample(dir_sample_capacity)
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
    "AGE_BUCKETS_DAYS",
    "AGE_LABELS",
    "BIN_LOWER_BYTES",
    "BIN_UPPER_BYTES",
    "EXACT_BELOW_BYTES",
    "I64",
    "MANY_FILES_PER_DIRECTORY",
    "N_DAYS",
    "N_SIZE_BINS",
    "Rejected",
    "SECONDS_PER_DAY",
    "SMALL_FILE_THRESHOLDS_BYTES",
    "SUB_BINS_PER_OCTAVE",
    "ScanAccumulator",
    "SizeBins",
    "U64",
    "format_size",
    "size_bin_index",
]

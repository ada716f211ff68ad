"""The fine size histogram's bins, the mtime-day bins, exact sums and size labels (pure core).

The bin geometry (exact below 4 KiB, then 128 bins per power of two) is explained in
``forecasts.storage.stats``' docstring.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from forecasts.units import BYTES_PER_KB

I64 = npt.NDArray[np.int64]
U64 = npt.NDArray[np.uint64]

EXACT_BELOW_BYTES = 4096
SUB_BINS_PER_OCTAVE = 128
_OCTAVES = 42  # 2**12 .. 2**54: covers MAX_SIZE_BYTES (2**53)
N_SIZE_BINS = EXACT_BELOW_BYTES + _OCTAVES * SUB_BINS_PER_OCTAVE

SECONDS_PER_DAY = 86400
N_DAYS = 50000  # mtime days since 1970-01-01, through 2106; earlier/later are clipped


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


@dataclass(frozen=True, slots=True)
class SizeBins:
    """The fine size histogram as arrays (what the planner facts compute on)."""

    lower_bytes: I64
    upper_bytes: I64
    files: I64
    bytes: I64

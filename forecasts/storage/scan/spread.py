"""Spreading a pre-aggregated histogram bin over the fine bins (pure core: no Django).

``ScanAccumulator.add_histogram_bin`` takes the size density inside a bin as a power law,
splits the files over the fine bins in whole numbers and, when the source has byte sums, moves
files so the bytes still add up.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from forecasts.storage.scan.bins import I64


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

"""Deterministic synthetic file-system scans for the demo and tests (pure core: no Django).

``scan_lines(files, owners=..., seed=..., as_of_epoch=...)`` yields ``find -printf
'%s\\t%u\\t%g\\t%T@\\t%y\\t%p\\n'`` lines: directory entries followed by their files, sizes drawn
log-uniformly within the ten decile bands of Table 2 of the Minerva paper (so the deciles of a
large scan reproduce the paper's: 3 B, 6 B, 10 B, 39 B, 340 B, 2 KB, 3.7 KB, 17 KB, 84 KB), a
long tail to tens of GiB, and modification times spread over the previous years.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np

# Upper size of each decile band, as in Table 2 of the Minerva paper (bytes)
TABLE2_DECILE_MAX_BYTES = (3, 6, 10, 39, 340, 2048, 3789, 17408, 86016, 64 * 2**30)


def scan_lines(files: int, *, owners: Sequence[tuple[str, str]], seed: int = 2013,
               as_of_epoch: int = 1_377_993_600, files_per_dir: int = 40) -> Iterator[str]:
    """``files`` file lines (plus their directories) owned by (user, group) pairs, deterministic."""
    rng = np.random.default_rng(seed)
    lows = np.array((0,) + TABLE2_DECILE_MAX_BYTES[:-1], dtype=np.float64) + 1
    highs = np.array(TABLE2_DECILE_MAX_BYTES, dtype=np.float64) + 1  # band k holds (max[k-1], max[k]]
    done, d = 0, 0
    while done < files:
        n = min(files - done, 65536)
        band = rng.integers(0, 10, size=n)
        sizes = np.minimum(np.floor(lows[band] * (highs[band] / lows[band]) ** rng.random(n)), highs[band] - 1)
        sizes = sizes.astype(np.int64)
        ages = rng.exponential(300 * 86400, size=n).astype(np.int64)
        who = rng.integers(0, len(owners), size=max(n // files_per_dir + 1, 1))
        for i in range(n):
            if i % files_per_dir == 0:
                user, group = owners[int(who[i // files_per_dir])]
                d += 1
                base = f"/data/{group}/{user}/run{d:07d}"
                yield f"4096\t{user}\t{group}\t{as_of_epoch - int(ages[i])}.0\td\t{base}\n"
            yield f"{int(sizes[i])}\t{user}\t{group}\t{as_of_epoch - int(ages[i])}.0\tf\t{base}/f{i:06d}.dat\n"
        done += n

"""A bounded distinct sample of parent directories, with files per directory (pure core).

Gibbons' distinct sampling: see ``forecasts.storage.stats``' docstring for the rate and error.
"""

from __future__ import annotations

import copy

import numpy as np
import numpy.typing as npt

from forecasts.storage.scan.bins import I64, U64


class DirectorySample:
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

    def merge(self, other: DirectorySample) -> None:
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

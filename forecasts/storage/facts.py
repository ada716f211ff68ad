"""Small-file planning facts from a scan's size histogram (pure core: no Django).

The Minerva paper (section 7.2): with 4 KB GPFS inodes, files small enough for the inode's
data area (about 130 million, over half the files) need no data block at all; since every
file otherwise takes at least one sub-block (32 KB in 2013, 128 KB in 2014), even a
zero-length one, that saved about 4 TB and 16 TB. These functions compute the same facts from
a ``ScanAccumulator`` (or its ``SizeBins``).

Data-in-inode capacity. A 4 KiB GPFS inode keeps its header, block pointers and extended
attributes, and holds file data in the rest: about 3.5-3.8 KB in practice (less when ACLs or
other extended attributes take room). ``DEFAULT_INODE_DATA_BYTES`` (3,584 = 3.5 KiB) is the
conservative end; pass the site's figure.

Sub-block allocation. A file without data in its inode takes ceil(size / sub_block) sub-blocks
(at least one, even at zero length). Exact below 4 KiB, where the histogram is exact; above,
each fine bin's files are taken at the bin's mean size (bins are 0.4-0.8% wide, so only files
within a bin of a sub-block multiple can be one sub-block off).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from forecasts.storage.scan.bins import SizeBins
from forecasts.storage.stats import ScanAccumulator
from forecasts.units import BYTES_PER_KIB, BYTES_PER_TB, bytes_to_tb

DEFAULT_INODE_DATA_BYTES = 3584  # what a 4 KiB inode holds in practice, conservatively
GPFS_FILL_LIMIT = 0.8  # GPFS degrades above 80% full (Minerva): plan to 80% of usable


def _bins(scan: ScanAccumulator | SizeBins) -> SizeBins:
    return scan.size_bins() if isinstance(scan, ScanAccumulator) else scan


@dataclass(frozen=True, slots=True)
class InodeFit:
    inode_data_bytes: int
    files: int  # files small enough to live in the inode
    files_share: float
    bytes: int  # their data
    sub_block_bytes: int
    saved_bytes: int  # the sub-blocks they would otherwise occupy
    saved_tb: float

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


def inode_fit(
    scan: ScanAccumulator | SizeBins,
    *,
    inode_data_bytes: int = DEFAULT_INODE_DATA_BYTES,
    sub_block_bytes: int = 32 * BYTES_PER_KIB,
) -> InodeFit:
    """Files whose data fits in the inode, and the sub-block space storing them there saves."""
    b = _bins(scan)
    fits = b.upper_bytes <= inode_data_bytes
    files = int(b.files[fits].sum())
    total = int(b.files.sum())
    alloc = _allocated(b.lower_bytes[fits], b.files[fits], b.bytes[fits], sub_block_bytes)
    return InodeFit(
        inode_data_bytes=inode_data_bytes,
        files=files,
        files_share=files / total if total else 0.0,
        bytes=int(b.bytes[fits].sum()),
        sub_block_bytes=sub_block_bytes,
        saved_bytes=alloc,
        saved_tb=bytes_to_tb(alloc),
    )


def _allocated(lower: np.ndarray, files: np.ndarray, nbytes: np.ndarray, sub: int) -> int:
    """Bytes of sub-blocks the files occupy: ceil(size / sub) sub-blocks each, at least one."""
    used = files > 0
    if not used.any():
        return 0
    mean = np.where(used, nbytes / np.maximum(files, 1), 0.0)
    exact = lower < 4096
    mean = np.where(exact, lower, mean)
    blocks = np.maximum(np.ceil(mean / sub), 1).astype(np.int64)
    return int((blocks[used] * files[used]).sum()) * sub


@dataclass(frozen=True, slots=True)
class SubBlockWaste:
    sub_block_bytes: int
    max_size_bytes: int | None  # files up to this size considered (None: all files)
    files: int
    data_bytes: int
    allocated_bytes: int
    waste_bytes: int  # allocated - data
    waste_tb: float

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


def sub_block_waste(
    scan: ScanAccumulator | SizeBins, *, sub_block_bytes: int, max_size_bytes: int | None = None
) -> SubBlockWaste:
    """sum(ceil(size / sub) x sub - size) over files (optionally only those <= max_size_bytes)."""
    b = _bins(scan)
    sel = np.ones(len(b.files), dtype=bool) if max_size_bytes is None else b.upper_bytes <= max_size_bytes
    alloc = _allocated(b.lower_bytes[sel], b.files[sel], b.bytes[sel], sub_block_bytes)
    data = int(b.bytes[sel].sum())
    return SubBlockWaste(
        sub_block_bytes=sub_block_bytes,
        max_size_bytes=max_size_bytes,
        files=int(b.files[sel].sum()),
        data_bytes=data,
        allocated_bytes=alloc,
        waste_bytes=alloc - data,
        waste_tb=bytes_to_tb(alloc - data),
    )


@dataclass(frozen=True, slots=True)
class MetadataCapacity:
    inodes: int
    inode_size_bytes: int
    replicas: int
    headroom: float
    needed_bytes: int
    needed_tb: float

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


def metadata_capacity(
    *,
    files: int,
    directories: int = 0,
    symlinks: int = 0,
    inode_size_bytes: int = 4096,
    replicas: int = 1,
    headroom: float = 1.5,
) -> MetadataCapacity:
    """Metadata space for the inodes: (files + dirs + links) x inode size x replicas x headroom.

    Directory blocks and indirect blocks of large files are not counted (they are small next
    to the inodes when files are small); ``headroom`` covers them and growth.
    """
    if headroom < 1 or replicas < 1 or inode_size_bytes <= 0:
        raise ValueError("headroom >= 1, replicas >= 1 and a positive inode size are required")
    inodes = files + directories + symlinks
    needed = int(inodes * inode_size_bytes * replicas * headroom)
    return MetadataCapacity(inodes, inode_size_bytes, replicas, headroom, needed, needed / BYTES_PER_TB)


@dataclass(frozen=True, slots=True)
class FlashSizing:
    daily_ingest_tb: float
    days: float
    fill_limit: float
    ingest_tb: float  # days x daily ingest
    flash_tb: float  # what to buy so the ingest stays under the fill limit

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


def flash_for_ingest(
    *, daily_ingest_tb: float, days: float = 7, fill_limit: float = GPFS_FILL_LIMIT
) -> FlashSizing:
    """Flash that holds ``days`` of ingest (Minerva: a week at 1-10 TB a day) below ``fill_limit``."""
    if daily_ingest_tb < 0 or days <= 0 or not 0 < fill_limit <= 1:
        raise ValueError("ingest >= 0, days > 0 and 0 < fill_limit <= 1 are required")
    ingest = daily_ingest_tb * days
    return FlashSizing(daily_ingest_tb, days, fill_limit, ingest, ingest / fill_limit)


def small_file_facts(
    scan: ScanAccumulator,
    *,
    inode_data_bytes: int = DEFAULT_INODE_DATA_BYTES,
    sub_blocks_bytes: tuple[int, ...] = (32 * BYTES_PER_KIB, 128 * BYTES_PER_KIB),
) -> dict[str, object]:
    """Everything above for one scan, JSON-ready (the storage page's small-file panel)."""
    stats_dirs = scan.to_dict()["directories"]
    assert isinstance(stats_dirs, dict)
    return {
        "inode_fit": [
            inode_fit(scan, inode_data_bytes=inode_data_bytes, sub_block_bytes=s).to_dict()
            for s in sub_blocks_bytes
        ],  # fmt: skip
        "sub_block_waste": [
            sub_block_waste(scan, sub_block_bytes=s, max_size_bytes=s).to_dict() for s in sub_blocks_bytes
        ],  # fmt: skip
        "metadata": metadata_capacity(
            files=scan.files, directories=int(stats_dirs["count"]), symlinks=scan.symlinks
        ).to_dict(),
    }

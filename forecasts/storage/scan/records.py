"""What a scan parser produces: entries, bins, skips, rejections and their line accounting.

Pure core: no Django.  Limits and kind codes shared by every parser are here too.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

MAX_SIZE_BYTES = 2**53  # 8 PiB: larger sizes are rejected (and keep float64 sums exact)
MAX_LINE_BYTES = 65536
MAX_RAW_CHARS = 300
BLOCK_LINES = 65536  # lines per columnar chunk: bounds the transient numpy memory (~30 MB)

KIND_FILE = ord("f")
KIND_DIR = ord("d")
KIND_LINK = ord("l")
KIND_OTHER = ord("o")

U8 = npt.NDArray[np.uint8]
I64 = npt.NDArray[np.int64]
U64 = npt.NDArray[np.uint64]
F64 = npt.NDArray[np.float64]


@dataclass(slots=True)
class FileEntry:
    """One file system entry. ``kind``: 'f' file, 'd' directory, 'l' symlink, 'o' other."""

    size_bytes: int
    path: str = ""
    owner: str | None = None
    group: str | None = None
    mtime_epoch: float | None = None
    kind: str = "f"
    allocated_bytes: int | None = None
    line: int = 0


@dataclass(slots=True)
class HistogramBin:
    """A pre-aggregated bin: ``files`` regular files with sizes in [size_min, size_max]."""

    size_min_bytes: int
    size_max_bytes: int
    files: int
    bytes: int | None = None  # exact byte sum when the source has it
    directories: int = 0
    symlinks: int = 0
    other: int = 0
    line: int = 0


@dataclass(slots=True)
class Skipped:
    line: int
    reason: str


@dataclass(slots=True)
class Rejected:
    """A line that could not be understood, kept with (the start of) its raw text."""

    line: int
    reason: str
    raw: str = ""


ParsedItem = FileEntry | Skipped | Rejected
HistogramItem = HistogramBin | Skipped | Rejected


def _raw(line: bytes) -> str:
    return line[:MAX_RAW_CHARS].decode("utf-8", "backslashreplace")


def _text(value: bytes) -> str:
    return value.decode("utf-8", "surrogateescape")


@dataclass(slots=True)
class ParseReport:
    """Line accounting for one parse; ``read == entries + skipped + rejected`` always."""

    read: int = 0
    entries: int = 0
    skipped: int = 0
    rejected: int = 0
    skipped_reasons: dict[str, int] = field(default_factory=dict)
    rejections: list[Rejected] = field(default_factory=list)  # the first ``keep`` of them
    keep: int = 1000

    def skip(self, reason: str, n: int = 1) -> None:
        self.read += n
        self.skipped += n
        self.skipped_reasons[reason] = self.skipped_reasons.get(reason, 0) + n

    def reject(self, item: Rejected) -> None:
        self.read += 1
        self.rejected += 1
        if len(self.rejections) < self.keep:
            self.rejections.append(item)

    def add_entries(self, n: int) -> None:
        self.read += n
        self.entries += n

    def add(self, item: ParsedItem | HistogramItem) -> None:
        if isinstance(item, Skipped):
            self.skip(item.reason)
        elif isinstance(item, Rejected):
            self.reject(item)
        else:
            self.add_entries(1)

    def merge(self, other: ParseReport) -> None:
        self.read += other.read
        self.entries += other.entries
        self.skipped += other.skipped
        self.rejected += other.rejected
        for reason, n in other.skipped_reasons.items():
            self.skipped_reasons[reason] = self.skipped_reasons.get(reason, 0) + n
        room = self.keep - len(self.rejections)
        self.rejections.extend(other.rejections[: max(room, 0)])

    def to_dict(self) -> dict[str, object]:
        return {
            "read": self.read,
            "entries": self.entries,
            "skipped": self.skipped,
            "rejected": self.rejected,
            "skipped_reasons": dict(sorted(self.skipped_reasons.items())),
            "rejections": [{"line": r.line, "reason": r.reason, "raw": r.raw} for r in self.rejections],
        }


"""Column layouts of sacct output and the state one parse carries (pure core, no Django).

``Layout`` resolves column positions once per header; ``_Context`` holds what survives a
change of header within one parse (line number, time parser, per-column value caches).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

from forecasts.accounting.parsers.slurm_fields import _CANONICAL, APEL_FIELDS
from forecasts.accounting.parsers.slurm_time import _TIME_NONE, TimeParser

_CACHE_LIMIT = 200_000
_MISS: Any = object()  # cache-miss sentinel (cached values may be None)

_HOT_COLUMNS = (
    "Partition", "QOS", "Account", "Group", "User", "Submit", "Eligible", "Start", "End", "ExitCode",
    "State", "NodeList", "JobName", "ReqMem", "AllocTRES", "Timelimit",
)  # fmt: skip
_EXTRA_COLUMNS = ("AllocGRES", "TimelimitRaw", "MaxRSS", "MaxVMSize", "TotalCPU", "UserCPU", "CPUTimeRAW")


class Layout:
    """Column positions for one header (or a headerless layout)."""

    __slots__ = ("names", "n", "split_limit", "index", "missing")

    def __init__(self, names: Sequence[str]) -> None:
        self.names = tuple(names)
        self.n = len(self.names)
        # the last column may contain '|' only if it is JobName
        self.split_limit = self.n - 1 if self.names and self.names[-1] == "JobName" else -1
        self.index: dict[str, int] = {}
        for i, name in enumerate(self.names):
            self.index.setdefault(name, i)
        self.missing = self.n  # position of the padding "" appended to every row

    def pos(self, *names: str) -> int:
        for name in names:
            if name in self.index:
                return self.index[name]
        return self.missing

    def has(self, name: str) -> bool:
        return name in self.index


def read_header(text: str) -> list[str] | None:
    """Column names if ``text`` is a sacct header line, else None."""
    fields = text.split("|")
    if fields and fields[-1] == "":
        fields.pop()  # --parsable (not parsable2) ends with '|'
    if not fields or fields[0].strip().lower() not in _CANONICAL:
        return None
    names = []
    for f in fields:
        key = f.strip().lower()
        names.append(_CANONICAL.get(key, f.strip()))
    return names


def _looks_apel(parts: list[str]) -> bool:
    if len(parts) != len(APEL_FIELDS):
        return False
    for s in (parts[4], parts[5]):
        if s in _TIME_NONE:
            continue
        try:
            datetime.fromisoformat(s)
        except ValueError:
            return False
    return True


class _Context:
    """State shared across layout changes within one parse."""

    __slots__ = ("cluster", "parse_time", "lineno", "header_text", "caches")

    def __init__(self, cluster: str, parse_time: TimeParser) -> None:
        self.cluster = cluster
        self.parse_time = parse_time
        self.lineno = 0
        self.header_text = ""
        self.caches: dict[str, dict[str, Any]] = {
            "state": {}, "mem": {}, "gpus": {}, "limit": {}, "exit": {}, "int": {}, "ended": {}
        }  # fmt: skip


def _cache_get(cache: dict[str, Any], fn: Callable[[str], Any], s: str) -> Any:
    """Miss path of the per-column caches used in the row loop."""
    value = fn(s)
    if len(cache) > _CACHE_LIMIT:
        cache.clear()
    cache[s] = value
    return value


def _int_miss(cache: dict[str, int], s: str) -> int:
    value = int(s)
    if len(cache) > _CACHE_LIMIT:
        cache.clear()
    cache[s] = value
    return value

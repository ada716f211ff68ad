"""The normalised job record every accounting parser yields.

Pure core: imports nothing from Django.  A parser turns bytes into a stream of
``JobRecord`` (a finished job to store), ``Skipped`` (a record that is not a
job: a step, a non-ended state, a header) and ``Rejected`` (a record that could
not be understood).  Every record the parser reads becomes exactly one of the
three, so ``records_read == jobs + skipped + rejected`` at the parser level;
array ranges are expanded first, each element counting as one record.

Units: times are timezone-aware UTC datetimes; memory in MB (10**6 bytes is not
used: 1 MB = 1024 KB = 1,048,576 bytes, as schedulers report it); durations in
seconds.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime

NO_ARRAY_INDEX = -1


@dataclass(slots=True)
class JobRecord:
    cluster: str
    job_id: str  # the base job id without array index or server suffix, e.g. "4103947"
    array_index: int  # NO_ARRAY_INDEX (-1) when the job is not an array element
    user: str
    group: str
    account: str
    queue: str  # queue or partition
    qos: str
    submit: datetime | None
    eligible: datetime | None
    start: datetime | None
    end: datetime | None
    cores: int  # allocated cores (CPUs / slots)
    nodes: int
    gpus: int = 0
    req_mem_mb: float | None = None  # total requested memory for the job
    used_mem_mb: float | None = None  # peak resident memory (max RSS), where known
    req_walltime_s: int | None = None
    cpu_time_s: float | None = None  # user + system CPU time, where the format has it
    exit_status: int | None = None
    state: str = ""
    node_list: str = ""
    name: str = ""
    line: int = 0  # 1-based line number (or record number for JSON) in the source

    @property
    def wall_s(self) -> float:
        """Wall-clock seconds between start and end (0 when either is unknown)."""
        if self.start is None or self.end is None:
            return 0.0
        return max(0.0, (self.end - self.start).total_seconds())

    @property
    def core_hours(self) -> float:
        """Allocated cores x wall hours: what the job held, whether it used it or not."""
        return self.cores * self.wall_s / 3600.0


@dataclass(slots=True)
class Skipped:
    """A record read but deliberately not stored as a job (step, non-ended state...)."""

    line: int
    reason: str


@dataclass(slots=True)
class Rejected:
    """A record that could not be parsed; kept with its raw text so nothing is lost."""

    line: int
    reason: str
    raw: str = ""


# Text fields the database keeps in columns of a fixed width (forecasts.accounting.models: Job, Identity). A
# longer value is no name a scheduler gives (a damaged record): it is rejected with its line, where it would
# otherwise fail the whole batch ("value too long for type character varying(120)").
FIELD_MAX_CHARS: dict[str, int] = {"job_id": 64, "user": 120, "group": 120, "account": 120, "queue": 120,
                                   "qos": 120, "state": 32}
# A job's name is kept to this many characters (LSF allows 4,094, Slurm more): a name of megabytes (a script
# pasted into --job-name) made a row of megabytes. A longer one is cut and marked, the job stored, the run counts it.
NAME_MAX_CHARS = 1024


def field_too_long(job: JobRecord) -> str | None:
    """Why ``job`` cannot be stored (a text field wider than its column), or None."""
    for name, most in FIELD_MAX_CHARS.items():
        value = getattr(job, name)
        if len(value) > most:
            return f"{name} is {len(value):,} characters long (at most {most}): {value[:40]!r}..."
    return None


def capped_name(name: str) -> str:
    """``name`` if it is at most NAME_MAX_CHARS long, else its start and how much was cut, in NAME_MAX_CHARS."""
    if len(name) <= NAME_MAX_CHARS:
        return name
    kept = NAME_MAX_CHARS - 40
    while True:  # the marker's length depends on the count it gives: settle both
        tail = f"… [{len(name) - kept:,} more characters not kept]"
        if kept + len(tail) == NAME_MAX_CHARS:
            return name[:kept] + tail
        kept = NAME_MAX_CHARS - len(tail)


ParsedItem = JobRecord | Skipped | Rejected
ParseStream = Iterator[ParsedItem]


@dataclass(slots=True)
class ParseCounts:
    """Running totals for one parse; ``read`` always equals the sum of the rest."""

    read: int = 0
    jobs: int = 0
    skipped: int = 0
    rejected: int = 0
    skipped_reasons: dict[str, int] = field(default_factory=dict)

    def add(self, item: ParsedItem) -> None:
        self.read += 1
        if isinstance(item, JobRecord):
            self.jobs += 1
        elif isinstance(item, Skipped):
            self.skipped += 1
            self.skipped_reasons[item.reason] = self.skipped_reasons.get(item.reason, 0) + 1
        else:
            self.rejected += 1


def nothing_loaded_reason(fmt: str, read: int, rejected: int, skipped: int, reasons: dict[str, int]) -> str:
    """Why a run stored no job, in one line.  Only rejected records suggest the wrong format was chosen: an
    empty file, or one whose records were all skipped (jobs still running, job steps), is in the right one."""
    if read == 0:
        return "Nothing loaded: the file holds no records (it is empty, or has only comments or a header)"
    if rejected == 0:
        why = ", ".join(f"{reason}: {n:,}" for reason, n in sorted(reasons.items(), key=lambda kv: -kv[1])[:3])
        return f"Nothing loaded: all {read:,} records were skipped ({why}); none is a finished job"
    return f"Nothing loaded: {read:,} records read, {rejected:,} rejected, {skipped:,} skipped; is this a {fmt} file?"

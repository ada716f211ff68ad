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

import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

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


# Whole-number fields and the range of their database column (integer; bigint for the requested wall time).
INT32 = 2**31 - 1
INT64 = 2**63 - 1
INT_FIELDS: dict[str, int] = {"array_index": INT32, "cores": INT32, "nodes": INT32, "gpus": INT32,
                              "exit_status": INT32, "req_walltime_s": INT64}
FLOAT_FIELDS = ("req_mem_mb", "used_mem_mb", "cpu_time_s")


EARLIEST = datetime(1970, 1, 1, tzinfo=UTC)  # no scheduler's log is older: an earlier time is a damaged date
FUTURE_SLACK = timedelta(days=1)  # a finished job's times lie before the import (a day for clocks and zones)
TIME_FIELDS = ("submit", "eligible", "start", "end")


def record_problem(job: JobRecord, now: datetime) -> str | None:
    """Why ``job`` cannot be stored, or None: a text field wider than its column, a whole number outside its
    column's range (99999999999999999999 nodes failed the whole batch in COPY), a measure that is not a finite
    number (1e309 reads as infinity, and one infinite job makes every sum over it infinite), or a time before
    1970 or after ``now`` (+ a day; an end in 9999 made a job of 3 billion core-hours), or an end before the
    start.

    Called for every job of every import: one expression decides the common case (about 1 us a job, against 4
    for the field-by-field walk that names the problem)."""
    latest = now + FUTURE_SLACK
    submit, eligible, start, end = job.submit, job.eligible, job.start, job.end
    req_wall, exit_status = job.req_walltime_s, job.exit_status
    if ((submit is None or EARLIEST <= submit <= latest) and (start is None or EARLIEST <= start <= latest)
            and (end is None or EARLIEST <= end <= latest) and (eligible is None or EARLIEST <= eligible <= latest)
            and (start is None or end is None or start <= end)
            and len(job.job_id) <= 64 and len(job.user) <= 120 and len(job.group) <= 120
            and len(job.account) <= 120 and len(job.queue) <= 120 and len(job.qos) <= 120 and len(job.state) <= 32
            and 0 <= job.cores <= INT32 and 0 <= job.nodes <= INT32 and 0 <= job.gpus <= INT32
            and -INT32 <= job.array_index <= INT32 and (exit_status is None or -INT32 <= exit_status <= INT32)
            and (req_wall is None or -INT64 <= req_wall <= INT64)
            and (job.req_mem_mb is None or math.isfinite(job.req_mem_mb))
            and (job.used_mem_mb is None or math.isfinite(job.used_mem_mb))
            and (job.cpu_time_s is None or math.isfinite(job.cpu_time_s))):
        return None
    return _named_problem(job, now)


def _named_problem(job: JobRecord, now: datetime) -> str | None:
    for name in TIME_FIELDS:
        when = getattr(job, name)
        if when is not None and when < EARLIEST:
            return f"{name} {when.isoformat()} is before 1970: a damaged date"
        if when is not None and when > now + FUTURE_SLACK:
            return f"{name} {when.isoformat()} is in the future (the file was read {now:%Y-%m-%d}): a damaged date"
    if job.start is not None and job.end is not None and job.end < job.start:  # a negative run time
        return f"end {job.end.isoformat()} is before start {job.start.isoformat()}"
    for name, most in FIELD_MAX_CHARS.items():
        value = getattr(job, name)
        if len(value) > most:
            return f"{name} is {len(value):,} characters long (at most {most}): {value[:40]!r}..."
    for name, most in INT_FIELDS.items():
        number = getattr(job, name)
        if number is not None and not -most - 1 <= number <= most:
            return f"{name} {number} is out of range (at most {most:,})"
    for name in FLOAT_FIELDS:
        number = getattr(job, name)
        if number is not None and not math.isfinite(number):
            return f"{name} is not a finite number ({number})"
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

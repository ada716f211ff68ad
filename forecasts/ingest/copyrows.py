"""JobRecord -> one line of PostgreSQL COPY text format (pure core).

The column order is STAGING_COLUMNS; the loader's staging table declares the same.
"""

from __future__ import annotations

from datetime import datetime

from forecasts.ingest.records import JobRecord

STAGING_COLUMNS: tuple[str, ...] = (
    "job_id", "array_index", "submit", "user", "group", "account", "queue", "qos", "eligible", "start", "end",
    "cores", "nodes", "gpus", "req_mem_mb", "used_mem_mb", "req_walltime_s", "cpu_time_s", "exit_status",
    "state", "node_list", "name", "wall_s", "core_hours",
)

_ESCAPES = str.maketrans({"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r", "\x00": ""})
NULL = "\\N"


def text(value: str) -> str:
    """Escape a string for COPY text format (NUL bytes cannot be stored and are dropped)."""
    if value.isprintable() and "\\" not in value:
        return value
    return value.translate(_ESCAPES)


def _epoch(value: datetime | None) -> str:
    # Epoch seconds are 4x cheaper to format than isoformat(); SQL turns them back with to_timestamp().
    return NULL if value is None else repr(value.timestamp())


def _num(value: float | int | None) -> str:
    return NULL if value is None else repr(value)


def copy_line(job: JobRecord) -> str:
    """The staging-table row for one job, newline-terminated (times as epoch seconds)."""
    start, end = job.start, job.end
    wall_s = max(0.0, (end - start).total_seconds()) if start is not None and end is not None else 0.0
    name = job.name
    if not name.isprintable() or "\\" in name:
        name = name.translate(_ESCAPES)
    node_list = job.node_list
    if not node_list.isprintable() or "\\" in node_list:
        node_list = node_list.translate(_ESCAPES)
    return (
        f"{text(job.job_id)}\t{job.array_index}\t{_epoch(job.submit)}\t{text(job.user)}\t{text(job.group)}\t"
        f"{text(job.account)}\t{text(job.queue)}\t{text(job.qos)}\t{_epoch(job.eligible)}\t"
        f"{_epoch(start)}\t{_epoch(end)}\t{job.cores}\t{job.nodes}\t{job.gpus}\t{_num(job.req_mem_mb)}\t"
        f"{_num(job.used_mem_mb)}\t{_num(job.req_walltime_s)}\t{_num(job.cpu_time_s)}\t"
        f"{_num(job.exit_status)}\t{text(job.state)}\t{node_list}\t{name}\t{wall_s!r}\t"
        f"{job.cores * wall_s / 3600.0!r}\n"
    )


def rejection_line(run_id: int, file_id: int, line: int, reason: str, raw: str) -> str:
    return f"{run_id}\t{file_id}\t{line}\t{text(reason)}\t{text(raw)}\n"

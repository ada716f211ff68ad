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


def _ts(value: datetime | None) -> str:
    return NULL if value is None else value.isoformat()


def _num(value: float | int | None) -> str:
    return NULL if value is None else repr(value)


def copy_line(job: JobRecord) -> str:
    """The staging-table row for one job, newline-terminated."""
    wall_s = job.wall_s
    return "\t".join((
        text(job.job_id),
        str(job.array_index),
        _ts(job.submit),
        text(job.user),
        text(job.group),
        text(job.account),
        text(job.queue),
        text(job.qos),
        _ts(job.eligible),
        _ts(job.start),
        _ts(job.end),
        str(job.cores),
        str(job.nodes),
        str(job.gpus),
        _num(job.req_mem_mb),
        _num(job.used_mem_mb),
        _num(job.req_walltime_s),
        _num(job.cpu_time_s),
        _num(job.exit_status),
        text(job.state),
        text(job.node_list),
        text(job.name),
        repr(wall_s),
        repr(job.cores * wall_s / 3600.0),
    )) + "\n"


def rejection_line(run_id: int, file_id: int, line: int, reason: str, raw: str) -> str:
    return f"{run_id}\t{file_id}\t{line}\t{text(reason)}\t{text(raw)}\n"

"""JobRecord -> one line of PostgreSQL COPY text format (pure core).

The column order is STAGING_COLUMNS; the loader's staging table declares the same.
"""

from __future__ import annotations

from datetime import datetime

from forecasts.accounting.parsers.records import JobRecord

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


# user, group, account, queue, QOS and state come from small vocabularies: escape each once.
_VOCAB: dict[str, str] = {}
_VOCAB_LIMIT = 100_000


def _vocab(value: str) -> str:
    escaped = text(value)
    if len(_VOCAB) > _VOCAB_LIMIT:
        _VOCAB.clear()
    _VOCAB[value] = escaped
    return escaped


def copy_line(job: JobRecord) -> str:
    """The staging-table row for one job, newline-terminated (times as epoch seconds).

    The hottest function of the ingest path after the parser: helpers are inlined and
    vocabulary fields escaped once (see docs/performance.md).
    """
    start, end, submit, eligible = job.start, job.end, job.submit, job.eligible
    wall_s = max(0.0, (end - start).total_seconds()) if start is not None and end is not None else 0.0
    v = _VOCAB
    user = v.get(job.user) or _vocab(job.user)
    group = v.get(job.group) or _vocab(job.group)
    account = v.get(job.account) or _vocab(job.account)
    queue = v.get(job.queue) or _vocab(job.queue)
    qos = v.get(job.qos) or _vocab(job.qos)
    state = v.get(job.state) or _vocab(job.state)
    job_id, name, node_list = job.job_id, job.name, job.node_list
    if not job_id.isprintable() or "\\" in job_id:
        job_id = job_id.translate(_ESCAPES)
    if not name.isprintable() or "\\" in name:
        name = name.translate(_ESCAPES)
    if not node_list.isprintable() or "\\" in node_list:
        node_list = node_list.translate(_ESCAPES)
    req_mem, used_mem, req_wall, cpu_time, exit_status = (
        job.req_mem_mb, job.used_mem_mb, job.req_walltime_s, job.cpu_time_s, job.exit_status)
    return (
        f"{job_id}\t{job.array_index}\t{NULL if submit is None else repr(submit.timestamp())}\t"
        f"{user}\t{group}\t{account}\t{queue}\t{qos}\t"
        f"{NULL if eligible is None else repr(eligible.timestamp())}\t"
        f"{NULL if start is None else repr(start.timestamp())}\t{NULL if end is None else repr(end.timestamp())}\t"
        f"{job.cores}\t{job.nodes}\t{job.gpus}\t{NULL if req_mem is None else repr(req_mem)}\t"
        f"{NULL if used_mem is None else repr(used_mem)}\t{NULL if req_wall is None else req_wall}\t"
        f"{NULL if cpu_time is None else repr(cpu_time)}\t{NULL if exit_status is None else exit_status}\t"
        f"{state}\t{node_list}\t{name}\t{wall_s!r}\t{job.cores * wall_s / 3600.0!r}\n"
    )


# A rejected record keeps this much of its text: enough to see what was wrong with it.  A line of
# binary noise or a file without newlines can be one "record" of gigabytes, which would otherwise
# be stored whole (PostgreSQL refuses a field over 1 GB, failing the run) and sent whole in the CSV.
RAW_KEPT_CHARS = 2000


def raw_kept(raw: str) -> str:
    """``raw`` up to RAW_KEPT_CHARS, saying how much was left out."""
    if len(raw) <= RAW_KEPT_CHARS:
        return raw
    return f"{raw[:RAW_KEPT_CHARS]}… [{len(raw) - RAW_KEPT_CHARS:,} more characters not kept]"


def rejection_line(run_id: int, file_id: int, line: int, reason: str, raw: str) -> str:
    return f"{run_id}\t{file_id}\t{line}\t{text(reason)}\t{text(raw_kept(raw))}\n"

"""Accounting ingestion: files -> parser -> COPY -> jobs + rollups, in batches, idempotently.

Each batch is one transaction: the jobs, their identities, the monthly rollups, the
rejections and the run's counters and checkpoint commit together or not at all.  A
killed worker or a dropped connection therefore leaves no half-written batch, and
running the same run again resumes after the last committed batch (the checkpoint
counts records per file; those are re-parsed but not re-loaded).  Loading a file again
in a new run adds nothing: the jobs' natural key turns every repeat into a duplicate.

Parsing runs in a thread beside the database work (libpq releases the GIL), so on two
cores parsing and PostgreSQL's inserting overlap.
"""

from __future__ import annotations

import hashlib
import io
import json
import queue
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from django.db import connection, transaction
from django.utils import timezone

from forecasts.ingest.compression import open_source
from forecasts.ingest.copyrows import STAGING_COLUMNS, copy_line, rejection_line
from forecasts.ingest.formats import get_parser
from forecasts.ingest.records import JobRecord, Rejected, Skipped
from forecasts.models import Cluster, Department, IngestFile, IngestRun
from forecasts.services.workload import ATTRIBUTION_PLACEHOLDER as WORKLOAD_ATTRIBUTION
from forecasts.services.workload import SHAPE_CTES as WORKLOAD_SHAPE_CTES  # job-shape rollups, same batch

BATCH_RECORDS = 50_000
Progress = Callable[[int, int | None], None]  # (records read, total estimate or None)


class IngestError(Exception):
    """The run could not be carried out (unreadable file, unknown format, database down)."""


@dataclass
class Batch:
    file_id: int
    position: int
    end_record: int  # records of this file consumed up to and including this batch
    lines: list[str] = field(default_factory=list)
    rejections: list[str] = field(default_factory=list)
    read: int = 0
    skipped: int = 0
    rejected: int = 0
    skipped_reasons: dict[str, int] = field(default_factory=dict)


# --- Setting a run up ------------------------------------------------------------------

def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def ingest_run_create(*, cluster_name: str, fmt: str, paths: list[Path], tz: str | None = None,
                      user: Any = None, source: str = "command") -> IngestRun:
    """Validate the inputs and record a queued run with its files (name, size, sha256)."""
    get_parser(fmt)  # raises UnknownFormat with the valid names
    for path in paths:
        if not path.is_file():
            raise IngestError(f"{path}: no such file")
        try:
            with path.open("rb") as handle:
                handle.read(1)
        except OSError as exc:
            raise IngestError(f"{path}: cannot be read ({exc.strerror})") from exc
    cluster, _ = Cluster.objects.get_or_create(name=cluster_name)
    zone = tz or cluster.timezone or "UTC"
    try:
        ZoneInfo(zone)
    except Exception as exc:
        raise IngestError(f"unknown time zone {zone!r} (use an IANA name such as America/New_York)") from exc
    with transaction.atomic():
        run = IngestRun.objects.create(
            cluster=cluster, format=fmt, timezone=zone, source=source,
            created_by=user if user is not None and getattr(user, "is_authenticated", False) else None,
        )
        for position, path in enumerate(paths):
            IngestFile.objects.create(run=run, position=position, name=path.name, path=str(path.resolve()),
                                      size_bytes=path.stat().st_size, sha256=sha256_of(path))
    return run


# --- Parsing (producer thread) -----------------------------------------------------------

class _CountingReader(io.RawIOBase):
    """Wraps a binary file to count compressed bytes read, for progress on big files."""

    def __init__(self, raw: Any) -> None:
        self.raw = raw
        self.bytes_read = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        n = self.raw.readinto(buffer)
        self.bytes_read += n or 0
        return n or 0


def _batches(run: IngestRun, files: list[IngestFile], counters: dict[str, int]) -> Iterator[Batch]:
    parse = get_parser(run.format)
    tz = ZoneInfo(run.timezone)
    for f in files:
        done_before = int(run.checkpoint.get(str(f.position), 0))
        raw = _CountingReader(open(f.path, "rb"))  # noqa: SIM115 - closed below
        try:
            stream = open_source(io.BufferedReader(raw, buffer_size=1 << 20))
            items: Iterable[Any] = parse(stream, cluster=run.cluster.name, tz=tz)
            batch = Batch(f.pk, f.position, done_before)
            record = 0
            for item in items:
                record += 1
                if record <= done_before:
                    continue  # committed by an earlier attempt of this run
                batch.read += 1
                if type(item) is JobRecord:
                    batch.lines.append(copy_line(item))
                elif type(item) is Skipped:
                    batch.skipped += 1
                    batch.skipped_reasons[item.reason] = batch.skipped_reasons.get(item.reason, 0) + 1
                else:
                    assert isinstance(item, Rejected)
                    batch.rejected += 1
                    batch.rejections.append(rejection_line(run.pk, f.pk, item.line, item.reason, item.raw))
                if batch.read >= BATCH_RECORDS:
                    batch.end_record = record
                    counters["bytes"] = counters["bytes_done"] + raw.bytes_read
                    yield batch
                    batch = Batch(f.pk, f.position, record)
            batch.end_record = record
            counters["bytes"] = counters["bytes_done"] + raw.bytes_read
            counters["bytes_done"] += raw.bytes_read
            if batch.read:
                yield batch
        finally:
            raw.raw.close()


# --- Loading (database, in the calling thread) ---------------------------------------------

_STAGING_DDL = """
CREATE TEMP TABLE IF NOT EXISTS ingest_staging (
    job_id text, array_index integer, submit double precision, "user" text, "group" text, account text,
    queue text, qos text, eligible double precision, start double precision, "end" double precision,
    cores integer, nodes integer, gpus integer, req_mem_mb double precision, used_mem_mb double precision,
    req_walltime_s bigint, cpu_time_s double precision, exit_status integer, state text, node_list text,
    name text, wall_s double precision, core_hours double precision
) ON COMMIT DELETE ROWS
"""  # times arrive as epoch seconds (cheap to format in Python) and become timestamptz in SQL

# Attribution of an identity in a month: account, then user, then group mapping, most recent first.
ATTRIBUTION_LATERAL = """
LEFT JOIN LATERAL (
    SELECT m.department_id, m.project_id
    FROM forecasts_identitymapping m
    WHERE ((m.kind = 'account' AND m.name = i.account AND i.account <> '')
           OR (m.kind = 'user' AND m.name = i."user")
           OR (m.kind = 'group' AND m.name = i."group" AND i."group" <> ''))
      AND m.valid_from <= {month} AND (m.valid_to IS NULL OR m.valid_to >= {month})
    ORDER BY CASE m.kind WHEN 'account' THEN 0 WHEN 'user' THEN 1 ELSE 2 END, m.valid_from DESC
    LIMIT 1
) attr ON true
"""

_LOAD_SQL = """
WITH ins AS (
    INSERT INTO forecasts_job (
        cluster_id, job_id, array_index, submit, identity_id, queue, qos, eligible, start, "end",
        cores, nodes, gpus, req_mem_mb, used_mem_mb, req_walltime_s, cpu_time_s, exit_status, state,
        node_list, name, wall_s, core_hours, ingest_run_id)
    SELECT %(cluster)s, s.job_id, s.array_index, to_timestamp(s.submit), i.id, s.queue, s.qos,
        to_timestamp(s.eligible), to_timestamp(s.start), to_timestamp(s."end"),
        s.cores, s.nodes, s.gpus, s.req_mem_mb, s.used_mem_mb, s.req_walltime_s, s.cpu_time_s, s.exit_status,
        s.state, s.node_list, s.name, s.wall_s, s.core_hours, %(run)s
    FROM ingest_staging s
    JOIN forecasts_identity i ON i."user" = s."user" AND i."group" = s."group" AND i.account = s.account
    ON CONFLICT DO NOTHING
    RETURNING identity_id, queue, qos, submit, start, "end", cores, nodes, gpus, cpu_time_s, wall_s, core_hours,
        req_walltime_s
), agg AS (
    SELECT date_trunc('month', COALESCE("end", start, submit) AT TIME ZONE 'UTC')::date AS month,
        identity_id, queue, qos, count(*) AS jobs, sum(core_hours) AS core_hours,
        COALESCE(sum(cpu_time_s), 0) / 3600.0 AS cpu_hours, sum(gpus * wall_s) / 3600.0 AS gpu_hours,
        sum(nodes * wall_s) / 3600.0 AS node_hours, sum(wall_s) / 3600.0 AS wall_hours,
        COALESCE(sum(GREATEST(EXTRACT(EPOCH FROM (start - submit)), 0)), 0) / 3600.0 AS wait_hours
    FROM ins GROUP BY 1, 2, 3, 4
), rolled AS (
    INSERT INTO forecasts_usagemonthly (
        cluster_id, month, identity_id, queue, qos, department_id, project_id,
        jobs, core_hours, cpu_hours, gpu_hours, node_hours, wall_hours, wait_hours)
    SELECT %(cluster)s, a.month, a.identity_id, a.queue, a.qos,
        COALESCE(attr.department_id, %(unassigned)s), attr.project_id,
        a.jobs, a.core_hours, a.cpu_hours, a.gpu_hours, a.node_hours, a.wall_hours, a.wait_hours
    FROM agg a JOIN forecasts_identity i ON i.id = a.identity_id
    """ + ATTRIBUTION_LATERAL.format(month="a.month") + """
    ON CONFLICT (cluster_id, month, identity_id, queue, qos) DO UPDATE SET
        jobs = forecasts_usagemonthly.jobs + EXCLUDED.jobs,
        core_hours = forecasts_usagemonthly.core_hours + EXCLUDED.core_hours,
        cpu_hours = forecasts_usagemonthly.cpu_hours + EXCLUDED.cpu_hours,
        gpu_hours = forecasts_usagemonthly.gpu_hours + EXCLUDED.gpu_hours,
        node_hours = forecasts_usagemonthly.node_hours + EXCLUDED.node_hours,
        wall_hours = forecasts_usagemonthly.wall_hours + EXCLUDED.wall_hours,
        wait_hours = forecasts_usagemonthly.wait_hours + EXCLUDED.wait_hours
    RETURNING 1
)""" + WORKLOAD_SHAPE_CTES.replace(WORKLOAD_ATTRIBUTION, ATTRIBUTION_LATERAL.format(month="s.month")) + """
SELECT count(*), COALESCE(sum(core_hours), 0), min(start), max("end"), (SELECT count(*) FROM rolled)
FROM ins
"""

_COUNTERS_SQL = """
UPDATE forecasts_ingestrun SET
    records_read = records_read + %(read)s, jobs_ingested = jobs_ingested + %(stored)s,
    duplicates = duplicates + %(dups)s, skipped = skipped + %(skipped)s, rejected = rejected + %(rejected)s,
    core_hours = core_hours + %(core_hours)s,
    first_start = LEAST(first_start, %(first_start)s), last_end = GREATEST(last_end, %(last_end)s),
    skipped_reasons = %(reasons)s, checkpoint = %(checkpoint)s
WHERE id = %(run)s
"""


def unassigned_department() -> Department:
    dept, _ = Department.objects.get_or_create(code="unassigned", defaults={"name": Department.UNASSIGNED})
    return dept


def _load_batch(run: IngestRun, batch: Batch, unassigned_id: int, reasons: dict[str, int],
                checkpoint: dict[str, int]) -> None:
    for reason, n in batch.skipped_reasons.items():
        reasons[reason] = reasons.get(reason, 0) + n
    new_checkpoint = {**checkpoint, str(batch.position): batch.end_record}
    stored, core_hours, first_start, last_end = 0, 0.0, None, None
    with transaction.atomic(), connection.cursor() as cursor:
        # The batch and its checkpoint commit together, so a commit lost in a crash is simply
        # redone on resume: waiting for the WAL flush buys nothing here.
        cursor.execute("SET LOCAL synchronous_commit TO OFF")
        if batch.lines:
            cursor.execute(_STAGING_DDL)
            with cursor.copy(f"COPY ingest_staging ({', '.join(_q(c) for c in STAGING_COLUMNS)}) FROM STDIN") as cp:
                cp.write("".join(batch.lines))
            cursor.execute(
                'INSERT INTO forecasts_identity ("user", "group", account) '
                'SELECT DISTINCT "user", "group", account FROM ingest_staging ON CONFLICT DO NOTHING'
            )
            cursor.execute(_LOAD_SQL, {"cluster": run.cluster_id, "run": run.pk, "unassigned": unassigned_id})
            stored, core_hours, first_start, last_end, _ = cursor.fetchone()
        if batch.rejections:
            with cursor.copy(
                "COPY forecasts_ingestrejection (run_id, file_id, line, reason, raw) FROM STDIN"
            ) as cp:
                cp.write("".join(batch.rejections))
        cursor.execute(_COUNTERS_SQL, {
            "run": run.pk, "read": batch.read, "stored": stored, "dups": len(batch.lines) - stored,
            "skipped": batch.skipped, "rejected": batch.rejected, "core_hours": core_hours,
            "first_start": first_start, "last_end": last_end,
            "reasons": json.dumps(reasons), "checkpoint": json.dumps(new_checkpoint),
        })
    checkpoint.update(new_checkpoint)


def _q(column: str) -> str:
    return f'"{column}"' if column in ("user", "group", "end") else column


def ingest_run_execute(run_id: int, progress: Progress | None = None) -> IngestRun:
    """Carry out (or resume) a run.  Raises IngestError when it cannot run at all."""
    run = IngestRun.objects.select_related("cluster").get(pk=run_id)
    if run.status == IngestRun.Status.COMPLETED:
        return run
    files = list(run.files.order_by("position"))
    for f in files:
        if not Path(f.path).is_file():
            _fail(run, f"{f.name}: the file is no longer at {f.path}")
            raise IngestError(run.error)
    total_bytes = sum(f.size_bytes for f in files)
    IngestRun.objects.filter(pk=run.pk).update(status=IngestRun.Status.RUNNING, started_at=timezone.now(),
                                               error="")
    started = time.monotonic()
    seconds_before = run.seconds
    unassigned_id = unassigned_department().pk
    reasons = dict(run.skipped_reasons)
    checkpoint = {k: int(v) for k, v in run.checkpoint.items()}
    counters = {"bytes": 0, "bytes_done": 0}
    read_total = run.records_read

    # Producer thread parses ahead; a bounded queue keeps memory flat whatever the file size.
    batches: queue.Queue[Batch | BaseException | None] = queue.Queue(maxsize=2)

    def produce() -> None:
        try:
            for batch in _batches(run, files, counters):
                batches.put(batch)
            batches.put(None)
        except BaseException as exc:  # surfaced in the consumer
            batches.put(exc)

    producer = threading.Thread(target=produce, name=f"ingest-parse-{run.pk}", daemon=True)
    producer.start()
    try:
        while True:
            item = batches.get()
            if item is None:
                break
            if isinstance(item, BaseException):
                raise item
            _load_batch(run, item, unassigned_id, reasons, checkpoint)
            read_total += item.read
            if progress is not None:
                fraction = counters["bytes"] / total_bytes if total_bytes else None
                estimate = int(read_total / fraction) if fraction else None
                progress(read_total, estimate)
    except Exception as exc:
        _fail(run, f"{type(exc).__name__}: {exc}", seconds_before + time.monotonic() - started)
        raise
    IngestRun.objects.filter(pk=run.pk).update(
        status=IngestRun.Status.COMPLETED, finished_at=timezone.now(),
        seconds=seconds_before + time.monotonic() - started,
    )
    run.refresh_from_db()
    return run


def _fail(run: IngestRun, message: str, seconds: float | None = None) -> None:
    fields: dict[str, Any] = {"status": IngestRun.Status.FAILED, "error": message, "finished_at": timezone.now()}
    if seconds is not None:
        fields["seconds"] = seconds
    IngestRun.objects.filter(pk=run.pk).update(**fields)
    run.error = message

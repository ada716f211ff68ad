"""Accounting ingestion: files -> parser -> COPY -> jobs + rollups, in batches, idempotently.

Each batch is one transaction: the jobs, their identities, the monthly rollups, the
rejections and the run's counters and checkpoint commit together or not at all.  A
killed worker or a dropped connection therefore leaves no half-written batch, and
running the same run again resumes after the last committed batch (the checkpoint
counts records per file; those are re-parsed but not re-loaded).  Loading a file again
in a new run adds nothing: the jobs' natural key turns every repeat into a duplicate.

Parsing runs beside the database work, in its own process for big runs (a parser thread
would starve the loaders of the GIL; see forecasts/accounting/parsers/producer.py), so on two cores
parsing and PostgreSQL's inserting overlap.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from django.db import IntegrityError, OperationalError, connection, transaction
from django.utils import timezone

from forecasts.accounting.models import Cluster, Department, IngestFile, IngestRun
from forecasts.accounting.parsers.compression import TruncatedInput
from forecasts.accounting.parsers.copyrows import STAGING_COLUMNS
from forecasts.accounting.parsers.formats import get_parser
from forecasts.accounting.parsers.producer import Batch, FileSpec, sha256_of
from forecasts.accounting.parsers.producer import batches as producer_batches
from forecasts.accounting.parsers.records import nothing_loaded_reason
from forecasts.accounting.sources import IngestError, ProcessSource, ThreadSource

# Records per committed batch: a resumed run restarts at the last whole batch, so this is also the most
# work a killed worker can lose (INGEST_BATCH_RECORDS; the recovery tests use small batches to stay quick).
BATCH_RECORDS = max(1, int(os.environ.get("INGEST_BATCH_RECORDS", "50000")))
# Batches load on this many connections at once: PostgreSQL's insert work is the bottleneck and
# two backends use both cores of a small machine while the parser thread stays ahead.
LOADERS = max(1, min(2, int(os.environ.get("INGEST_LOADERS", "2"))))
# Runs of at least this many bytes parse in a separate process (INGEST_PARSE_PROCESS=0: never).
PARSE_IN_PROCESS = os.environ.get("INGEST_PARSE_PROCESS", "1") != "0"
PARSE_PROCESS_MIN_BYTES = 8 << 20
Progress = Callable[[int, int | None], None]  # (records read, total estimate or None)


# --- Setting a run up ------------------------------------------------------------------

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


# --- Parsing (forecasts/accounting/parsers/producer.py, in a parser process) ------------------------

def committed_ranges(checkpoint: dict[str, Any], position: int) -> list[tuple[int, int]]:
    """Record ranges (start, end] of a file already committed, merged and sorted.

    Batches may commit out of order (two loaders), so the checkpoint is a list of ranges
    per file; an older run's plain count n means [(0, n)].
    """
    raw = checkpoint.get(str(position), [])
    spans = [(0, int(raw))] if isinstance(raw, int) else [(int(a), int(b)) for a, b in raw]
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def _producer_args(run: IngestRun, files: list[IngestFile]) -> tuple[Any, ...]:
    specs = [FileSpec(f.pk, f.position, f.path, tuple(committed_ranges(run.checkpoint, f.position)))
             for f in files]
    return (run.format, run.cluster.name, run.timezone, run.pk, specs, BATCH_RECORDS)


def _batches(run: IngestRun, files: list[IngestFile]) -> Iterator[Batch]:
    """The run's batches parsed in this process (tests, and where no process can be started)."""
    return producer_batches(*_producer_args(run, files))


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

# Attribution of an identity in a month (one department per identity and month, the rollups' grain): of the
# mappings valid on any day of the month, account, then user, then group; then the one in force on the most of
# the month's days (a move on the 15th gives the month to the new department, one on the 20th to the old);
# then the most recent.  A mapping starting inside a month is never ignored for that month.
ATTRIBUTION_LATERAL = """
LEFT JOIN LATERAL (
    SELECT m.department_id, m.project_id
    FROM forecasts_identitymapping m
    WHERE ((m.kind = 'account' AND m.name = i.account AND i.account <> '')
           OR (m.kind = 'user' AND m.name = i."user")
           OR (m.kind = 'group' AND m.name = i."group" AND i."group" <> ''))
      AND m.valid_from < ({month} + interval '1 month') AND (m.valid_to IS NULL OR m.valid_to >= {month})
    ORDER BY CASE m.kind WHEN 'account' THEN 0 WHEN 'user' THEN 1 ELSE 2 END,
        LEAST(COALESCE(m.valid_to, 'infinity'::date), ({month} + interval '1 month' - interval '1 day')::date)
            - GREATEST(m.valid_from, {month}::date) DESC,
        m.valid_from DESC
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
    ON CONFLICT DO NOTHING /*jobs*/
    RETURNING identity_id, queue, qos, submit, start, "end", cores, nodes, gpus, cpu_time_s, wall_s, core_hours,
        req_walltime_s
), agg AS (
    SELECT date_trunc('month', COALESCE("end", start, submit) AT TIME ZONE 'UTC')::date AS month,
        identity_id, queue, qos, count(*) AS jobs, sum(core_hours) AS core_hours,
        COALESCE(sum(cpu_time_s), 0) / 3600.0 AS cpu_hours, sum(gpus * wall_s) / 3600.0 AS gpu_hours,
        sum(nodes * wall_s) / 3600.0 AS node_hours, sum(wall_s) / 3600.0 AS wall_hours,
        COALESCE(sum(GREATEST(date_part('epoch', start - submit), 0)), 0) / 3600.0 AS wait_hours  -- date_part: float8
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
    ORDER BY a.month, a.identity_id, a.queue, a.qos  -- one lock order for concurrent loaders
    ON CONFLICT (cluster_id, month, identity_id, queue, qos) DO UPDATE SET
        jobs = forecasts_usagemonthly.jobs + EXCLUDED.jobs,
        core_hours = forecasts_usagemonthly.core_hours + EXCLUDED.core_hours,
        cpu_hours = forecasts_usagemonthly.cpu_hours + EXCLUDED.cpu_hours,
        gpu_hours = forecasts_usagemonthly.gpu_hours + EXCLUDED.gpu_hours,
        node_hours = forecasts_usagemonthly.node_hours + EXCLUDED.node_hours,
        wall_hours = forecasts_usagemonthly.wall_hours + EXCLUDED.wall_hours,
        wait_hours = forecasts_usagemonthly.wait_hours + EXCLUDED.wait_hours
    RETURNING 1
)/*rollups*/
SELECT count(*), COALESCE(sum(core_hours), 0), min(start), max("end"), (SELECT count(*) FROM rolled)
FROM ins
"""

# Most batches hold no job already stored.  A plain INSERT skips ON CONFLICT's speculative
# insertion (an extra probe of the natural-key index and a confirmation per row; ~30% of the
# jobs insert); the unique index still refuses a repeat, and the batch is then redone, from a
# savepoint, with ON CONFLICT DO NOTHING.  After such a batch the run stays on the checked
# statement until a batch comes through without duplicates (re-ingesting a file, overlaps).
# Rollups a downstream sub-domain keeps in step with the jobs (the workload-shape rollup),
# spliced into the batch statement after its CTEs (they read ``ins``) so they commit with the
# jobs.  Registered at start-up (forecasts.apps), so accounting never imports them.
_BATCH_ROLLUPS: dict[str, str] = {}


def batch_rollup_register(name: str, ctes: str) -> None:
    """Add ``ctes`` (", name AS (...)" pieces reading ``ins``) to every batch statement."""
    _BATCH_ROLLUPS[name] = ctes


def _load_sql(*, optimistic: bool) -> str:
    sql = _LOAD_SQL.replace("/*rollups*/", "".join(_BATCH_ROLLUPS[k] for k in sorted(_BATCH_ROLLUPS)))
    return sql.replace("ON CONFLICT DO NOTHING /*jobs*/", "") if optimistic else sql

_COUNTERS_SQL = """
UPDATE forecasts_ingestrun SET
    records_read = records_read + %(read)s, jobs_ingested = jobs_ingested + %(stored)s,
    duplicates = duplicates + %(dups)s, skipped = skipped + %(skipped)s, rejected = rejected + %(rejected)s,
    names_cut = names_cut + %(names_cut)s, core_hours = core_hours + %(core_hours)s,
    first_start = LEAST(first_start, %(first_start)s), last_end = GREATEST(last_end, %(last_end)s),
    skipped_reasons = COALESCE((
        SELECT jsonb_object_agg(k, COALESCE((skipped_reasons ->> k)::bigint, 0)
                                   + COALESCE((%(reasons)s::jsonb ->> k)::bigint, 0))
        FROM (SELECT jsonb_object_keys(skipped_reasons) UNION SELECT jsonb_object_keys(%(reasons)s::jsonb)) keys(k)
    ), '{}'::jsonb),
    checkpoint = jsonb_set(checkpoint, ARRAY[%(position)s],
        (CASE jsonb_typeof(checkpoint -> %(position)s)
             WHEN 'array' THEN checkpoint -> %(position)s
             WHEN 'number' THEN jsonb_build_array(jsonb_build_array(0, checkpoint -> %(position)s))
             ELSE '[]'::jsonb END) || jsonb_build_array(jsonb_build_array(%(start)s, %(end)s)))
WHERE id = %(run)s
"""


def unassigned_department() -> Department:
    dept, _ = Department.objects.get_or_create(code=Department.UNASSIGNED_CODE,
                                               defaults={"name": Department.UNASSIGNED})
    return dept


# Settings for one batch's transaction:
# - synchronous_commit: the batch and its checkpoint commit together, so a commit lost in a crash
#   is simply redone on resume; waiting for the WAL flush buys nothing;
# - work_mem: the inserted jobs feed two rollups through a CTE; keep that tuplestore in memory;
# - enable_nestloop: the staging table has no statistics (ANALYZE would cost half the insert), so
#   the planner takes the batch for one row and joins the jobs to their attribution by nested
#   loop, 50,000 x 300 times; hash joins are right for every join of the batch.
# (The JIT, which compiled this statement for 1-2.5 s per batch, is off on every connection: planner.apps.)
_BATCH_SETTINGS = {"synchronous_commit": "off", "work_mem": "64MB", "enable_nestloop": "off"}


@contextlib.contextmanager
def _batch_settings(cursor: Any, *, restore: bool) -> Iterator[None]:
    """Apply _BATCH_SETTINGS for this transaction (``set_config(..., true)``, i.e. SET LOCAL).

    SET LOCAL lasts until the *outermost* transaction ends, so when the batch runs inside a
    caller's transaction (``restore``) the previous values are put back afterwards; otherwise
    they would govern every later query of that transaction.  (On an error the savepoint's
    rollback undoes them.)
    """
    names = list(_BATCH_SETTINGS)
    calls = ", ".join("set_config(%s, %s, true)" for _ in names)
    before: tuple[str, ...] = ()
    if restore:
        cursor.execute("SELECT " + ", ".join("current_setting(%s)" for _ in names), names)
        before = cursor.fetchone()
    cursor.execute("SELECT " + calls, [v for pair in _BATCH_SETTINGS.items() for v in pair])
    yield
    if restore:
        cursor.execute("SELECT " + calls, [v for pair in zip(names, before, strict=True) for v in pair])


def _load_batch(run_id: int, cluster_id: int, batch: Batch, unassigned_id: int,
                mode: dict[str, bool] | None = None) -> None:
    """Load one batch in one transaction.  ``mode["optimistic"]`` (shared by a run's loaders)
    says whether to try the plain INSERT first; it is updated from what this batch found."""
    mode = {"optimistic": False} if mode is None else mode
    stored, core_hours, first_start, last_end = 0, 0.0, None, None
    nested = connection.in_atomic_block  # inside a caller's transaction (tests): see _batch_settings
    with transaction.atomic(), connection.cursor() as cursor, _batch_settings(cursor, restore=nested):
        if batch.jobs:
            cursor.execute(_STAGING_DDL)
            if nested:  # no commit between batches empties it: the last batch's rows would be loaded again
                cursor.execute("TRUNCATE ingest_staging")
            with cursor.copy(f"COPY ingest_staging ({', '.join(_q(c) for c in STAGING_COLUMNS)}) FROM STDIN") as cp:
                cp.write(batch.rows)
            cursor.execute(
                'INSERT INTO forecasts_identity ("user", "group", account) '
                'SELECT DISTINCT "user", "group", account FROM ingest_staging ORDER BY 1, 2, 3 ON CONFLICT DO NOTHING'
            )
            params = {"cluster": cluster_id, "run": run_id, "unassigned": unassigned_id}
            row = None
            if mode["optimistic"]:
                try:
                    with transaction.atomic():  # a savepoint: a refused repeat undoes only this statement
                        cursor.execute(_load_sql(optimistic=True), params)
                        row = cursor.fetchone()
                except IntegrityError as exc:
                    if getattr(exc.__cause__, "sqlstate", None) != "23505":
                        raise
                    mode["optimistic"] = False
            if row is None:
                cursor.execute(_load_sql(optimistic=False), params)
                row = cursor.fetchone()
                mode["optimistic"] = row[0] == batch.jobs
            stored, core_hours, first_start, last_end, _ = row
        if batch.rejections:
            with cursor.copy(
                "COPY forecasts_ingestrejection (run_id, file_id, line, reason, raw) FROM STDIN"
            ) as cp:
                cp.write(batch.rejections)
        cursor.execute(_COUNTERS_SQL, {
            "run": run_id, "read": batch.read, "stored": stored, "dups": batch.jobs - stored,
            "skipped": batch.skipped, "rejected": batch.rejected, "names_cut": batch.names_cut,
            "core_hours": core_hours,
            "first_start": first_start, "last_end": last_end, "reasons": json.dumps(batch.skipped_reasons),
            "position": str(batch.position), "start": batch.start_record, "end": batch.end_record,
        })


def _load_with_retry(run_id: int, cluster_id: int, batch: Batch, unassigned_id: int,
                     mode: dict[str, bool] | None = None) -> None:
    """Two loaders upserting the same rollup rows can, rarely, deadlock: PostgreSQL aborts one
    transaction, which is then simply run again (nothing of it was committed)."""
    for attempt in range(4):
        try:
            _load_batch(run_id, cluster_id, batch, unassigned_id, mode)
            return
        except OperationalError as exc:
            if getattr(getattr(exc, "__cause__", None), "sqlstate", None) not in ("40P01", "40001") or attempt == 3:
                raise
            time.sleep(0.05 * (attempt + 1))


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
    read_total = [run.records_read]
    lock = threading.Lock()
    # The parser runs ahead of the loaders through a bounded queue: memory stays flat
    # whatever the file size.  Big runs parse in their own process (see producer.py).
    in_process = PARSE_IN_PROCESS and total_bytes >= PARSE_PROCESS_MIN_BYTES
    args = _producer_args(run, files)
    source = ProcessSource(args, run.pk, LOADERS) if in_process else ThreadSource(args, run.pk, LOADERS)

    def loaded(batch: Batch) -> None:
        with lock:
            read_total[0] += batch.read
            done = read_total[0]
        if progress is not None:
            fraction = batch.bytes_read / total_bytes if total_bytes else None
            progress(done, int(done / fraction) if fraction else None)

    errors: list[BaseException] = []
    mode = {"optimistic": True}  # shared by the loaders; see _load_sql(optimistic=True)

    def load_all() -> None:
        while not errors:
            item = source.next()
            if item is None:
                return
            if isinstance(item, BaseException):
                errors.append(item)
                return
            try:
                _load_with_retry(run.pk, run.cluster_id, item, unassigned_id, mode)
            except BaseException as exc:
                errors.append(exc)
                return
            loaded(item)

    def loader_thread() -> None:
        try:
            load_all()
        finally:
            connection.close()  # this thread's own connection

    try:
        source.start()
        if connection.in_atomic_block or LOADERS < 2:
            # Inside a caller's transaction (tests) other connections could not see the run:
            # load in this thread, on this connection.
            load_all()
        else:
            loaders = [threading.Thread(target=loader_thread, name=f"ingest-load-{run.pk}-{i}")
                       for i in range(LOADERS)]
            for thread in loaders:
                thread.start()
            for thread in loaders:
                thread.join()
        if errors:
            raise errors[0]
    except BaseException as exc:
        source.stop()
        if isinstance(exc, Exception):  # a truncated file is said in words (and is not resumable)
            _fail(run, str(exc) if isinstance(exc, TruncatedInput) else f"{type(exc).__name__}: {exc}",
                  seconds_before + time.monotonic() - started)
        if isinstance(exc, TruncatedInput):
            raise IngestError(str(exc)) from exc
        raise
    source.stop()
    run.refresh_from_db()
    # a run that stored nothing (every record rejected or skipped) must not read "completed"
    stored = run.jobs_ingested + run.duplicates > 0
    IngestRun.objects.filter(pk=run.pk).update(
        status=IngestRun.Status.COMPLETED if stored else IngestRun.Status.NOTHING_LOADED,
        finished_at=timezone.now(), seconds=seconds_before + time.monotonic() - started,
        error="" if stored else nothing_loaded_reason(run.format, run.records_read, run.rejected, run.skipped,
                                                      run.skipped_reasons),
    )
    run.refresh_from_db()
    return run


def _fail(run: IngestRun, message: str, seconds: float | None = None) -> None:
    fields: dict[str, Any] = {"status": IngestRun.Status.FAILED, "error": message, "finished_at": timezone.now()}
    if seconds is not None:
        fields["seconds"] = seconds
    IngestRun.objects.filter(pk=run.pk).update(**fields)
    run.error = message

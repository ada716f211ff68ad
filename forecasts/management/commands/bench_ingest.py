"""python manage.py bench_ingest --jobs N: the ingest path's speed and memory, measured in one run.

Generates N realistic Slurm records deterministically (forecasts/accounting/parsers/synth.py) into a
temporary file, then measures:
  1. the full ingest path (parse + map + COPY + rollup) as `ingest_accounting` runs it;
  2. a bare COPY of the same rows into an identical table (the ceiling): a table created
     LIKE forecasts_job INCLUDING ALL, so with the same indexes and unique key, and the rows
     already in its layout; and, for reference, into an unindexed table of the staging layout;
  3. re-ingesting the same file (every record a duplicate);
  4. the usage query: monthly core-hours by department over all history;
and the ingest's peak resident memory: this process's own peak plus the parser process's (see
``_ChildPeaks``).  Run it on a scratch data directory
(`make bench` does) so the jobs do not land in your real database.
"""

from __future__ import annotations

import json
import os
import resource
import sys
import tempfile
import threading
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand
from django.db import connection

from forecasts.accounting.load import _STAGING_DDL, ingest_run_create, ingest_run_execute
from forecasts.accounting.models import Cluster, IngestRun, UsageMonthly
from forecasts.accounting.parsers.copyrows import STAGING_COLUMNS, copy_line
from forecasts.accounting.parsers.records import JobRecord
from forecasts.accounting.parsers.slurm import parse as parse_slurm
from forecasts.accounting.parsers.synth import slurm_lines
from forecasts.usage.selectors import usage_monthly_by_department

JOB_COLUMNS: tuple[str, ...] = (
    "cluster_id", "job_id", "array_index", "submit", "identity_id", "queue", "qos", "eligible", "start", "end",
    "cores", "nodes", "gpus", "req_mem_mb", "used_mem_mb", "req_walltime_s", "cpu_time_s", "exit_status",
    "state", "node_list", "name", "wall_s", "core_hours",
)


def _job_line(job: JobRecord, cluster_id: int, identity_id: int) -> str:
    """The row forecasts_job stores for this job, in COPY text format (times as ISO 8601)."""
    staging = copy_line(job).rstrip("\n").split("\t")
    values = dict(zip(STAGING_COLUMNS, staging, strict=True))
    for column, when in (("submit", job.submit), ("eligible", job.eligible), ("start", job.start),
                         ("end", job.end)):
        values[column] = "\\N" if when is None else when.isoformat()
    values["cluster_id"], values["identity_id"] = str(cluster_id), str(identity_id)
    return "\t".join(values[c] for c in JOB_COLUMNS) + "\n"


class _ChildPeaks:
    """The peak resident memory of the children this process starts inside the ``with`` block (the parser
    process), read while they run.

    ``RUSAGE_CHILDREN`` cannot be used: Linux carries the parent's high-water mark into a child at its
    exec (the memory a forked or vforked child shares with its parent until then), so a parser started
    by a 370 MB process reports at least that much, whatever it uses itself. A child's ``VmHWM`` in
    /proc belongs to the program it exec'd and starts from zero; it only grows, so reading it every
    ``every`` seconds misses at most the last interval's growth of a child that exits. Between its fork
    and its exec a child is still a copy of this process (its VmHWM is ours): it is read only once its
    command line is no longer this process's."""

    def __init__(self, every: float = 0.05) -> None:
        self.every = every
        self.peaks: dict[int, int] = {}  # pid -> VmHWM, kB
        self._before: set[int] = set()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="bench-child-peaks", daemon=True)

    def __enter__(self) -> _ChildPeaks:
        self._before = set(_children(os.getpid()))  # only children started inside the block are counted
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        while True:
            self.sample()
            if self._stop.wait(self.every):
                return

    def sample(self) -> None:
        own = _cmdline(os.getpid())
        for pid in _children(os.getpid()):
            # started before the block, or not exec'd yet (its memory still ours), or gone
            if pid in self._before or _cmdline(pid) in (own, None):
                continue
            kb = _vm_hwm_kb(pid)
            if kb is not None:
                self.peaks[pid] = max(kb, self.peaks.get(pid, 0))

    @property
    def largest_mb(self) -> float:
        return max(self.peaks.values(), default=0) / 1024.0


def _children(pid: int) -> list[int]:
    """Every descendant of ``pid`` (Linux /proc; none elsewhere)."""
    found: list[int] = []
    todo = [pid]
    while todo:
        parent = todo.pop()
        try:
            tasks = os.listdir(f"/proc/{parent}/task")
        except OSError:
            continue
        for tid in tasks:
            try:
                with open(f"/proc/{parent}/task/{tid}/children") as fh:
                    kids = [int(k) for k in fh.read().split()]
            except OSError:
                continue
            found += kids
            todo += kids
    return found


def _cmdline(pid: int) -> bytes | None:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            return fh.read()
    except OSError:
        return None


def _vm_hwm_kb(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return None


def _own_peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


class Command(BaseCommand):
    help = "Benchmark accounting ingestion end to end against a bare COPY; prints JSON last."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--jobs", type=int, default=1_000_000)
        parser.add_argument("--cluster", default="bench")
        parser.add_argument("--keep", action="store_true", help="keep the benchmark's jobs afterwards")
        parser.add_argument("--file", type=Path, default=None, help="reuse a generated file")

    def handle(self, *args: Any, **options: Any) -> None:
        n = options["jobs"]
        say = lambda msg: print(msg, file=sys.stderr, flush=True)  # noqa: E731
        Cluster.objects.filter(name=options["cluster"]).exists() and self._drop(options["cluster"], say)
        path = options["file"]
        if path is None or not path.exists():
            path = Path(tempfile.gettempdir()) / f"bench_slurm_{n}.txt"
            if not path.exists():
                say(f"generating {n:,} Slurm records into {path} ...")
                with path.open("w") as out:
                    out.writelines(slurm_lines(n, start=datetime(2013, 1, 1, tzinfo=UTC),
                                               end=datetime(2016, 1, 1, tzinfo=UTC), growth_per_year=0.4))
        size_mb = path.stat().st_size / 1e6

        say("1/4 full ingest ...")
        t = time.monotonic()
        with _ChildPeaks() as children:
            run = ingest_run_execute(ingest_run_create(cluster_name=options["cluster"], fmt="slurm",
                                                       paths=[path]).pk)
        full_s = time.monotonic() - t
        assert run.records_read == run.jobs_ingested + run.duplicates + run.skipped + run.rejected
        own_peak_mb = _own_peak_mb()  # before the bare-COPY step below touches memory

        say("2/4 bare COPY of the same rows into an identical table (and an unindexed one) ...")
        copy_s, unindexed_s = self._bare_copy(path, options["cluster"], say)

        say("3/4 re-ingest (all duplicates) ...")
        t = time.monotonic()
        again = ingest_run_execute(ingest_run_create(cluster_name=options["cluster"], fmt="slurm",
                                                     paths=[path]).pk)
        reingest_s = time.monotonic() - t

        say("4/4 usage query ...")
        timings = []
        for _ in range(5):
            t = time.monotonic()
            rows = usage_monthly_by_department()
            timings.append(time.monotonic() - t)
        result = {
            "jobs": n,
            "file_mb": round(size_mb, 1),
            "records_read": run.records_read,
            "jobs_ingested": run.jobs_ingested,
            "full_ingest_s": round(full_s, 2),
            "full_ingest_jobs_per_s": round(run.records_read / full_s),
            "bare_copy_s": round(copy_s, 2),
            "bare_copy_jobs_per_s": round(run.jobs_ingested / copy_s),
            "full_vs_bare_copy": round(copy_s / full_s, 3),
            "unindexed_copy_s": round(unindexed_s, 2),
            "unindexed_copy_jobs_per_s": round(run.jobs_ingested / unindexed_s),
            "full_vs_unindexed_copy": round(unindexed_s / full_s, 3),
            "reingest_s": round(reingest_s, 2),
            "reingest_duplicates": again.duplicates,
            "usage_query_ms": round(1000 * min(timings), 1),
            "usage_query_rows": len(rows),
            "rollup_rows": UsageMonthly.objects.count(),
            # the two processes' peaks added as if they peaked together (an upper bound)
            "ingest_peak_rss_mb": round(own_peak_mb + children.largest_mb, 1),
            "ingest_own_peak_rss_mb": round(own_peak_mb, 1),
            "parser_peak_rss_mb": round(children.largest_mb, 1),
            "cpus": os.cpu_count(),
        }
        if not options["keep"]:
            self._drop(options["cluster"], say)
        self.stdout.write(json.dumps(result))

    def _bare_copy(self, path: Path, cluster: str, say: Any) -> tuple[float, float]:
        """Seconds to COPY the same jobs, pre-formatted (untimed), into two tables:

        1. an identical table: ``LIKE forecasts_job INCLUDING ALL`` (same columns, types,
           defaults, indexes and unique key), rows already in its layout with resolved
           identities: the ceiling for getting these jobs into that table;
        2. the loader's staging layout with no index at all (a lower bound on the COPY alone).

        The rows go through temporary files so memory stays flat for any N.
        """
        cluster_id = Cluster.objects.get(name=cluster).pk
        with connection.cursor() as cursor:
            cursor.execute('SELECT "user", "group", account, id FROM forecasts_identity')
            identities = {(u, g, a): i for u, g, a, i in cursor.fetchall()}
        staging_path, job_path = path.with_suffix(".staging"), path.with_suffix(".jobrows")
        with path.open("rb") as handle, staging_path.open("w") as staging, job_path.open("w") as jobs:
            for item in parse_slurm(handle, cluster=cluster):
                if type(item) is JobRecord:
                    staging.write(copy_line(item))
                    jobs.write(_job_line(item, cluster_id, identities[(item.user, item.group, item.account)]))
        timings = []
        with connection.cursor() as cursor:
            cursor.execute("DROP TABLE IF EXISTS bench_copy")
            cursor.execute("CREATE TABLE bench_copy (LIKE forecasts_job INCLUDING ALL)")
            timings.append(self._copy(cursor, job_path, "bench_copy", JOB_COLUMNS))
            cursor.execute("DROP TABLE bench_copy")
            ddl = _STAGING_DDL.replace("CREATE TEMP TABLE IF NOT EXISTS ingest_staging", "CREATE TABLE bench_copy")
            cursor.execute(ddl.replace("ON COMMIT DELETE ROWS", ""))
            timings.append(self._copy(cursor, staging_path, "bench_copy", STAGING_COLUMNS))
            cursor.execute("DROP TABLE bench_copy")
        staging_path.unlink()
        job_path.unlink()
        return timings[0], timings[1]

    @staticmethod
    def _copy(cursor: Any, rows_path: Path, table: str, columns: tuple[str, ...]) -> float:
        cols = ", ".join(f'"{c}"' for c in columns)
        t = time.monotonic()
        with rows_path.open("rb") as rows, cursor.copy(f"COPY {table} ({cols}) FROM STDIN") as cp:
            for chunk in iter(lambda: rows.read(1 << 22), b""):
                cp.write(chunk)
        return time.monotonic() - t

    def _drop(self, cluster: str, say: Any) -> None:
        say(f"removing benchmark cluster {cluster!r} ...")
        target = Cluster.objects.get(name=cluster)
        with connection.cursor() as cursor:
            cursor.execute("DELETE FROM forecasts_usagemonthly WHERE cluster_id = %s", [target.pk])
            cursor.execute("DELETE FROM forecasts_job WHERE cluster_id = %s", [target.pk])
        IngestRun.objects.filter(cluster=target).delete()
        target.delete()

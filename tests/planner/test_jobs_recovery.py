"""Work survives its worker: a real Celery worker is killed with SIGKILL mid-ingest, mid-scan and
mid-report, on Redis and on the embedded filesystem broker, and the job still finishes with exact
counts and no duplicate rows, without a person.

Two ways a worker dies: its pool child alone is killed (the OOM killer's usual choice; Celery
requeues the message because ``task_reject_on_worker_lost`` is on), or the whole worker is
killed (nothing is left to requeue it: the reaper run by beat in the next worker finds the
silent heartbeat and requeues the job from its checkpoint).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import pytest
from django.db.models import Sum

from tests.helpers import database_url_of_test_db, wait_for_job

ROOT = Path(__file__).resolve().parents[2]
REDIS_URL = os.environ.get("CELERY_BROKER_URL", "") if os.environ.get("CELERY_BROKER_URL", "").startswith(
    "redis://") else "redis://127.0.0.1:6379/6"
FAST_BEATS = {"JOBS_HEARTBEAT_S": "1", "JOBS_STALE_S": "3", "JOBS_REAP_EVERY_S": "1", "CELERY_WORKER_LOST_WAIT": "1"}
# The workers commit an import in batches of this many records (50,000 in production): a kill still lands
# between whole batches, on a fifth of the rows
BATCH = 10_000

pytestmark = [pytest.mark.worker, pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def _redis_answers() -> bool:
    try:
        import redis

        return bool(redis.Redis.from_url(REDIS_URL, socket_connect_timeout=1).ping())
    except Exception:  # noqa: BLE001
        return False


class Workers:
    """Starts real worker processes (prefork, one child, beat embedded) on this test's broker and queue."""

    def __init__(self, broker_url: str, data_dir: Path, queue: str) -> None:
        self.broker_url, self.data_dir, self.queue = broker_url, data_dir, queue
        self.procs: list[subprocess.Popen[bytes]] = []

    def start(self, **extra_env: str) -> subprocess.Popen[bytes]:
        env = {**os.environ, **FAST_BEATS, "INGEST_BATCH_RECORDS": str(BATCH), **extra_env,
               "DATABASE_URL": database_url_of_test_db(),
               "PLANNER_DATA_DIR": str(self.data_dir), "CELERY_BROKER_URL": self.broker_url,
               "CELERY_QUEUE": self.queue}
        if self.broker_url.startswith("filesystem"):
            env.pop("CELERY_BROKER_URL")  # the embedded broker, under PLANNER_DATA_DIR
        n = len(self.procs)
        proc = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "planner", "worker", "-Q", self.queue, "--pool", "prefork",
             "--concurrency", "1", "--beat", "--schedule", str(self.data_dir / f"beat-{n}"), "-n", f"w{n}@%h",
             "--without-mingle", "--without-gossip", "--loglevel", "info"],
            cwd=ROOT, env=env, start_new_session=True, stdout=subprocess.DEVNULL,
            stderr=open(self.data_dir / f"worker-{n}.log", "wb"))  # noqa: SIM115
        self.procs.append(proc)
        return proc

    def kill_all(self, proc: subprocess.Popen[bytes]) -> None:
        """SIGKILL the whole worker: main process, pool child and beat (its process group)."""
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)

    def stop(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                self.kill_all(proc)  # nothing of theirs is left to finish: the test has its answer


def kill_pool_child(job_id: int) -> None:
    """SIGKILL the pool process running the job (its host:pid is on the job), not the worker."""
    from planner.jobs.models import BackgroundJob

    owner = BackgroundJob.objects.get(pk=job_id).worker
    os.kill(int(owner.rpartition(":")[2]), signal.SIGKILL)


@pytest.fixture(params=["redis", "filesystem"])
def workers(request: Any, tmp_path: Path, celery_test_queue: str) -> Iterator[Workers]:
    """Workers on Redis or on the embedded filesystem broker; this process publishes to the same one."""
    from planner.celery import app
    from planner.embedded import filesystem_broker_options

    if request.param == "redis":
        if not _redis_answers():
            pytest.skip(f"no Redis answers at {REDIS_URL}")
        url, options = REDIS_URL, {}
    else:
        url, options = "filesystem://", filesystem_broker_options(tmp_path)
    saved = (app.conf.broker_write_url, app.conf.broker_transport_options)

    def use(broker: str, transport_options: Any) -> None:
        app.conf.broker_write_url, app.conf.broker_transport_options = broker, transport_options
        app._pool = None  # the producer pool follows the new broker
        app.amqp._producer_pool = None

    use(url, options)
    # A test starts on an empty queue: the periodic messages an earlier test's beat sent just before
    # its worker was killed are still waiting there (more of them on a loaded machine), and the
    # lost-message tests count what they purge.
    purge(celery_test_queue)
    pool = Workers(url, tmp_path, celery_test_queue)
    yield pool
    pool.stop()
    use(*saved)


def wait_until(check: Callable[[], bool], timeout_s: float, what: str) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.02)
    raise AssertionError(f"timed out after {timeout_s} s waiting for {what}")


def test_an_ingest_whose_whole_worker_is_killed_is_resumed_by_the_reaper_to_exact_counts(
        workers: Workers, tmp_path: Path) -> None:
    from forecasts.accounting.load import ingest_run_create
    from forecasts.accounting.parsers.synth import slurm_lines
    from forecasts.accounting.upload import ingest_run_enqueue
    from forecasts.models import IngestRun, Job, UsageMonthly
    from planner.jobs.models import BackgroundJob

    n = 24_000  # three batches of BATCH (the last one short)
    path = tmp_path / "big.txt"
    path.write_text("".join(slurm_lines(n, start=datetime(2023, 1, 1, tzinfo=UTC),
                                        end=datetime(2024, 1, 1, tzinfo=UTC))))
    run = ingest_run_create(cluster_name="killed", fmt="slurm", paths=[path])
    first = workers.start()
    job = ingest_run_enqueue(run=run)
    assert BackgroundJob.objects.get(pk=job.pk).task["name"] == "forecasts.tasks.ingest_accounting"

    wait_until(lambda: IngestRun.objects.get(pk=run.pk).records_read > 0, 120, "the first committed batch")
    workers.kill_all(first)
    run.refresh_from_db()
    assert 0 < run.records_read < n, "the kill should land mid-ingest"

    workers.start()  # a new worker; its beat runs the reaper
    done = wait_for_job(job.pk, timeout_s=120)
    assert done.status == "succeeded", done.message
    assert done.attempts == 2
    run.refresh_from_db()
    assert (run.status, run.records_read, run.jobs_ingested, run.duplicates) == ("completed", n, n, 0)
    assert Job.objects.filter(cluster__name="killed").count() == n
    assert UsageMonthly.objects.filter(cluster__name="killed").aggregate(j=Sum("jobs"))["j"] == n


def test_a_scan_whose_pool_child_is_killed_is_redelivered_and_stored_once(workers: Workers, tmp_path: Path) -> None:
    from forecasts.storage.models import StorageSnapshot
    from forecasts.storage.services import storage_scan_start
    from forecasts.storage.synth import scan_lines
    from planner.jobs.models import BackgroundJob

    path = tmp_path / "scan.tsv"
    with path.open("w") as out:
        out.writelines(scan_lines(150_000, owners=[("alice", "ggs"), ("bob", "scb")]))
    workers.start()
    snapshot = storage_scan_start(filesystem="scratch", fmt="tsv", path=path, taken_on=date(2024, 3, 1))
    job_id = snapshot.background_job_id

    wait_until(lambda: BackgroundJob.objects.get(pk=job_id).done > 0, 120, "the scan to be read")
    kill_pool_child(job_id)
    assert BackgroundJob.objects.get(pk=job_id).status == "running"

    done = wait_for_job(job_id, timeout_s=120)
    assert done.status == "succeeded", done.message
    assert done.attempts == 2
    snap = StorageSnapshot.objects.get()
    assert (snap.status, snap.files) == ("completed", 150_000)
    rows = list(snap.usage.values_list("kind", "name"))
    assert len(rows) == len(set(rows)) == 4  # alice, bob, ggs, scb: once each
    assert sum(r.files for r in snap.usage.filter(kind="owner")) == 150_000


def test_a_report_whose_whole_worker_is_killed_is_rendered_once_by_the_next_worker(
        workers: Workers, tmp_path: Path, departments: dict[str, Any]) -> None:
    from planner.jobs.models import BackgroundJob
    from planner.reports.models import GrantReport
    from planner.reports.services import report_create
    from tests.planner.reports_data import report_inputs

    data = report_inputs(tmp_path, departments, with_forecast=False)
    first = workers.start()
    report = report_create(design=data["narrow"], cluster=data["cluster"], start=date(2021, 1, 1),
                           end=date(2023, 12, 31))
    job_id = report.job_id
    wait_until(lambda: BackgroundJob.objects.get(pk=job_id).done >= 2, 120, "rendering to start")
    workers.kill_all(first)
    assert BackgroundJob.objects.get(pk=job_id).status == "running"

    workers.start()
    done = wait_for_job(job_id, timeout_s=180)
    assert done.status == "succeeded", done.message
    assert done.attempts == 2 and done.done == done.total == 6
    assert GrantReport.objects.count() == 1
    report.refresh_from_db()
    # the workers write under their own PLANNER_DATA_DIR (this test's tmp_path), not this process's
    pdf = workers.data_dir / "reports" / str(report.pk) / report.files["pdf"]
    assert report.status == "ready" and pdf.stat().st_size > 0


def purge(queue: str) -> int:
    """Lose every message waiting in the queue (as a broker restarted without persistence would)."""
    from planner.celery import app

    with app.connection_for_write() as conn:
        return int(conn.default_channel.queue_purge(queue) or 0)


def test_an_ingest_whose_queued_message_is_lost_is_sent_again_by_the_reaper_to_exact_counts(
        workers: Workers, tmp_path: Path) -> None:
    from forecasts.accounting.load import ingest_run_create
    from forecasts.accounting.parsers.synth import slurm_lines
    from forecasts.accounting.upload import ingest_run_enqueue
    from forecasts.models import Job, UsageMonthly
    from planner.jobs.broker import task_ids_in_broker
    from planner.jobs.models import BackgroundJob

    n = 12_000  # two batches
    path = tmp_path / "lost.txt"
    path.write_text("".join(slurm_lines(n, start=datetime(2023, 1, 1, tzinfo=UTC),
                                        end=datetime(2024, 1, 1, tzinfo=UTC))))
    run = ingest_run_create(cluster_name="lost", fmt="slurm", paths=[path])
    job = ingest_run_enqueue(run=run)  # no worker yet: the message waits in the broker
    task = BackgroundJob.objects.get(pk=job.pk).task
    assert task["id"] in (task_ids_in_broker([workers.queue]) or set())
    assert purge(workers.queue) == 1
    assert task["id"] not in (task_ids_in_broker([workers.queue]) or set())

    workers.start(JOBS_QUEUED_STALE_S="2")  # its beat runs the reaper every second
    done = wait_for_job(job.pk, timeout_s=120)
    assert done.status == "succeeded", done.message
    assert done.attempts == 1 and done.task["id"] != task["id"]  # the message the reaper sent
    run.refresh_from_db()
    assert (run.status, run.records_read, run.jobs_ingested, run.duplicates) == ("completed", n, n, 0)
    assert Job.objects.filter(cluster__name="lost").count() == n
    assert UsageMonthly.objects.filter(cluster__name="lost").aggregate(j=Sum("jobs"))["j"] == n


def test_a_queued_job_is_sent_again_only_when_the_broker_lost_its_message(
        workers: Workers, settings: Any) -> None:
    """No worker: the reaper leaves a message that waits its turn, resends a lost one exactly once
    (the new message is then held), and fails the job with a message after JOBS_MAX_ATTEMPTS sends."""
    from planner.jobs.models import BackgroundJob
    from planner.jobs.reaper import jobs_reap
    from planner.jobs.services import job_start

    settings.JOBS_QUEUED_STALE_S = 0
    job = job_start(kind="selftest", label="lost", task="planner.tasks.selftest")
    assert jobs_reap()["resent"] == []  # still in the broker: only waiting
    for sent in range(1, settings.JOBS_MAX_ATTEMPTS + 1):
        assert purge(workers.queue) == 1
        assert jobs_reap()["resent"] == [job.pk]
        assert jobs_reap()["resent"] == []  # the new message is held: no duplicate
        job.refresh_from_db()
        assert job.status == "queued" and job.task["resent"] == sent
        assert "its message was lost before a worker took it: sent again" in job.message
    purge(workers.queue)
    assert jobs_reap()["failed"] == [job.pk]
    job.refresh_from_db()
    assert job.status == "failed" and "no worker took it (is a worker consuming the queue" in job.message
    assert BackgroundJob.objects.filter(status="queued").count() == 0

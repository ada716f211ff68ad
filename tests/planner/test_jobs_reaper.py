"""Lost workers without a worker: the reaper requeues a silent job or fails it with a message, a
redelivered message of finished work or of work a live process runs is dropped, and a dead job
never shows an ETA (planner/jobs/runtime.py, reaper.py, services.py)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from planner.jobs.models import BackgroundJob
from planner.jobs.reaper import job_retry, jobs_reap
from planner.jobs.runtime import _claim, worker_id
from planner.jobs.services import job_status

pytestmark = pytest.mark.django_db
TASK = {"name": "forecasts.tasks.ingest_accounting", "args": [0, 7], "queue": "celery"}


def _job(*, beat_s_ago: float | None, attempts: int = 1, task: dict[str, Any] | None = None,
         status: str = "running", worker: str = "elsewhere:1") -> BackgroundJob:
    now = timezone.now()
    return BackgroundJob.objects.create(
        kind="ingest", label="t", status=status, done=500, total=1000, attempts=attempts, worker=worker,
        task=TASK if task is None else task, started_at=now - timedelta(seconds=100),
        heartbeat_at=None if beat_s_ago is None else now - timedelta(seconds=beat_s_ago))


def test_a_running_job_whose_heartbeat_stopped_is_requeued_from_its_checkpoint(
        django_capture_on_commit_callbacks: Any, monkeypatch: Any) -> None:
    from planner.celery import app

    sent: list[tuple[str, Any, Any]] = []
    monkeypatch.setattr(app, "send_task", lambda name, args, **kw: sent.append((name, args, kw)))
    silent, alive = _job(beat_s_ago=3600), _job(beat_s_ago=1)
    with django_capture_on_commit_callbacks(execute=True):
        outcome = jobs_reap()
    assert outcome == {"requeued": [silent.pk], "resent": [], "failed": []}
    silent.refresh_from_db()
    assert silent.status == "interrupted" and "resuming from the last checkpoint" in silent.message
    assert sent == [("forecasts.tasks.ingest_accounting", [0, 7], {"queue": "celery"})]
    alive.refresh_from_db()
    assert alive.status == "running"


def test_a_job_that_lost_its_worker_too_often_or_cannot_resume_fails_with_a_message() -> None:
    worn = _job(beat_s_ago=3600, attempts=3)
    unknown = _job(beat_s_ago=3600, task={})
    assert sorted(jobs_reap()["failed"]) == sorted([worn.pk, unknown.pk])
    worn.refresh_from_db()
    unknown.refresh_from_db()
    assert worn.status == unknown.status == "failed"
    assert "started 3 times and its worker was lost each time" in worn.message
    assert "the task to resume it was not recorded" in unknown.message
    assert job_status(worn)["can_retry"] and not job_status(unknown)["can_retry"]


def test_a_dead_job_shows_no_eta_and_says_it_is_not_answering() -> None:
    dead, alive = _job(beat_s_ago=3600), _job(beat_s_ago=1)
    assert job_status(dead)["eta_s"] is None and job_status(dead)["alive"] is False
    assert job_status(dead)["status_text"].startswith("not answering")
    assert job_status(alive)["eta_s"] is not None
    interrupted = _job(beat_s_ago=3600, status="interrupted")
    assert job_status(interrupted)["eta_s"] is None
    assert job_status(interrupted)["status_text"] == "interrupted, resuming"


def test_a_redelivered_message_is_dropped_when_the_job_finished_or_a_live_process_runs_it() -> None:
    finished = _job(beat_s_ago=1, status="succeeded")
    assert _claim(finished.pk, worker_id()) is False
    busy = _job(beat_s_ago=1, worker="another-host:4242")  # fresh beats from elsewhere: its owner lives
    assert _claim(busy.pk, worker_id()) is False
    dead_here = _job(beat_s_ago=1, worker=f"{worker_id().rpartition(':')[0]}:999999999")  # no such process
    assert _claim(dead_here.pk, worker_id()) is True
    dead_here.refresh_from_db()
    assert (dead_here.worker, dead_here.attempts) == (worker_id(), 2)


def test_a_job_started_too_often_fails_instead_of_running_again() -> None:
    job = _job(beat_s_ago=3600, attempts=3)
    assert _claim(job.pk, worker_id()) is False
    job.refresh_from_db()
    assert job.status == "failed" and job.message.startswith("Stopped after 3 starts")


def test_retry_queues_a_failed_job_again_and_the_page_offers_it(
        client: Any, planner_user: Any, django_capture_on_commit_callbacks: Any, monkeypatch: Any) -> None:
    from planner.celery import app

    sent: list[str] = []
    monkeypatch.setattr(app, "send_task", lambda name, args, **kw: sent.append(name))
    job = _job(beat_s_ago=3600, status="failed")
    client.force_login(planner_user)
    assert "Retry from the last checkpoint" in client.get(f"/jobs/{job.pk}/").content.decode()
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(f"/jobs/{job.pk}/retry/")
    assert response.status_code == 302 and sent == ["forecasts.tasks.ingest_accounting"]
    job.refresh_from_db()
    assert (job.status, job.attempts) == ("queued", 0)
    with pytest.raises(ValueError, match="only a failed or interrupted job can be retried"):
        job_retry(job=job)


def test_an_ingest_of_a_file_with_no_readable_record_fails_with_a_link_to_its_rejections_and_no_retry(
        client: Any, planner_user: Any, tmp_path: Any) -> None:
    """Retrying would read the same file the same way: the job page offers the run's details instead."""
    from forecasts.accounting.load import ingest_run_create
    from forecasts.accounting.tasks import ingest_accounting

    path = tmp_path / "garbage.txt"
    path.write_bytes(b"\x00\xffnot|a|sacct|line\n" * 5 + bytes(range(256)) + b"\n")
    run = ingest_run_create(cluster_name="c", fmt="slurm", paths=[path])
    job = BackgroundJob.objects.create(kind="ingest", label="garbage", status="queued", created_by=planner_user,
                                       task={**TASK, "args": [0, run.pk]})
    ingest_accounting(job.pk, run.pk)  # the task's body, in this process
    job.refresh_from_db()
    run.refresh_from_db()
    assert run.status == "empty" and job.status == "failed"
    assert job.message == run.error and "is this a slurm file?" in job.message
    status = job_status(job)
    assert status["result_url"] == f"/usage/ingest/{run.pk}/" and not status["can_retry"]
    with pytest.raises(ValueError, match="failed on its input"):
        job_retry(job=job)
    client.force_login(planner_user)
    page = client.get(f"/jobs/{job.pk}/").content.decode()
    assert f'href="/usage/ingest/{run.pk}/">See the details' in page
    form = page.split('class="job-retry"', 1)[1].split(">", 1)[0]
    assert "hidden" in form  # no Retry button for a file that cannot be read
    assert client.post(f"/jobs/{job.pk}/retry/").status_code == 302
    job.refresh_from_db()
    assert job.status == "failed"  # refused, with the reason as a message

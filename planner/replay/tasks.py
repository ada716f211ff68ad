"""Celery task replaying a design's years on a cluster's jobs (planner.replay.services)."""

from __future__ import annotations

from celery import shared_task

from planner.replay.services import REPLAY_DESIGN_TASK, ReplayError, design_replay_execute
from planner.replay.workload import ReplayInputError


@shared_task(name=REPLAY_DESIGN_TASK, time_limit=3 * 3600, soft_time_limit=3 * 3600 - 30)
def replay_design(job_id: int) -> None:
    """Replay every year of a design (its id and the cluster are in the job's params)."""
    from celery.exceptions import SoftTimeLimitExceeded

    from planner.jobs.services import job_failed

    try:
        design_replay_execute(job_id)
    except (ReplayError, ReplayInputError):
        return  # the job row already says why, in a sentence
    except SoftTimeLimitExceeded:
        job_failed(job_id, message="The replay ran out of time (3 hours): the design is far too small for the "
                                   "cluster's jobs in node mode; try `manage.py replay --mode pool` for a year.")
    except Exception as exc:
        job_failed(job_id, message=f"{type(exc).__name__}: {exc}")
        raise

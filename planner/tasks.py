"""The supply side's Celery tasks, imported so Celery's autodiscovery registers them.

Each sub-domain keeps its tasks in its own ``tasks.py``; task names are explicit and stable.
"""

from planner.designs.tasks import optimize_design_run, service_level_run
from planner.jobs.tasks import reap_lost_jobs, selftest
from planner.replay.tasks import replay_design
from planner.reports.tasks import generate_grant_report

__all__ = ["generate_grant_report", "optimize_design_run", "reap_lost_jobs", "replay_design", "selftest",
           "service_level_run"]

"""The supply side's Celery tasks, imported so Celery's autodiscovery registers them.

Each sub-domain keeps its tasks in its own ``tasks.py``; task names are explicit and stable.
"""

from planner.designs.tasks import optimize_design_run
from planner.jobs.tasks import selftest
from planner.reports.tasks import generate_grant_report

__all__ = ["optimize_design_run", "generate_grant_report", "selftest"]

"""The Celery application: tasks take primary keys, call a service, report progress."""

import os

from celery import Celery
from kombu.transport import TRANSPORT_ALIASES

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "planner.settings")
# The embedded broker: kombu's filesystem transport with messages renamed into place whole (planner.jobs.spool).
TRANSPORT_ALIASES["filesystem"] = "planner.jobs.spool:Transport"

# Every task is a JobTask: it claims its BackgroundJob and beats a heartbeat (planner/jobs/runtime.py).
app = Celery("planner", task_cls="planner.jobs.runtime:JobTask")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

import planner.jobs.runtime  # noqa: E402,F401  (connects the publish signal recording a job's message)

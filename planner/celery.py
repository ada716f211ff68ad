"""The Celery application: tasks take primary keys, call a service, report progress."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "planner.settings")

# Every task is a JobTask: it claims its BackgroundJob and beats a heartbeat (planner/jobs/runtime.py).
app = Celery("planner", task_cls="planner.jobs.runtime:JobTask")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

import planner.jobs.runtime  # noqa: E402,F401  (connects the publish signal recording a job's message)

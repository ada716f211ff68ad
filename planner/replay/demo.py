"""Demo step: the queue waits of the Minerva narrow-flash design on nexus's last whole year of jobs,
replayed synchronously so the design page (and the grant report) show them at once; skipped when
a finished replay of that design exists, so a second `make run` is instant."""

from __future__ import annotations

import time
from collections.abc import Callable

from forecasts.accounting.models import Cluster
from planner.designs.models import Design
from planner.jobs.models import BackgroundJob
from planner.replay.services import JOB_KIND, design_replay_execute, design_replay_latest

DEMO_DESIGN = "Minerva 2014-2019: narrow high-clock nodes + flash (as bought)"
DEMO_CLUSTER = "nexus"


def load_demo_replay(log: Callable[[str], None]) -> None:
    design = Design.objects.filter(name=DEMO_DESIGN, revisions__isnull=True).order_by("-version").first()
    if design is None or not Cluster.objects.filter(name=DEMO_CLUSTER).exists():
        log("queue waits: skipped (the Minerva narrow-flash design or the nexus cluster is not loaded)")
        return
    if design_replay_latest(design) is not None:
        log("queue waits: already replayed")
        return
    t0 = time.monotonic()
    job = BackgroundJob.objects.create(kind=JOB_KIND, label=f"Queue waits: {design.name} on {DEMO_CLUSTER}'s jobs",
                                       params={"design_id": design.pk, "cluster": DEMO_CLUSTER}, unit="replays")
    result = design_replay_execute(job.pk)
    log(f"queue waits: {result['base_jobs']:,} jobs of {DEMO_CLUSTER} replayed on {len(result['years'])} design "
        f"years in {time.monotonic() - t0:.1f} s")

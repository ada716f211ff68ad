"""Demo step: one grant report of the Minerva narrow-flash design on the nexus cluster, ready when a
visitor opens Reports. Generated synchronously (all four formats take a few seconds); skipped when
a ready report of that design exists, so a second `make run` is instant."""

from __future__ import annotations

import time
from collections.abc import Callable

from forecasts.accounting.models import Cluster
from forecasts.demand.plans import latest_version
from planner.designs.models import Design
from planner.reports.models import GrantReport
from planner.reports.services import report_create, report_generate

DEMO_DESIGN = "Minerva 2014-2019: narrow high-clock nodes + flash (as bought)"
DEMO_CLUSTER = "nexus"
# the plan the design was bought for (the study's), not the demo institution's own (which sorts first)
DEMO_PLAN = "Minerva sequencer rollout (SC15 section 5)"


def load_demo_report(log: Callable[[str], None]) -> None:
    design = Design.objects.filter(name=DEMO_DESIGN, revisions__isnull=True).order_by("-version").first()
    if design is None:
        log("grant report: skipped (the Minerva narrow-flash design is not loaded)")
        return
    ready = GrantReport.objects.filter(design__name=DEMO_DESIGN, status=GrantReport.Status.READY)
    if any(set(r.files or {}) == set(GrantReport.FORMATS) for r in ready.only("files")):
        log("grant report: already generated")
        return
    cluster = Cluster.objects.filter(name=DEMO_CLUSTER).first()
    t0 = time.monotonic()
    report = report_create(design=design, cluster=cluster, plan=latest_version(DEMO_PLAN), enqueue=False)
    report = report_generate(report.pk)
    log(f"grant report #{report.pk}: {report.message} in {time.monotonic() - t0:.1f} s")

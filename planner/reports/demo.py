"""Demo steps: grant reports ready when a visitor opens Reports. One on the Minerva narrow-flash design (the
SC15 study's figures, with the study's plan) and one on the demo cluster's own 90% plan, bought from its
core-hours forecast (planner.designs.demo_paths), with that forecast and department ggs's sequencing plan: the
report a director of the demo institution would hand in. Neither design links its plan, so each report shows
the plan as context, not as part of the design's demand (planner.reports.projections). Generated synchronously
(all four formats take a few seconds); each is skipped when a ready report of its design exists, so a second
`make run` is instant."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from forecasts.accounting.models import Cluster
from forecasts.demand.plans import latest_version
from planner.designs.models import Design
from planner.reports.models import GrantReport
from planner.reports.services import report_create, report_generate

DEMO_DESIGN = "Minerva 2014-2019: narrow high-clock nodes + flash (as bought)"
DEMO_CLUSTER = "nexus"
# the plan the design was bought for (the study's), not the demo institution's own (which sorts first)
DEMO_PLAN = "Minerva sequencer rollout (SC15 section 5)"


def _generated(design: Design) -> bool:
    ready = GrantReport.objects.filter(design__name=design.name, status=GrantReport.Status.READY)
    return any(set(r.files or {}) == set(GrantReport.FORMATS) for r in ready.only("files"))


def _generate(log: Callable[[str], None], **inputs: Any) -> None:
    t0 = time.monotonic()
    report = report_generate(report_create(enqueue=False, **inputs).pk)
    log(f"grant report #{report.pk}: {report.message} in {time.monotonic() - t0:.1f} s")


def load_demo_report(log: Callable[[str], None]) -> None:
    design = Design.objects.filter(name=DEMO_DESIGN, revisions__isnull=True).order_by("-version").first()
    if design is None:
        log("grant report: skipped (the Minerva narrow-flash design is not loaded)")
        return
    if _generated(design):
        log("grant report: already generated")
        return
    _generate(log, design=design, cluster=Cluster.objects.filter(name=DEMO_CLUSTER).first(),
              plan=latest_version(DEMO_PLAN))


def load_cluster_plan_report(log: Callable[[str], None]) -> None:
    """The report on the demo cluster's own 90% plan: the design saved from the service-level run of the design
    started from the cluster's forecast, with that forecast and the plan of the department whose sequencing it is."""
    from forecasts.demand.models import ForecastFit, SequencerPlan
    from planner.designs.models import OptimizerRun

    run = (OptimizerRun.objects.filter(params__kind="service_level", result_design__isnull=False,
                                       design__scenario__uncertainty__forecast__core_fit__isnull=False)
           .select_related("design", "result_design").order_by("-pk").first())
    if run is None:
        log("grant report on the cluster's plan: skipped (no saved plan from a forecast; the designs step buys it)")
        return
    design = run.result_design
    if _generated(design):
        log("grant report on the cluster's plan: already generated")
        return
    fit = ForecastFit.objects.filter(pk=run.design.scenario["uncertainty"]["forecast"]["core_fit"]).first()
    plan = SequencerPlan.objects.filter(department__isnull=False).order_by("name", "-version").first()
    _generate(log, design=design, cluster=fit.cluster if fit else None, forecast=fit, plan=plan)

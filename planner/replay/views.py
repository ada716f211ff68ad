"""Queue waits on the design page and the comparison (planners only): start a replay, show the latest.

The designs' pages come before replay in the data flow, so they do not import this module: their
templates include the sections through the ``replay_tags`` template tags, which call
``design_section`` / ``compare_section`` here.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.urls import reverse
from django.views.decorators.http import require_POST

from forecasts.accounting.models import Cluster, Department, IngestRun
from planner.designs.models import Design
from planner.replay import charts
from planner.replay.services import WHAT_IF_SCALES, ReplayError, design_replay_latest, design_replay_start
from planner.roles import planner_required


@planner_required
@require_POST
def design_replay(request: HttpRequest, pk: int) -> HttpResponse:
    """Start replaying every year of the design on the chosen cluster's jobs; land on the job's progress."""
    design = get_object_or_404(Design, pk=pk)
    try:
        job = design_replay_start(design=design, cluster=request.POST.get("cluster", ""), user=request.user)
    except ReplayError as exc:
        messages.error(request, f"Cannot replay queue waits: {exc}")
        return redirect(reverse("designs:detail", args=[design.pk]) + "#queue-waits")
    return redirect("job", pk=job.pk)


def _clusters() -> list[str]:
    """The clusters with a completed load (where their logs begin and end is read from those: a cluster with only a
    failed load would be offered and then refused)."""
    return list(Cluster.objects.filter(ingest_runs__status=IngestRun.Status.COMPLETED,
                                       ingest_runs__last_end__isnull=False).distinct()
                .order_by("name").values_list("name", flat=True))


def _rows(result: dict[str, Any]) -> list[dict[str, Any]]:
    rows = [{"label": f"today's {result['cluster']}", "machine": result["today"]["machine"], "scale": None,
             "w": result["today"], "lo": None, "hi": None}]
    for y in result["years"]:
        if "median" not in y:
            rows.append({"label": str(y["year"]), "error": y.get("error", "")})
            continue
        rows.append({"label": str(y["year"]), "machine": y["machine"], "scale": y["load_scale"], "w": y["median"],
                     "lo": y["p10"], "hi": y["p90"], "source": y["growth_source"]})
    return rows


def _groups(result: dict[str, Any], group: str, *, by_jobs: bool = True) -> dict[str, Any] | None:
    """p95 waits per department (or job size): today's cluster against the design's last replayed year."""
    rows = [y for y in result["years"] if "median" in y and group in y["median"]]
    if not rows or group not in result["today"]:
        return None
    last = rows[-1]
    today, then = result["today"][group], last["median"][group]
    names = list(today) + [n for n in then if n not in today]  # job sizes: smallest first
    if by_jobs:  # departments: most jobs first
        names.sort(key=lambda n: -(today.get(n) or then.get(n) or {}).get("jobs", 0))
    # departments are stored by code (replays made before stay readable): shown by name
    label = dict(Department.objects.filter(code__in=names).values_list("code", "name")) if by_jobs else {}
    return {"year": last["year"],
            "rows": [{"name": label.get(n, n), "jobs": (today.get(n) or {}).get("jobs", 0),
                      "today": (today.get(n) or {}).get("p95_wait"), "then": (then.get(n) or {}).get("p95_wait")}
                     for n in names]}


def _what_if(result: dict[str, Any]) -> dict[str, Any]:
    """What the slider shows: per year, the waits at each machine size (precomputed by the task)."""
    return {"scales": list(WHAT_IF_SCALES),
            "years": [{"year": y["year"], "points": y["what_if"]} for y in result["years"] if "what_if" in y]}


def design_section(design: Design) -> dict[str, Any]:
    """Context of the design page's "Queue waits" section."""
    job = design_replay_latest(design)
    ctx: dict[str, Any] = {"design": design, "clusters": _clusters(), "job": job}
    if job is not None:
        res = job.result
        series = [(design.name, res)]
        ctx |= {"res": res, "rows": _rows(res), "what_if": _what_if(res),
                "by_department": _groups(res, "by_department"), "by_size": _groups(res, "by_size", by_jobs=False),
                "fig_queue_cdf": charts.wait_cdf_by_year(res), "fig_queue_p95": charts.p95_by_year(series),
                # a design with nodes in no year drew an empty p95 chart on axes from -1 to 6
                "replayed_years": any("median" in y for y in res["years"])}
    return ctx


def compare_section(designs: list[Design]) -> dict[str, Any]:
    """Context of the comparison's "Queue waits": every design's latest replay on the same chart."""
    found = [(d, design_replay_latest(d)) for d in designs]
    series = [(f"D{i + 1} {d.name[:40]}", job.result) for i, (d, job) in enumerate(found) if job is not None]
    missing = [d for d, job in found if job is None]
    ctx: dict[str, Any] = {"series": series, "missing": missing}
    if series:
        clusters = {res["cluster"] for _, res in series}
        ctx |= {"fig_queue_cdf": charts.wait_cdf(series), "fig_queue_p95": charts.p95_by_year(series),
                "mixed_clusters": len(clusters) > 1}
    return ctx

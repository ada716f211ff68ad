"""Sequencer plan pages (planners and admins only): list + import, plan page with derived
yearly figures, versions, comparison, an editor whose table recomputes as you type
(static/js/plan_edit.js posts the form to ``plan_derive``), YAML/CSV export."""

from __future__ import annotations

import copy
import json
from typing import Any

from django.http import HttpRequest, HttpResponse, JsonResponse, QueryDict
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from forecasts.accounting.models import Department
from forecasts.demand import charts
from forecasts.demand.models import SequencerPlan
from forecasts.demand.plan_io import counts_to_csv, plan_to_yaml, yearly_to_csv
from forecasts.demand.plans import (
    PlanError,
    core_hour_convention,
    plan_from_document,
    plan_import_counts_csv,
    plan_monthly_by_assay,
    plan_of,
    plan_parse,
    plan_save,
    plans_compare,
)
from forecasts.demand.sequencing import yearly_figures
from forecasts.usage.cache import cached_by_inputs
from planner.roles import planner_required
from planner.web.textfiles import UploadTextError, upload_text


@planner_required
def plan_list(request: HttpRequest) -> HttpResponse:
    error = None
    if request.method == "POST":
        upload = request.FILES.get("file")
        try:
            if upload is None:
                raise PlanError("choose a YAML plan or a model,date,count CSV to upload")
            text = upload_text(upload.read(), upload.name)
            if upload.name.lower().endswith(".csv"):
                row, _ = plan_import_counts_csv(text, base=request.POST.get("base") or None, user=request.user,
                                                source="upload", name=upload.name)
            else:
                row, _ = plan_save(plan_parse(text, name=upload.name), user=request.user,
                                   note=f"uploaded {upload.name}", source="upload")
        except (PlanError, UploadTextError) as exc:
            error = str(exc)
        else:
            return redirect("forecast-plan", pk=row.pk)
    rows = SequencerPlan.objects.select_related("created_by").order_by("name", "-version")
    latest = rows.distinct("name")
    return render(request, "forecasts/plan_list.html", {"plans": rows, "latest": latest, "error": error})



def _figures(plan: Any, document: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    """The plan's yearly and monthly figures, cached under a digest of the document they are derived
    from (a pure function of it: an edited plan is another document, so never a stale answer)."""
    return cached_by_inputs("plan-figures", document, lambda: (yearly_figures(plan), plan_monthly_by_assay(plan)))


@planner_required
def plan_detail(request: HttpRequest, pk: int) -> HttpResponse:
    row = get_object_or_404(SequencerPlan.objects.select_related("department"), pk=pk)
    plan = plan_of(row)
    years, monthly = _figures(plan, row.document)
    stages = list(dict.fromkeys(s for y in years for s in y.new_tb))
    nodes = [plan.reference_node, *(n for n in plan.node_types if n != plan.reference_node)]
    return render(request, "forecasts/plan.html", {
        "row": row, "plan": plan, "years": years, "stages": stages, "nodes": nodes,
        "convention": core_hour_convention(plan),
        "fig": charts.plan_chart(monthly["months"], monthly["core_hours_ref"], monthly["stored_pb"],
                                 plan.reference_node),
        "versions": SequencerPlan.objects.filter(name=row.name).order_by("-version").select_related("created_by")
        .defer("document"),
        "others": SequencerPlan.objects.exclude(pk=row.pk).order_by("name", "-version").defer("document")[:50],
    })


def _download(body: str, filename: str, content_type: str) -> HttpResponse:
    resp = HttpResponse(body, content_type=content_type)
    resp["Content-Disposition"] = f'attachment; filename="{filename}"'
    return resp


@planner_required
def plan_export(request: HttpRequest, pk: int, fmt: str) -> HttpResponse:
    row = get_object_or_404(SequencerPlan, pk=pk)
    plan = plan_of(row)
    stem = f"plan-{row.pk}-v{row.version}"
    if fmt == "yaml":
        return _download(plan_to_yaml(plan), f"{stem}.yaml", "application/yaml")
    if fmt == "counts":
        return _download(counts_to_csv(plan), f"{stem}-counts.csv", "text/csv")
    return _download(yearly_to_csv(yearly_figures(plan)), f"{stem}-yearly.csv", "text/csv")


@planner_required
def plan_compare(request: HttpRequest) -> HttpResponse:
    a = get_object_or_404(SequencerPlan, pk=request.GET.get("a") or 0)
    b = get_object_or_404(SequencerPlan, pk=request.GET.get("b") or 0)
    rows = plans_compare(a, b)
    years = sorted({r["year"] for r in rows})
    metrics = list(dict.fromkeys(r["metric"] for r in rows))
    table = [{"metric": m, "cells": [next(r for r in rows if r["year"] == y and r["metric"] == m) for y in years]}
             for m in metrics]
    return render(request, "forecasts/plan_compare.html", {"a": a, "b": b, "years": years, "table": table})


def apply_edit(document: dict[str, Any], data: QueryDict) -> dict[str, Any]:
    """A copy of the plan document with the editor's fields applied (names as in plan_edit.html)."""
    doc = copy.deepcopy(document)
    if "department" in data:  # the editor's select: a code, or blank for none (null: not the version's own)
        doc["department"] = data["department"].strip() or None
    for i, ins in enumerate(doc["instruments"]):
        if f"rpw-{i}" in data:
            ins["runs_per_week"] = float(data[f"rpw-{i}"])
        counts = []
        for j in range(len(ins["counts"]) + 1):
            d, c = data.get(f"date-{i}-{j}", "").strip(), data.get(f"count-{i}-{j}", "").strip()
            if d and c:
                counts.append({"date": d, "count": float(c)})
        if counts:
            ins["counts"] = sorted(counts, key=lambda p: p["date"])
        for j, share in enumerate(ins["run_mix"]):
            if f"mix-{i}-{j}" in data:
                share["samples_per_run"] = float(data[f"mix-{i}-{j}"])
    for name, assay in doc["assays"].items():
        if f"ch-{name}" in data:
            assay["core_hours_per_sample"] = float(data[f"ch-{name}"])
        if f"re-{name}" in data:
            assay["reanalysis_rate"] = float(data[f"re-{name}"])
    return doc


def _derive(document: dict[str, Any]) -> dict[str, Any]:
    plan = plan_from_document(document)
    return {"years": [
        {"year": y.year, "instruments_end": y.instruments_end, "samples_total": y.samples_total,
         "genomes_per_day_peak": y.genomes_per_day_peak, "core_hours_ref": y.core_hours_ref,
         "core_hours_by_node": y.core_hours_by_node, "new_tb_total": y.new_tb_total,
         "stored_pb_total": y.stored_pb_total, "daily_ingest_tb_peak": y.daily_ingest_tb_peak}
        for y in yearly_figures(plan)
    ], "nodes": list(plan.node_types)}


@planner_required
@require_POST
def plan_derive(request: HttpRequest, pk: int) -> JsonResponse:
    """JSON of the yearly figures for the editor's current (unsaved) values."""
    row = get_object_or_404(SequencerPlan, pk=pk)
    try:
        return JsonResponse(_derive(apply_edit(row.document, request.POST)))
    except (PlanError, ValueError, KeyError) as exc:
        return JsonResponse({"error": str(exc)}, status=400)


@planner_required
def plan_edit(request: HttpRequest, pk: int) -> HttpResponse:
    row = get_object_or_404(SequencerPlan, pk=pk)
    error = None
    doc = row.document
    if request.method == "POST":
        try:
            doc = apply_edit(row.document, request.POST)
            plan = plan_from_document(doc)
            new, _ = plan_save(plan, user=request.user, note=request.POST.get("note", "")[:300] or
                               "edited in the page", source="editor", parent=row)
        except (PlanError, ValueError) as exc:
            error = str(exc)
        else:
            return redirect("forecast-plan", pk=new.pk)
    try:
        derived = _derive(doc)
    except (PlanError, ValueError, KeyError):  # the refused values: the table shows the version as saved
        derived = _derive(row.document)
    return render(request, "forecasts/plan_edit.html", {
        "row": row, "doc": doc, "error": error, "derived": derived,
        "derived_json": json.dumps(derived),
        "departments": Department.objects.order_by("code").only("code", "name"),
    })

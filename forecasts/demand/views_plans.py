"""Sequencer plan pages (planners and admins only): list + import, plan page with derived
yearly figures, versions, comparison, an editor whose table recomputes as you type
(static/js/plan_edit.js posts the form to ``plan_derive``), YAML/CSV export."""

from __future__ import annotations

import copy
import json
import math
import re
from datetime import date
from typing import Any

from django.http import Http404, HttpRequest, HttpResponse, JsonResponse, QueryDict
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from forecasts.accounting.models import Department
from forecasts.demand import charts
from forecasts.demand.models import SequencerPlan
from forecasts.demand.plan_io import (
    RANGES,
    PlanFieldError,
    check_range,
    counts_to_csv,
    plan_from_dict,
    plan_to_yaml,
    yearly_to_csv,
)
from forecasts.demand.plans import (
    PlanError,
    core_hour_convention,
    latest_version,
    plan_from_document,
    plan_import_counts_csv,
    plan_monthly_by_assay,
    plan_of,
    plan_parse,
    plan_save,
    plans_compare,
)
from forecasts.demand.sequencing import KIND_WORDS, SequencingPlan, assay_label, node_type_label, yearly_figures
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


_FILE_ASIDE = re.compile(r"\s*\([^()]*\bthis file\b[^()]*\)", re.I)
_FILE_CLAUSE = re.compile(r"[;,]?\s*[^.;,]*\bthis file\b[^.;]*", re.I)


def notes_for_page(notes: str) -> str:
    """A plan's notes as a web page shows them: what points at the YAML file's comments ("see the comments at the
    top of this file") is dropped, as the page has no such file (the exported YAML keeps the notes whole)."""
    text = _FILE_ASIDE.sub("", notes)
    text = _FILE_CLAUSE.sub("", text)
    text = re.sub(r"\s+([.;,])", r"\1", text).strip()
    return text if not text or text.endswith((".", "!", "?")) else text + "."


@planner_required
def plan_detail(request: HttpRequest, pk: int) -> HttpResponse:
    row = get_object_or_404(SequencerPlan.objects.select_related("department"), pk=pk)
    plan = plan_of(row)
    years, monthly = _figures(plan, row.document)
    stages = list(dict.fromkeys(s for y in years for s in y.new_tb))
    nodes = [plan.reference_node, *(n for n in plan.node_types if n != plan.reference_node)]
    return render(request, "forecasts/plan.html", {
        "row": row, "plan": plan, "years": years, "stages": stages,
        # node types as the hardware catalog names them, assays in words; the document keeps its keys
        "nodes": [{"key": n, "label": node_type_label(n), "reference": n == plan.reference_node} for n in nodes],
        "assays": [{"label": assay_label(plan, n), "assay": a, "node": node_type_label(a.node_type),
                    "kind": KIND_WORDS.get(a.kind, a.kind)}
                   for n, a in plan.assays.items()],
        "notes": notes_for_page(plan.notes),
        "convention": core_hour_convention(plan),
        "fig": charts.plan_chart(monthly["months"],
                                 {assay_label(plan, n): ys for n, ys in monthly["core_hours_ref"].items()},
                                 monthly["stored_pb"], node_type_label(plan.reference_node)),
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
    if fmt == "csv":
        return _download(yearly_to_csv(yearly_figures(plan)), f"{stem}-yearly.csv", "text/csv")
    raise Http404(f"no export as {fmt[:20]!r}: the plan exports as yaml, counts or csv")


# The comparison's rows in words with their units (the core's metric keys stay the CSV's and the API's)
METRIC_LABELS = {
    "instruments_end": "Instruments at year end",
    "samples_total": "Samples sequenced",
    "genomes_per_day_peak": "Genomes per day, peak month",
    "core_hours_ref": "Core-hours on the reference core",
    "new_tb_total": "New data written, TB",
    "stored_tb_total": "Data held at year end, TB",
    "daily_ingest_tb_peak": "Daily ingest at peak, TB/day",
    "new_files": "Files written",
    "stored_files": "Files held at year end",
}


def row_format(values: list[float]) -> Any:
    """One number format for a whole row, chosen from its largest value: millions as 'M' with the decimals
    that give it three significant figures, whole numbers with separators from 100, else three significant
    figures of the largest (12.0 beside 10.5; 0.0422 beside 0.0351)."""
    top = max((abs(v) for v in values if math.isfinite(v)), default=0.0)
    scale, suffix = (1e6, " M") if top >= 1e6 else (1.0, "")
    scaled = top / scale
    decimals = 0 if scaled >= 100 else max(0, 2 - math.floor(math.log10(scaled))) if scaled > 0 else 0

    def fmt(v: float) -> str:
        return "–" if not math.isfinite(v) else f"{v / scale:,.{decimals}f}{suffix}"

    return fmt


@planner_required
def plan_compare(request: HttpRequest) -> HttpResponse:
    a = get_object_or_404(SequencerPlan, pk=request.GET.get("a") or 0)
    b = get_object_or_404(SequencerPlan, pk=request.GET.get("b") or 0)
    rows = plans_compare(a, b)
    years = sorted({r["year"] for r in rows})
    metrics = list(dict.fromkeys(r["metric"] for r in rows))
    table = []
    for m in metrics:
        cells = [next(r for r in rows if r["year"] == y and r["metric"] == m) for y in years]
        fmt = row_format([v for c in cells for v in (c["a"], c["b"])])
        table.append({"metric": METRIC_LABELS.get(m, m), "key": m,
                      "cells": [{**c, "a_text": fmt(c["a"]), "b_text": fmt(c["b"])} for c in cells]})
    return render(request, "forecasts/plan_compare.html", {"a": a, "b": b, "years": years, "table": table})


def _number(data: QueryDict, field: str, key: str, where: str) -> float:
    """The editor's field ``field`` as a number inside the range of the plan's ``key``; PlanError in one line
    naming the row and the field as the form labels it."""
    words = RANGES[key][0]
    raw = data.get(field, "").strip()
    if not raw:
        raise PlanError(f"{where}: {words}: enter a number")
    try:
        value = float(raw.replace(",", ""))
    except ValueError:
        raise PlanError(f"{where}: {words}: enter a number, got {raw[:40]!r}") from None
    try:
        check_range(key, value, where)
    except PlanFieldError as exc:
        raise PlanError(str(exc)) from None
    return value


def _date_field(raw: str, where: str) -> str:
    try:
        return date.fromisoformat(raw).isoformat()
    except ValueError:
        raise PlanError(f"{where}: from date: expected a date such as 2015-01-01, got {raw[:40]!r}") from None


def apply_edit(document: dict[str, Any], data: QueryDict) -> dict[str, Any]:
    """A copy of the plan document with the editor's fields applied (names as in plan_edit.html); PlanError in
    one line naming the row and the field as the form labels it."""
    doc = copy.deepcopy(document)
    plan = plan_from_dict(document, ranges=False)  # the assays' names in words, for the messages
    if "department" in data:  # the editor's select: a code, or blank for none (null: not the version's own)
        doc["department"] = data["department"].strip() or None
    for i, ins in enumerate(doc["instruments"]):
        model = ins["model"]
        if f"rpw-{i}" in data:
            ins["runs_per_week"] = _number(data, f"rpw-{i}", "runs_per_week", model)
        counts = []
        for j in range(len(ins["counts"]) + 1):
            d, c = data.get(f"date-{i}-{j}", "").strip(), data.get(f"count-{i}-{j}", "").strip()
            if d:  # a row with its date cleared (and its count) is removed
                when = _date_field(d, model)
                counts.append({"date": when, "count": _number(data, f"count-{i}-{j}", "count",
                                                              f"{model}, from {when}")})
            elif c:
                raise PlanError(f"{model}: instruments {c[:40]!r}: enter the date they are in service from")
        if counts:
            ins["counts"] = sorted(counts, key=lambda p: p["date"])
        for j, share in enumerate(ins["run_mix"]):
            if f"mix-{i}-{j}" in data:
                share["samples_per_run"] = _number(data, f"mix-{i}-{j}", "samples_per_run",
                                                   f"{model}, {_assay(plan, share['assay'])}")
    for name, assay in doc["assays"].items():
        where = f"assay {assay_label(plan, name)}"
        if f"ch-{name}" in data:
            assay["core_hours_per_sample"] = _number(data, f"ch-{name}", "core_hours_per_sample", where)
        if f"re-{name}" in data:
            assay["reanalysis_rate"] = _number(data, f"re-{name}", "reanalysis_rate", where)
    return doc


def _assay(plan: SequencingPlan, name: str) -> str:
    return assay_label(plan, name) if name in plan.assays else name


def editor_fields(document: dict[str, Any], data: QueryDict | None = None) -> dict[str, Any]:
    """The editor's fields, each with the value to show: the one typed (``data``, after a refusal: nothing the
    user typed is lost) or the version's own."""
    plan = plan_from_dict(document, ranges=False)

    def value(field: str, saved: Any) -> str:
        if data is not None and field in data:
            return data[field]
        if isinstance(saved, float) and saved.is_integer() and abs(saved) < 1e15:
            return str(int(saved))  # 5, not 5.0; anything else exactly as stored, so a save changes nothing
        return "" if saved is None else repr(saved) if isinstance(saved, float) else str(saved)

    instruments = []
    for i, ins in enumerate(document["instruments"]):
        rows = [*ins["counts"], {"date": "", "count": None}]  # one blank row to add a date
        instruments.append({
            "model": ins["model"], "rpw_name": f"rpw-{i}", "rpw": value(f"rpw-{i}", ins["runs_per_week"]),
            "counts": [{"date_name": f"date-{i}-{j}", "date": value(f"date-{i}-{j}", c["date"]),
                        "count_name": f"count-{i}-{j}", "count": value(f"count-{i}-{j}", c["count"]),
                        "blank": j == len(rows) - 1} for j, c in enumerate(rows)],
            "mix": [{"name": f"mix-{i}-{j}", "label": _assay(plan, s["assay"]),
                     "value": value(f"mix-{i}-{j}", s["samples_per_run"])} for j, s in enumerate(ins["run_mix"])],
        })
    assays = [{"label": assay_label(plan, n), "node": node_type_label(a["node_type"]),
               "ch_name": f"ch-{n}", "ch": value(f"ch-{n}", a["core_hours_per_sample"]),
               "re_name": f"re-{n}", "re": value(f"re-{n}", a["reanalysis_rate"])}
              for n, a in document["assays"].items()]
    department = data.get("department", "").strip() if data is not None else document.get("department") or ""
    return {"instruments": instruments, "assays": assays, "department": department,
            "note": data.get("note", "") if data is not None else ""}


def _derive(document: dict[str, Any]) -> dict[str, Any]:
    plan = plan_from_document(document, name=None)
    return {"years": [
        {"year": y.year, "instruments_end": y.instruments_end, "samples_total": y.samples_total,
         "genomes_per_day_peak": y.genomes_per_day_peak, "core_hours_ref": y.core_hours_ref,
         "core_hours_by_node": y.core_hours_by_node, "new_tb_total": y.new_tb_total,
         "stored_pb_total": y.stored_pb_total, "daily_ingest_tb_peak": y.daily_ingest_tb_peak}
        for y in yearly_figures(plan)
    ], "nodes": list(plan.node_types), "node_labels": {n: node_type_label(n) for n in plan.node_types}}


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
            plan = plan_from_document(doc, name=None)
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
    latest = latest_version(row.name)
    return render(request, "forecasts/plan_edit.html", {
        "row": row, "error": error, "derived": derived, "derived_json": json.dumps(derived),
        "form": editor_fields(row.document, request.POST if request.method == "POST" else None),
        "reference": node_type_label(row.document["reference_node"]),
        # the version a save creates: the next of the name's versions, not of the one being edited
        "next_version": (latest.version if latest else row.version) + 1,
        "departments": Department.objects.order_by("code").only("code", "name"),
    })

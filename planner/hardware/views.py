"""Hardware pages: the catalog (node types, storage systems), CSV export/import, benchmarks with provenance.

Planners and admins only (department viewers get 403). The derived per-genome table shows the rule
next to every derived number, as the cost model reports it.
"""

from __future__ import annotations

import re
from typing import Any

from django import forms
from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from planner.hardware import labels
from planner.hardware.catalog import NODE_POSITIVE, number_problems
from planner.hardware.costmodel import CostModel, NoBenchmarkError, speedup
from planner.hardware.design_model import PipelineModel
from planner.hardware.fit_cache import shared_calibration
from planner.hardware.limits import NODE_LABELS
from planner.hardware.models import Benchmark, NodeType, StorageSystem
from planner.hardware.services import (
    KINDS,
    CatalogImportError,
    catalog_export_csv,
    catalog_from_db,
    catalog_import_csv,
)
from planner.hardware.site_check import site_pipeline_checks
from planner.roles import planner_required
from planner.web.areas import AREAS_BY_SLUG
from planner.web.textfiles import UploadTextError, upload_text

GATK = "GATK 3.1.1 WGS"
DELL = "BWA + GATK 3.6 10x WGS"


NAME_RULE = "use lower-case letters, digits and hyphens, e.g. ivy-bridge"


class NodeTypeForm(forms.ModelForm):
    class Meta:
        model = NodeType
        fields = [f.name for f in NodeType._meta.concrete_fields if f.name not in ("id", "updated_at")]
        widgets = {"source": forms.Textarea(attrs={"rows": 2}), "assumptions": forms.Textarea(attrs={"rows": 2})}
        labels = dict(NODE_LABELS)  # words with units, as the catalog's error messages name them
        help_texts = {"name": NAME_RULE, "support_pct_per_year": "",
                      "price_source": "where the price comes from: vendor list, condo page, procurement record "
                                      "or estimate"}
        error_messages = {"name": {"invalid": f"Name: {NAME_RULE}."}}

    def clean_name(self) -> str:
        name = str(self.cleaned_data["name"])
        if not re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", name):
            raise forms.ValidationError(f"Name: {NAME_RULE}.", code="invalid")
        return name

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        for name, problem in number_problems(data, NODE_POSITIVE).items():  # the catalog's own rule
            self.add_error(name, problem)
        return data


class CsvUploadForm(forms.Form):
    file = forms.FileField(help_text="CSV exported from this page (node types, storage systems or benchmarks)")


@planner_required
def catalog(request: HttpRequest) -> HttpResponse:
    nodes = NodeType.objects.all()
    if not nodes.exists():
        return render(request, "area_empty.html", {"area": AREAS_BY_SLUG["hardware"]})
    return render(request, "hardware/catalog.html", {
        "nodes": nodes, "stores": StorageSystem.objects.all(), "upload": CsvUploadForm(),
        "bench_count": Benchmark.objects.count(),
    })


@planner_required
def export_csv(request: HttpRequest, kind: str) -> HttpResponse:
    if kind not in KINDS:
        raise Http404
    resp = HttpResponse(catalog_export_csv(kind), content_type="text/csv; charset=utf-8")
    resp["Content-Disposition"] = f'attachment; filename="{kind}.csv"'
    return resp


@planner_required
@require_POST
def import_csv(request: HttpRequest) -> HttpResponse:
    form = CsvUploadForm(request.POST, request.FILES)
    if not form.is_valid():
        chosen = request.FILES.get("file")
        if chosen is not None and not chosen.size:  # Django's FileField refuses an empty file as if none came
            messages.error(request, f"{chosen.name} is empty: nothing to import (export a CSV from this page "
                                    "to see the columns).")
        else:
            messages.error(request, "Choose a CSV file to import.")
        return redirect("hardware:catalog")
    upload = form.cleaned_data["file"]
    try:
        text = upload_text(upload.read(), upload.name)
        stats = catalog_import_csv(text, filename=upload.name)
    except (CatalogImportError, UploadTextError) as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, import_summary(stats))
    return redirect("hardware:catalog")


KIND_NOUNS = {"node_types": "node type", "storage_systems": "storage system", "benchmarks": "benchmark"}


def import_summary(stats: dict[str, Any]) -> str:
    """What an import changed, counting the file's rows only: 'nodes.csv: 4 node type rows (0 new, 1 updated,
    3 unchanged).'"""
    rows = stats["rows"]
    return (f"{stats['file']}: {rows} {KIND_NOUNS[stats['kind']]} row{'' if rows == 1 else 's'} "
            f"({stats['created']} new, {stats['updated']} updated, {stats['unchanged']} unchanged).")


@planner_required
def node_type_edit(request: HttpRequest, name: str | None = None) -> HttpResponse:
    node = get_object_or_404(NodeType, name=name) if name else None
    # The heading names the row being edited as stored: validating the form writes the typed values onto
    # the instance, so a refused rename would otherwise show the name it was refused for.
    editing = node.name if node else None
    form = NodeTypeForm(request.POST or None, instance=node)
    if request.method == "POST" and form.is_valid():
        saved = form.save()
        messages.success(request, f"Saved node type {saved.name}; designs use it from their next evaluation.")
        return redirect("hardware:catalog")
    return render(request, "hardware/node_type_form.html", {"form": form, "editing": editing})


def derived_table(cat: Any, pipeline: str = GATK) -> list[dict[str, Any]]:
    """CPU and wall core-hours per genome for every node type x non-archive storage, with rules."""
    model = CostModel(cat)
    rows = []
    for node in cat.node_types.values():
        for st in cat.storage_systems.values():
            if st.kind == "archive":
                continue
            try:
                cpu = model.cpu_hours_per_sample(pipeline, node.name, st.name)
                wall = model.wall_core_hours_per_sample(pipeline, node.name, st.name)
            except NoBenchmarkError:
                continue
            measured = any(b.pipeline == pipeline and b.node_type == node.name and b.storage_system == st.name
                           and b.wall_core_hours_per_sample for b in cat.benchmarks)
            rows.append({"node": node.name, "storage": st.name, "cpu": cpu, "wall": wall, "measured": measured,
                         "efficiency": cpu.value / wall.value if wall.value else None,
                         "node_gpd": model.node_genomes_per_day(pipeline, node.name, st.name)})
    rows.sort(key=lambda r: (not r["measured"], r["wall"].value))
    return rows


def speedups(cat: Any) -> list[dict[str, Any]]:
    """The paper's three speedups, recomputed from the catalog's benchmarks (rule shown)."""
    model = CostModel(cat)
    try:
        amd_disk = model.wall_core_hours_per_sample(GATK, "amd-interlagos", "ddn-sfa10k").value
        amd_flash = model.wall_core_hours_per_sample(GATK, "amd-interlagos", "flash-gss").value
        ivy_flash = model.wall_core_hours_per_sample(GATK, "ivy-bridge", "flash-gss").value
        amd_flash_cpu = model.cpu_hours_per_sample(GATK, "amd-interlagos", "flash-gss").value
        ivy_flash_cpu = model.cpu_hours_per_sample(GATK, "ivy-bridge", "flash-gss").value
        amd_disk_cpu = model.cpu_hours_per_sample(GATK, "amd-interlagos", "ddn-sfa10k").value
    except (KeyError, NoBenchmarkError):
        return []
    return [
        {"label": "Node choice alone (wide AMD -> narrow Ivy Bridge, both on flash)",
         "value": speedup(amd_flash_cpu, ivy_flash_cpu),
         "rule": f"CPU hours {amd_flash_cpu:,.0f} / {ivy_flash_cpu:,.0f}"},
        {"label": "Storage alone (spinning disk -> flash + GSS, wide AMD)",
         "value": speedup(amd_disk, amd_flash),
         "rule": f"wall core-hours {amd_disk:,.0f} / {amd_flash:,.0f}; CPU hours only "
                 f"{1 - amd_flash_cpu / amd_disk_cpu:.0%} lower ({amd_disk_cpu:,.0f} -> {amd_flash_cpu:,.0f})"},
        {"label": "Both (wide AMD on disk -> narrow Ivy Bridge on flash)",
         "value": speedup(amd_disk, ivy_flash), "rule": f"wall core-hours {amd_disk:,.0f} / {ivy_flash:,.0f}"},
    ]


def batch_checks(cat: Any) -> list[dict[str, Any]]:
    """Dell EMC batch runs: measured genomes/day next to the model's (storage ceiling included)."""
    model = CostModel(cat)
    rows = []
    for b in cat.benchmarks:
        if b.pipeline != DELL or not b.nodes or not b.samples_per_node:
            continue
        units = 1
        got = model.batch_genomes_per_day(DELL, b.node_type, b.storage_system, b.nodes, b.samples_per_node, units)
        rows.append({"bench": b, "model": got, "run_hours": b.batch_hours})
    return rows


@planner_required
def benchmarks(request: HttpRequest) -> HttpResponse:
    if not Benchmark.objects.exists():
        return render(request, "area_empty.html", {"area": AREAS_BY_SLUG["hardware"]})
    cat = catalog_from_db()
    return render(request, "hardware/benchmarks.html", {
        "benchmarks": Benchmark.objects.select_related("node_type", "storage_system"),
        "derived": derived_table(cat), "speedups": speedups(cat), "batches": batch_checks(cat),
        "pipeline": GATK, "calibration": calibration_context(),
        "site_pipelines": [c | {"derived": derived_table(cat, c["pipeline"])}
                           for c in site_pipeline_checks(cat, set(PipelineModel.names(cat)))],
    })


def calibration_context() -> dict[str, Any] | None:
    """The performance model's fit: parameters with uncertainty, residuals, leave-one-out."""
    try:
        fit, loo, _ = shared_calibration()  # every process reads the one leave-one-out (a file in DATA_DIR)
    except (OSError, ValueError):
        return None
    return {"fit": fit, "loo": loo, "path": "fixtures/benchmarks/genomics.yaml",
            "loo_median_pct": 100 * loo.median_abs_error, "fit_median_pct": 100 * fit.median_abs_error,
            **calibration_rows(fit, loo)}


def calibration_rows(fit: Any, loo: Any) -> dict[str, list[dict[str, Any]]]:
    """The fit's tables in words: parameters and quantities labelled with units (the model's path kept for a
    title attribute), the papers named as the catalog names them, one number format per column (parameters,
    which differ by orders of magnitude, to 3 significant figures)."""
    sig = labels.significant
    return {
        "parameters": [{"path": p.path, "label": labels.parameter_label(p.path), "value": sig(p.value),
                        "low": sig(p.low), "high": sig(p.high), "prior": sig(p.prior),
                        "source": labels.source_words(p.source)} for p in fit.parameters],
        "residuals": [{"observation": r.observation, "quantity": labels.quantity_label(r.quantity),
                       "measured": r.measured, "predicted": r.predicted, "error": r.error,
                       "source": labels.source_words(r.source)} for r in fit.residuals],
        "loo_rows": [{"observation": r.observation, "quantity": labels.quantity_label(r.quantity),
                      "measured": r.measured, "predicted": r.predicted,
                      "error": r.error, "in_sample": r.in_sample} for r in loo.rows],
        "loo_ranges": [{"observation": r.observation, "quantity": labels.quantity_label(r.quantity), "low": r.low,
                        "high": r.high, "predicted": r.predicted, "inside": r.inside, "error": r.error,
                        "source": labels.source_words(r.source)} for r in loo.ranges],
    }

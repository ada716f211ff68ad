"""Report pages (/reports/...): list, new-report form, report page (preview, edit, download), progress.

Planners and admins only: a department viewer gets 403 on every page and every file download.
"""

from __future__ import annotations

import mimetypes

from django import forms
from django.contrib import messages
from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from forecasts.accounting.models import Cluster
from forecasts.demand.models import ForecastFit, SequencerPlan
from planner.audit.events import record_event
from planner.designs.models import Design
from planner.designs.services import design_latest_versions
from planner.reports.inputs import period_problem
from planner.reports.models import GrantReport
from planner.reports.render_html import html_context
from planner.reports.services import report_create, report_document, report_edit_narrative, report_regenerate
from planner.roles import planner_required

CONTENT_TYPES = {"pdf": "application/pdf", "html": "text/html; charset=utf-8", "zip": "application/zip",
                 "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document"}


class ReportForm(forms.Form):
    design = forms.ModelChoiceField(queryset=Design.objects.none(), help_text="the proposed configuration")
    cluster = forms.ModelChoiceField(queryset=Cluster.objects.order_by("name"), required=False,
                                     empty_label="all clusters")
    start = forms.DateField(required=False, widget=forms.DateInput(attrs={"type": "month"}),
                            input_formats=["%Y-%m", "%Y-%m-%d"], help_text="first month of usage (empty: all)")
    end = forms.DateField(required=False, widget=forms.DateInput(attrs={"type": "month"}),
                          input_formats=["%Y-%m", "%Y-%m-%d"], help_text="last month of usage (empty: all)")
    forecast = forms.ModelChoiceField(queryset=ForecastFit.objects.all(), required=False,
                                      empty_label="the design's own (none if it links none)",
                                      help_text="another fit is shown as context, not as the design's demand")
    plan = forms.ModelChoiceField(queryset=SequencerPlan.objects.all(), required=False,
                                  empty_label="the design's own (none if it links none)", label="Sequencer plan",
                                  help_text="another plan is shown as context, not as the design's demand")

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.fields["design"].queryset = design_latest_versions().order_by("name")
        self.fields["forecast"].label_from_instance = lambda f: f"#{f.pk} {f.series_label} ({f.family})"

    def clean(self) -> dict[str, object]:
        data = super().clean() or {}
        if bool(data.get("start")) != bool(data.get("end")):
            raise forms.ValidationError("Give both the first and the last month of the period, or neither.")
        if data.get("start") and data.get("end") and data["start"] > data["end"]:
            raise forms.ValidationError("The first month is after the last month.")
        problem = period_problem(data.get("cluster"), data.get("start"), data.get("end"))
        if problem:
            raise forms.ValidationError(problem)
        return data


@planner_required
def report_list(request: HttpRequest) -> HttpResponse:
    reports = GrantReport.objects.select_related("design", "cluster", "created_by").order_by("-created_at")
    return render(request, "reports/list.html", {"reports": reports, "has_designs": Design.objects.exists()})


@planner_required
def report_new(request: HttpRequest) -> HttpResponse:
    form = ReportForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        d = form.cleaned_data
        report = report_create(design=d["design"], cluster=d.get("cluster"), start=d.get("start"),
                               end=d.get("end"), forecast=d.get("forecast"), plan=d.get("plan"), user=request.user)
        return redirect("reports:progress", report.pk)
    return render(request, "reports/new.html", {"form": form, "has_designs": Design.objects.exists()})


@planner_required
def report_detail(request: HttpRequest, pk: int) -> HttpResponse:
    report = get_object_or_404(GrantReport.objects.select_related("design", "cluster", "parent"), pk=pk)
    if report.status != GrantReport.Status.READY and report.job_id and report.status != GrantReport.Status.FAILED:
        return redirect("reports:progress", report.pk)
    doc = report_document(report)
    ctx = {"report": report, "versions": GrantReport.objects.filter(design=report.design).order_by("-version")[:20]}
    if doc is not None:
        ctx.update(html_context(doc))
        titles = {s.key: s.title for s in doc.sections}
        ctx["paragraphs"] = [
            {"key": p.key, "text": p.text, "edited": p.edited,
             "label": titles.get(p.key) or p.key.replace("_", " ").capitalize()}
            for p in doc.paragraphs()
        ]
    return render(request, "reports/detail.html", ctx)


@planner_required
def report_progress(request: HttpRequest, pk: int) -> HttpResponse:
    report = get_object_or_404(GrantReport, pk=pk)
    return render(request, "reports/progress.html", {"report": report, "job": report.job})


@planner_required
@require_POST
def report_edit(request: HttpRequest, pk: int) -> HttpResponse:
    report = get_object_or_404(GrantReport, pk=pk)
    edits = {k.removeprefix("para-"): v for k, v in request.POST.items() if k.startswith("para-")}
    try:
        new = report_edit_narrative(report=report, edits=edits, user=request.user)
    except ValueError as exc:  # the period's usage is gone since: say so, never a 500
        messages.error(request, str(exc))
        return redirect("reports:detail", report.pk)
    messages.success(request, f"Your edits are saved as version {new.version}; it is being generated.")
    return redirect("reports:progress", new.pk)


@planner_required
@require_POST
def report_regen(request: HttpRequest, pk: int) -> HttpResponse:
    report = get_object_or_404(GrantReport, pk=pk)
    try:
        new = report_regenerate(report=report, user=request.user)
    except ValueError as exc:
        messages.error(request, str(exc))
        return redirect("reports:detail", report.pk)
    return redirect("reports:progress", new.pk)


@planner_required
def report_download(request: HttpRequest, pk: int, fmt: str) -> FileResponse:
    report = get_object_or_404(GrantReport, pk=pk)
    path = report.file_path(fmt)
    if path is None or not path.exists():
        raise Http404(f"report #{pk} has no {fmt} file (generate it again)")
    inline = fmt in ("pdf", "html") and request.GET.get("download") != "1"
    name = f"grant-report-{report.pk}-v{report.version}{path.suffix}"
    record_event("report download", obj=report, actor=request.user, request=request,
                 detail={"format": fmt, "as": "opened in the browser" if inline else "file", "version": report.version})
    return FileResponse(path.open("rb"), as_attachment=not inline, filename=name,
                        content_type=CONTENT_TYPES.get(fmt) or mimetypes.guess_type(path.name)[0])

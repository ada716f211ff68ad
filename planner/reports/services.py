"""Report services: create a version (and its job), generate it, save narrative edits as a new version."""

from __future__ import annotations

import time
from datetime import date
from typing import Any

from django.db import transaction
from django.urls import reverse

from forecasts.accounting.models import Cluster
from forecasts.demand.models import ForecastFit, SequencerPlan
from planner.designs.models import Design
from planner.jobs.services import job_failed, job_progress, job_running, job_start, job_succeeded
from planner.reports.document import Document
from planner.reports.gather import gather_facts
from planner.reports.inputs import period_problem
from planner.reports.models import GrantReport
from planner.reports.sections import build_document

STEPS = ["gathering usage, forecasts and the design", "assembling the document", "rendering the PDF",
         "rendering the DOCX", "rendering the HTML", "packing figures and tables (ZIP)"]

# The Celery task rendering a report version (planner.reports.tasks), enqueued by name.
GENERATE_TASK = "planner.reports.tasks.generate_grant_report"


def _params(report: GrantReport) -> dict[str, Any]:
    return {
        "design": report.design_id, "cluster": report.cluster.name if report.cluster_id else None,
        "start": report.period_start.isoformat() if report.period_start else None,
        "end": report.period_end.isoformat() if report.period_end else None,
        "forecast": report.forecast_fit_id, "sequencer_plan": report.sequencer_plan_id,
    }


def report_create(*, design: Design, cluster: Cluster | None = None, start: date | None = None,
                  end: date | None = None, forecast: ForecastFit | None = None, plan: SequencerPlan | None = None,
                  overrides: dict[str, str] | None = None, parent: GrantReport | None = None, user: Any = None,
                  enqueue: bool = True) -> GrantReport:
    """A new report version; with ``enqueue`` a Celery worker generates it (progress on its job)."""

    if (start is None) != (end is None):
        raise ValueError("period: give both start and end, or neither for all usage")
    if start and end and start > end:
        raise ValueError("period: start is after end")
    problem = period_problem(cluster, start, end)
    if problem:
        raise ValueError(f"period: {problem}")
    with transaction.atomic():
        # versions count per design: "v3 of the report on this design"
        version = (GrantReport.objects.filter(design=design).order_by("-version")
                   .values_list("version", flat=True).first() or 0) + 1
        report = GrantReport.objects.create(
            design=design, cluster=cluster, period_start=start, period_end=end, forecast_fit=forecast,
            sequencer_plan=plan, narrative_overrides=overrides or {}, parent=parent, version=version,
            created_by=user if getattr(user, "is_authenticated", False) else None,
        )
        report.parameters = _params(report)
        report.save(update_fields=["parameters"])
        if enqueue:
            report.job = job_start(kind="grant_report", label=f"Grant report #{report.pk} ({design.name})",
                                   task=GENERATE_TASK, params={"report_id": report.pk}, user=user,
                                   unit="steps")
            report.save(update_fields=["job"])
    return report


def report_generate(report_id: int, *, job_id: int | None = None, formats: tuple[str, ...] = GrantReport.FORMATS,
                    log: Any = None) -> GrantReport:
    """Gather, build and render every format into REPORTS_DIR/<id>/ (the task and the command call this)."""
    from planner.reports.render_docx import render_docx
    from planner.reports.render_html import render_html
    from planner.reports.render_pdf import render_pdf
    from planner.reports.render_zip import render_zip

    t0 = time.monotonic()
    report = GrantReport.objects.select_related("design", "cluster", "forecast_fit", "sequencer_plan").get(
        pk=report_id)
    report.status = GrantReport.Status.RUNNING
    report.save(update_fields=["status"])
    total = 2 + len(formats)

    def step(i: int, msg: str) -> None:
        if job_id:
            job_progress(job_id, done=i, message=msg)
        if log:
            log(msg)

    if job_id:
        job_running(job_id, total=total, message=STEPS[0])
    step(0, STEPS[0])
    facts = gather_facts(design=report.design, cluster=report.cluster, start=report.period_start,
                         end=report.period_end, forecast=report.forecast_fit, plan=report.sequencer_plan)
    step(1, STEPS[1])
    doc = build_document(facts, report.narrative_overrides)
    report.facts, report.document, report.title = facts, doc.to_dict(), doc.title[:300]
    report.directory.mkdir(parents=True, exist_ok=True)
    renderers = {"pdf": (render_pdf, "report.pdf"), "docx": (render_docx, "report.docx"),
                 "html": (None, "report.html"), "zip": (render_zip, "report-figures-tables.zip")}
    files = {}
    for i, fmt in enumerate(formats, start=2):
        step(i, STEPS[2 + GrantReport.FORMATS.index(fmt)])
        fn, name = renderers[fmt]
        path = report.directory / name
        if fmt == "html":
            path.write_text(render_html(doc), encoding="utf-8")
        else:
            fn(doc, path)  # type: ignore[operator]
        files[fmt] = name
    report.files = files
    report.status = GrantReport.Status.READY
    report.seconds = time.monotonic() - t0
    report.message = f"{len(doc.sections)} sections, {len(doc.tables())} tables, {len(doc.figures())} figures"
    report.save(update_fields=["facts", "document", "title", "files", "status", "seconds", "message"])
    if job_id:
        job_progress(job_id, done=total)
        job_succeeded(job_id, result=report_summary(report, links=True),
                      result_url=reverse("reports:detail", args=[report.pk]),
                      message=report.message)
    return report


def report_fail(report_id: int, job_id: int | None, message: str) -> None:
    GrantReport.objects.filter(pk=report_id).update(status=GrantReport.Status.FAILED, message=message)
    if job_id:
        job_failed(job_id, message=message)


def report_document(report: GrantReport) -> Document | None:
    return Document.from_dict(report.document) if report.document else None


def report_edit_narrative(*, report: GrantReport, edits: dict[str, str], user: Any = None) -> GrantReport:
    """Save paragraph edits as a new version (the edited one stays as it was) and generate it.

    An edit equal to the generated text is not stored as an override, so regenerating with new
    data still refreshes the numbers of paragraphs nobody touched.
    """
    doc = report_document(report)
    generated = {}
    if report.facts:
        generated = {p.key: p.text for p in build_document(report.facts, {}).paragraphs()}
    overrides = dict(report.narrative_overrides or {})
    for key, text in edits.items():
        text = (text or "").replace("\r\n", "\n").strip()
        if doc is not None and key not in {p.key for p in doc.paragraphs()}:
            continue
        if not text or text == generated.get(key, "").strip():
            overrides.pop(key, None)
        else:
            overrides[key] = text
    return report_regenerate(report=report, user=user, overrides=overrides)


def report_regenerate(*, report: GrantReport, user: Any = None, overrides: dict[str, str] | None = None
                      ) -> GrantReport:
    """A new version with the same inputs (and the given or the same overrides), on today's data."""
    return report_create(design=report.design, cluster=report.cluster, start=report.period_start,
                         end=report.period_end, forecast=report.forecast_fit, plan=report.sequencer_plan,
                         overrides=report.narrative_overrides if overrides is None else overrides,
                         parent=report, user=user)


def report_summary(report: GrantReport, *, links: bool = False) -> dict[str, Any]:
    """The JSON the command prints (``files``: paths on the server, for the administrator at its shell) and
    the background job's result (``links``: the files' download URLs; a browser is never told where the
    server keeps its files)."""
    files = ({k: reverse("reports:download", args=[report.pk, k]) for k in (report.files or {})} if links
             else {k: str(report.directory / v) for k, v in (report.files or {}).items()})
    return {
        "report": report.pk, "version": report.version, "status": report.status, "title": report.title,
        "parameters": report.parameters, "files": files,
        "seconds": round(report.seconds, 2), "message": report.message,
        "edited_paragraphs": sorted((report.narrative_overrides or {}).keys()),
    }

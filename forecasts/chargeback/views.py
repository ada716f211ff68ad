"""Chargeback pages: month overview, statements with drill-downs, exports, year to date.

Every read goes through forecasts.chargeback.selectors, which scopes by department: a
department viewer asking for another department's statement gets a 404.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from functools import wraps
from typing import Any

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.http import require_POST

from forecasts.accounting.models import Department, Institution, Project
from forecasts.accounting.selectors import logs_end, logs_partial_months
from forecasts.chargeback import selectors as sel
from forecasts.chargeback.charts import ytd_figure
from forecasts.chargeback.exports import statement_csv, statement_pdf, statement_xlsx
from forecasts.chargeback.models import RatePlan, Statement
from forecasts.chargeback.months import is_provisional as month_is_provisional
from forecasts.chargeback.services import (
    NO_STORAGE_NOTE,
    ChargebackError,
    months_with_usage,
    parse_month,
    statement_is_stale,
)
from forecasts.usage.selectors import usage_months
from planner.audit.events import record_event
from planner.jobs.services import job_start
from planner.roles import planner_required, sees_everything
from planner.web.areas import AREAS_BY_SLUG
from planner.web.edge import bad_request

FIRST_YEAR, LAST_YEAR = 1970, 9999  # what a statement's month can hold (the date type ends at 9999)


class BadParameter(ValueError):
    """A query parameter that cannot be read; the message says which and what it should be."""


def _refusing_bad_parameters(*, as_json: bool = False) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """A view whose unreadable parameter (``BadParameter``) is a 400 saying why: a page, or JSON."""
    def wrap(view: Callable[..., Any]) -> Callable[..., Any]:
        @wraps(view)
        def inner(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            try:
                return view(request, *args, **kwargs)
            except BadParameter as exc:
                if as_json:
                    return JsonResponse({"detail": str(exc)}, status=400)
                return bad_request(request, str(exc))
        return inner
    return wrap


def _month_param(request: HttpRequest, default: date | None) -> date | None:
    text = request.GET.get("month")
    if not text:
        return default
    try:
        month = parse_month(text)
    except ChargebackError as exc:
        raise BadParameter(f"The month parameter: {exc}.") from exc
    if not FIRST_YEAR <= month.year <= LAST_YEAR:
        raise BadParameter(f"The month parameter: {text!r} is out of range; months run from "
                           f"{FIRST_YEAR}-01 to {LAST_YEAR}-12.")
    return month


def _months_by_year(months: list[Any]) -> list[tuple[int, list[str]]]:
    """Every month with usage for the compute form, newest first, grouped by year (a trace loaded for the 1990s
    beside this decade's logs is offered too: the form used to list the last 36 months only)."""
    years: dict[int, list[str]] = {}
    for m in sorted(months, reverse=True):
        years.setdefault(m.year, []).append(f"{m:%Y-%m}")
    return list(years.items())


def _with_note_clause(plans: Any) -> list[Any]:
    """The rate plans with ``note_clause``: the note without its closing full stop, since the page writes it inside
    a sentence it ends itself (the demo's note ended '... $5 per TB-month.' and the page read 'TB-month.. Each')."""
    out = list(plans)
    for p in out:
        p.note_clause = (p.note or "").strip().rstrip(".").rstrip()
    return out


@_refusing_bad_parameters()
def index(request: HttpRequest) -> HttpResponse:
    months = sel.months_with_statements(request.user)
    is_planner = sees_everything(request.user)
    context: dict[str, object] = {"months": months, "is_planner": is_planner,
                                  "plans": RatePlan.objects.all()[:5] if is_planner else [],
                                  "usage_years": _months_by_year(usage_months(user=request.user)) if is_planner
                                  else []}
    if not months:
        context["area"] = AREAS_BY_SLUG["chargeback"]
        return render(request, "chargeback/empty.html", context)
    # the logs may end inside the latest month (exported on the 6th): its statements bill the usage so far, so
    # the page opens on the latest whole month and marks that one (as the dashboard does)
    partials = logs_partial_months()
    whole = [m for m in months if m not in partials]
    month = _month_param(request, whole[0] if whole else months[0])
    partial = (month, partials[month]) if month in partials else None
    statements = sel.month_overview(request.user, month) if month else []
    unassigned = [s for s in statements if s.department.code == Department.UNASSIGNED_CODE]
    context.update({"month": month, "statements": statements, "totals": sel.totals(statements),
                    "departments_count": len(statements) - len(unassigned), "unassigned": unassigned,
                    "partial": partial, "partial_months": list(partials), "logs_end_inside": partial is not None,
                    "provisional": bool(month) and month_is_provisional(month, timezone.now().date()),
                    "no_storage": bool(statements) and all(NO_STORAGE_NOTE in s.notes for s in statements),
                    # the rates the month's figures come from, named on the page that totals them
                    "rate_plans": _with_note_clause(RatePlan.objects.filter(
                        pk__in={s.plan_id for s in statements}).order_by("effective_from")),
                    "unnamed_plans": sorted({s.plan_name for s in statements if s.plan_id is None})})
    if month and not statements:  # nothing computed for this month: say whether there is usage to compute
        logs_ended = logs_end()
        context.update({"month_has_usage": sel.month_has_usage(request.user, month), "logs_ended": logs_ended,
                        "after_logs": logs_ended is not None and month > logs_ended.date()})
    return render(request, "chargeback/index.html", context)


def _project_param(request: HttpRequest, statement: Statement) -> Project | None:
    raw = request.GET.get("project")
    if not raw:
        return None
    if not raw.isdigit() or not statement.lines.filter(project_id=int(raw)).exists():
        raise Http404("That project has no lines on this statement")
    return Project.objects.get(pk=int(raw))


def statement_detail(request: HttpRequest, pk: int) -> HttpResponse:
    statement = sel.statement_get(request.user, pk)
    project = _project_param(request, statement)
    breakdown = sel.statement_breakdown(statement, project.pk if project else None)
    versions = sel.statements_visible(request.user).filter(department=statement.department, month=statement.month)
    top_jobs = statement.top_jobs.all()
    if project is not None:
        top_jobs = top_jobs.filter(project_name=project.name)
    lines = sel.statement_lines(statement, project.pk if project else None)
    return render(request, "chargeback/statement.html", {
        "statement": statement, "project": project, "breakdown": breakdown, "versions": versions,
        "top_jobs": top_jobs, "stale": statement_is_stale(statement) if statement.is_current else "",
        "project_total": sum(ln.amount_usd for ln in lines) if project else None,
        "project_core_hours": sum(ln.core_hours for ln in lines) if project else None,
        "is_planner": sees_everything(request.user),
        "query": f"?project={project.pk}" if project else "",
    })


def _export_name(statement: Statement, project: Project | None, ext: str) -> str:
    suffix = f"-{project.name}" if project else ""
    return f"chargeback-{statement.department.code}{suffix}-{statement.month:%Y-%m}-v{statement.version}.{ext}"


def _downloaded(request: HttpRequest, statement: Statement, project: Project | None, fmt: str) -> None:
    """The audit trail's record of who downloaded which statement (planner.audit.events)."""
    record_event("statement download", obj=statement, actor=request.user, request=request,
                 detail={"format": fmt, "project": project.name if project else "all projects",
                         "version": statement.version})


def statement_export_csv(request: HttpRequest, pk: int) -> HttpResponse:
    statement = sel.statement_get(request.user, pk)
    project = _project_param(request, statement)
    lines = list(sel.statement_lines(statement, project.pk if project else None))
    response = HttpResponse(statement_csv(statement, lines), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{_export_name(statement, project, "csv")}"'
    _downloaded(request, statement, project, "csv")
    return response


def statement_export_xlsx(request: HttpRequest, pk: int) -> HttpResponse:
    statement = sel.statement_get(request.user, pk)
    project = _project_param(request, statement)
    lines = list(sel.statement_lines(statement, project.pk if project else None))
    response = HttpResponse(statement_xlsx(statement, lines),
                            content_type="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet")
    response["Content-Disposition"] = f'attachment; filename="{_export_name(statement, project, "xlsx")}"'
    _downloaded(request, statement, project, "xlsx")
    return response


def statement_export_pdf(request: HttpRequest, pk: int) -> HttpResponse:
    statement = sel.statement_get(request.user, pk)
    project = _project_param(request, statement)
    breakdown = sel.statement_breakdown(statement, project.pk if project else None)
    top_jobs = list(statement.top_jobs.filter(project_name=project.name) if project else statement.top_jobs.all())
    institution = Institution.current()
    pdf = statement_pdf(statement, breakdown, top_jobs, institution=institution.name if institution else "",
                        project_label=f"{project.name} ({project.pi})" if project else "")
    response = HttpResponse(pdf, content_type="application/pdf")
    response["Content-Disposition"] = f'inline; filename="{_export_name(statement, project, "pdf")}"'
    _downloaded(request, statement, project, "pdf")
    return response


def _year(request: HttpRequest, default: int | None) -> int:
    """The ?year= parameter (a year from 1970 to 9999), else ``default`` (``selectors.default_year``)."""
    raw = request.GET.get("year", "").strip()
    if not raw:
        return default if default is not None else date.today().year
    if not raw.isdigit():
        raise BadParameter(f"The year parameter must be a year such as {date.today().year}, not {raw[:40]!r}.")
    if not FIRST_YEAR <= int(raw) <= LAST_YEAR:
        raise BadParameter(f"The year parameter {raw[:40]} is out of range: it must be from {FIRST_YEAR} "
                           f"to {LAST_YEAR}.")
    return int(raw)


@_refusing_bad_parameters()
def department_ytd(request: HttpRequest, code: str) -> HttpResponse:
    department = sel.department_get(request.user, code)
    years = sel.years_of(request.user, department)
    year = _year(request, sel.default_year(request.user, department))
    rows = sel.department_year(request.user, department, year)
    return render(request, "chargeback/ytd.html", {
        "department": department, "year": year, "years": years, "rows": rows,
        "figure": ytd_figure(rows, department.name, year),
        "total": sum((r["total_usd"] for r in rows), 0), "core_hours": sum(r["core_hours"] for r in rows),
        "compute": sum((r["compute_usd"] for r in rows), 0), "storage": sum((r["storage_usd"] for r in rows), 0),
        "adjustments": sum((r["adjustments_usd"] for r in rows), 0),
        "no_storage": bool(rows) and all(NO_STORAGE_NOTE in r["statement"].notes for r in rows),
        "coverage": sel.year_coverage(department, year, [r["month"] for r in rows], timezone.now().date(),
                                      logs_end()),
        "is_planner": sees_everything(request.user),
    })


@_refusing_bad_parameters(as_json=True)
def department_ytd_json(request: HttpRequest, code: str) -> JsonResponse:
    department = sel.department_get(request.user, code)
    year = _year(request, sel.default_year(request.user, department))
    return JsonResponse(ytd_figure(sel.department_year(request.user, department, year), department.name, year))


@_refusing_bad_parameters()
def department_ytd_csv(request: HttpRequest, code: str) -> HttpResponse:
    department = sel.department_get(request.user, code)
    year = _year(request, sel.default_year(request.user, department))
    rows = sel.department_year(request.user, department, year)
    coverage = sel.year_coverage(department, year, [r["month"] for r in rows], timezone.now().date(), logs_end())
    by_month: dict[date, str] = {}
    for r in rows:
        status = "provisional" if r["statement"].is_provisional else "final"
        by_month[r["month"]] = (f"{r['month']:%Y-%m},{status},{r['statement'].version},{r['core_hours']:.4f},"
                                f"{r['compute_usd']},{r['storage_usd']},{r['adjustments_usd']},{r['total_usd']}")
    for m in coverage["not_computed"]:  # usage loaded, no statement: named, so a ledger's sum is not short unseen
        by_month[m] = f"{m:%Y-%m},not computed: usage loaded (python manage.py chargeback --month {m:%Y-%m}),,,,,,"
    lines = ["month,status,version,core_hours,compute_usd,storage_usd,adjustments_usd,total_usd"]
    lines += [by_month[m] for m in sorted(by_month)]
    response = HttpResponse("\n".join(lines) + "\n", content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="chargeback-{department.code}-{year}.csv"'
    return response


@require_POST
@planner_required
def compute(request: HttpRequest) -> HttpResponse:
    """Start a background computation of one month or the last N months with usage."""
    from forecasts.chargeback.tasks import chargeback_compute

    if request.POST.get("month"):
        try:
            months = [f"{parse_month(request.POST['month']):%Y-%m}"]
        except ChargebackError as exc:
            messages.error(request, str(exc))
            return redirect("chargeback")
    else:
        months = [f"{m:%Y-%m}" for m in months_with_usage(last=12)]
    if not months:
        messages.error(request, "No usage is loaded yet: load accounting logs first (python manage.py "
                                "ingest_accounting, or Usage -> Upload a log).")
        return redirect("chargeback")
    if not RatePlan.objects.exists():
        messages.error(request, "No rate plan yet: add one in the admin (Forecasts -> Rate plans).")
        return redirect("chargeback")
    label = f"Chargeback statements {months[0]}" + (f" to {months[-1]}" if len(months) > 1 else "")
    job = job_start(kind="chargeback", label=label, task=chargeback_compute, unit="months", user=request.user,
                    params={"months": months, "department": None, "reason": request.POST.get("reason", "")})
    return redirect("job", pk=job.pk)

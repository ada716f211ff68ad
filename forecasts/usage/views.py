"""Usage pages: monthly core-hours by department (scoped), identity mappings, unassigned usage.

Every read goes through forecasts.usage.selectors.usage_filtered(user=...), so a department
viewer sees only their own departments on the page, in the chart JSON and in the CSV.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, datetime
from functools import wraps
from typing import Any
from urllib.parse import quote

from django import forms
from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.db import transaction
from django.db.models import Max, Min, Sum
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from forecasts.accounting.models import Cluster, Department, Identity, IdentityMapping, Project, UsageMonthly
from forecasts.accounting.org import mappings_import_csv, usage_reattribute
from forecasts.usage import selectors
from forecasts.usage.breaks import usage_breaks
from forecasts.usage.charts import usage_figure
from forecasts.usage.selectors import partial_months, usage_monthly_by_department
from planner.roles import ADMIN, PLANNER, role_of, sees_everything, visible_department_ids
from planner.web.areas import AREAS_BY_SLUG
from planner.web.spreadsheet import safe_writer
from planner.web.textfiles import upload_text


def can_map(user: Any) -> bool:
    """Admins and planners create and edit identity mappings (admins alone manage users)."""
    return role_of(user) in (ADMIN, PLANNER)


def mapping_editor_required(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    @wraps(view)
    def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if not can_map(request.user):
            raise PermissionDenied("Identity mappings are managed by planners and administrators.")
        return view(request, *args, **kwargs)

    return wrapped


# --- Filters -------------------------------------------------------------------------------

def _month(value: str | None) -> date | None:
    """'2024-03' or '2024-03-15' -> 2024-03-01; anything else -> None."""
    value = (value or "").strip()
    try:
        if len(value) == 7:
            return date.fromisoformat(value + "-01")
        if len(value) == 10:
            return date.fromisoformat(value).replace(day=1)
    except ValueError:
        return None
    return None


def month_params(request: HttpRequest) -> tuple[date | None, date | None, list[str]]:
    """?start= and ?end= as first days of months, and what the page should say about them.

    An unreadable month is left out (the range stays open on that side) and named; an inverted
    range is swapped, so the page, its chart and its CSV all show the months asked for.
    """
    notices: list[str] = []
    months: dict[str, date | None] = {}
    for name, label in (("start", "From month"), ("end", "To month")):
        raw = (request.GET.get(name) or "").strip()
        months[name] = _month(raw)
        if raw and months[name] is None:
            notices.append(f"{label} ({name}={raw[:40]!r}) is not a month and was ignored: use YYYY-MM, "
                           f"e.g. 2024-03.")
    start, end = months["start"], months["end"]
    if start and end and start > end:
        notices.append(f"From month {start:%Y-%m} is after To month {end:%Y-%m}: showing {end:%Y-%m} to "
                       f"{start:%Y-%m} instead.")
        start, end = end, start
    return start, end, notices


def usage_filters(request: HttpRequest) -> dict[str, Any]:
    """The selector keyword arguments from GET parameters (cluster, queue, department, start, end)."""
    get = request.GET
    start, end, _ = month_params(request)
    return {
        "user": request.user,
        "cluster": get.get("cluster") or None,
        "queue": get.get("queue") or None,
        "department": get.get("department") or None,
        "start": start,
        "end": end,
    }


def _query_string(request: HttpRequest) -> str:
    return request.GET.urlencode()


def usage_kpis(filters: dict[str, Any]) -> dict[str, Any]:
    return selectors.usage_kpis(**filters)  # cached until the rollups change (forecasts/usage/cache.py)


# --- Pages -----------------------------------------------------------------------------------

def usage(request: HttpRequest) -> HttpResponse:
    """Monthly core-hours by department; the area's empty state until usage is loaded."""
    choices = selectors.usage_choices(user=request.user)
    if not choices["any"]:
        return render(request, "usage/usage_empty.html", {
            "area": AREAS_BY_SLUG["usage"], "planner": sees_everything(request.user),
            "anything_loaded": UsageMonthly.objects.exists(),
        })
    filters = usage_filters(request)
    rows = usage_monthly_by_department(**filters)
    clusters = Cluster.objects.filter(id__in=choices["cluster_ids"])
    partials = partial_months(filters["cluster"], clusters)  # drawn apart on the chart
    partial = partials[-1] if partials else None
    first_parts = sorted(selectors.usage_first_part_months(user=request.user, cluster=filters["cluster"]).items())
    figure = usage_figure(partials=partials, **filters)
    ids = visible_department_ids(request.user)
    departments = Department.objects.all() if ids is None else Department.objects.filter(id__in=ids)
    queues = choices["queues"]
    by_department: dict[str, dict[str, Any]] = {}
    for r in rows:
        d = by_department.setdefault(r["department__code"], {
            "code": r["department__code"], "name": r["department__name"], "core_hours": 0.0, "jobs": 0})
        d["core_hours"] += r["core_hours"] or 0
        d["jobs"] += r["jobs"] or 0
    kpis = usage_kpis(filters)
    table = sorted(by_department.values(), key=lambda d: -d["core_hours"])
    for d in table:
        d["share"] = d["core_hours"] / kpis["core_hours"] if kpis["core_hours"] else 0
    return render(request, "usage/usage.html", {
        "figure": figure, "partial": partial, "earlier_partials": partials[:-1], "first_parts": first_parts,
        # part months are low for another reason: left out
        "breaks": usage_breaks(rows, {p[0] for p in partials} | {m for m, _ in first_parts}),
        "kpis": kpis, "table": table,
        "filters": filters,
        "query": _query_string(request),
        "clusters": clusters, "queues": queues, "departments": departments,
        "start_value": f"{filters['start']:%Y-%m}" if filters["start"] else "",
        "end_value": f"{filters['end']:%Y-%m}" if filters["end"] else "",
        "date_notices": month_params(request)[2],
        "planner": sees_everything(request.user), "is_admin": role_of(request.user) == ADMIN,
        "can_map": can_map(request.user),
    })


def usage_chart_json(request: HttpRequest) -> JsonResponse:
    """The usage page's figure as JSON, with the same filters and the same scoping."""
    filters = usage_filters(request)
    clusters = Cluster.objects.filter(id__in=selectors.usage_choices(user=request.user)["cluster_ids"])
    return JsonResponse(usage_figure(partials=partial_months(filters["cluster"], clusters), **filters))


def usage_csv(request: HttpRequest) -> HttpResponse:
    """The chart's data: one row per month and department the caller may see."""
    filters = usage_filters(request)
    rows = usage_monthly_by_department(**filters)
    partials = selectors.usage_partial_months(user=request.user, cluster=filters["cluster"])
    firsts = selectors.usage_first_part_months(user=request.user, cluster=filters["cluster"])
    response = HttpResponse(content_type="text/csv")
    response["Content-Disposition"] = 'attachment; filename="usage-monthly-by-department.csv"'
    writer = safe_writer(response)
    # months are UTC calendar months by job end; `partial` names a month the logs end inside (usage so far)
    writer.writerow(["month", "department_code", "department", "core_hours", "jobs", "active_users", "partial"])
    for r in rows:
        writer.writerow([r["month"].isoformat()[:7], r["department__code"], r["department__name"],
                         f"{r['core_hours'] or 0:.2f}", r["jobs"], r["users"],
                         partial_note(partials.get(r["month"]), firsts.get(r["month"]))])
    return response


def partial_note(logs_end: datetime | None, logs_start: datetime | None = None) -> str:
    """What a CSV row of a month the logs end or begin inside says about it ('' for a whole month)."""
    notes = [f"logs begin {logs_start:%Y-%m-%d}: part month"] if logs_start else []
    notes += [f"logs end {logs_end:%Y-%m-%d}: usage so far"] if logs_end else []
    return "; ".join(notes)


# --- Identity mappings (admins) ----------------------------------------------------------------

class MappingUploadForm(forms.Form):
    file = forms.FileField(label="Mappings CSV",
                           help_text="Columns: kind,name,department,project,valid_from,valid_to")


@mapping_editor_required
def mappings(request: HttpRequest) -> HttpResponse:
    result = None
    form = MappingUploadForm()
    if request.method == "POST":
        form = MappingUploadForm(request.POST, request.FILES)
        if form.is_valid():
            upload = form.cleaned_data["file"]
            try:
                text = upload_text(upload.read(), upload.name)
                result = mappings_import_csv(text, filename=upload.name)
            except ValueError as exc:  # UploadTextError too
                form.add_error("file", str(exc))
    rows = IdentityMapping.objects.select_related("department", "project")
    q = request.GET.get("q", "").strip()
    if q:
        rows = rows.filter(name__icontains=q)
    page = Paginator(rows, 50).get_page(request.GET.get("page"))
    return render(request, "usage/mappings.html", {
        "form": form, "result": result, "page": page, "mappings": page.object_list, "q": q,
        "total": IdentityMapping.objects.count(),
    })


def unassigned_identities(cluster: str = "") -> Any:
    """Identities with usage in the Unassigned bucket (on ``cluster`` only, when named), the biggest first."""
    rows = UsageMonthly.objects.filter(department__code="unassigned")
    return ((rows.filter(cluster__name=cluster) if cluster else rows)
            .values("identity_id", "identity__user", "identity__group", "identity__account")
            .annotate(jobs=Sum("jobs"), core_hours=Sum("core_hours"), first=Min("month"), last=Max("month"))
            .order_by("-core_hours"))


class MapIdentityForm(forms.Form):
    identity = forms.ModelChoiceField(queryset=Identity.objects.all(), widget=forms.HiddenInput)
    kind = forms.ChoiceField(choices=IdentityMapping.Kind.choices)
    department = forms.ModelChoiceField(queryset=Department.objects.exclude(code="unassigned"))
    project = forms.ModelChoiceField(queryset=Project.objects.all(), required=False)
    valid_from = forms.DateField(required=False)

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        identity, kind = data.get("identity"), data.get("kind")
        if identity and kind:
            name = getattr(identity, kind)
            if not name:
                raise forms.ValidationError(f"This identity has no {kind}; map it by another field.")
            data["name"] = name
        project = data.get("project")
        if project and data.get("department") and project.department_id != data["department"].pk:
            raise forms.ValidationError(f"Project {project} belongs to {project.department}, not {data['department']}.")
        return data


@mapping_editor_required
def unassigned(request: HttpRequest) -> HttpResponse:
    return render(request, "usage/unassigned.html", _unassigned_context(request))


def _unassigned_context(request: HttpRequest, form: MapIdentityForm | None = None) -> dict[str, Any]:
    # ?cluster=NAME: the identities a newly loaded cluster brought (its ingest run's "Map them" link), whose
    # total is the one that run's page quotes; the other clusters' Unassigned usage is not mixed in
    unassigned = UsageMonthly.objects.filter(department__code="unassigned")
    clusters = list(unassigned.order_by("cluster__name").values_list("cluster__name", flat=True).distinct())
    cluster = (request.GET.get("cluster") or request.POST.get("cluster") or "").strip()
    cluster = cluster if cluster in clusters else ""
    page = Paginator(unassigned_identities(cluster), 50).get_page(request.GET.get("page"))
    totals = (unassigned.filter(cluster__name=cluster) if cluster else unassigned).aggregate(
        jobs=Sum("jobs"), core_hours=Sum("core_hours"))
    return {
        "page": page, "rows": page.object_list, "form": form, "cluster": cluster, "clusters": clusters,
        "departments": Department.objects.exclude(code="unassigned"),
        "projects": Project.objects.select_related("department"),
        "kinds": IdentityMapping.Kind.choices, "totals": totals,
    }


@require_POST
@mapping_editor_required
def unassigned_map(request: HttpRequest) -> HttpResponse:
    """Map one identity by its user, group or account; its usage moves at once."""
    form = MapIdentityForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Not mapped: " + "; ".join(e for errs in form.errors.values() for e in errs))
        return render(request, "usage/unassigned.html", _unassigned_context(request, form), status=400)
    data = form.cleaned_data
    with transaction.atomic():
        mapping, _ = IdentityMapping.objects.update_or_create(
            kind=data["kind"], name=data["name"], valid_from=data["valid_from"] or date(1970, 1, 1),
            defaults={"department": data["department"], "project": data["project"],
                      "note": f"mapped from the Unassigned list by {request.user.get_username()}"},
        )
        moved = usage_reattribute()
    messages.success(request, f"Mapped {mapping.kind} {mapping.name} to {mapping.department}: "
                              f"{moved:,} monthly usage rows re-attributed.")
    cluster = (request.POST.get("cluster") or "").strip()
    return redirect(reverse("usage-unassigned") + (f"?cluster={quote(cluster)}" if cluster else ""))

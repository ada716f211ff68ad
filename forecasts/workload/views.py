"""Workload and storage characterisation pages (/usage/workload/, /usage/storage/).

Every number comes from forecasts.workload.selectors / selectors_storage called with the
requesting user, so a department viewer's page, chart data and CSV cover their departments only.
"""

from __future__ import annotations

from typing import Any

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

from forecasts.accounting.models import Cluster, Project
from forecasts.storage.models import StorageSnapshot
from forecasts.storage.selectors import storage_overview
from forecasts.storage.services import snapshot_message
from forecasts.usage.selectors import usage_queue_names
from forecasts.usage.views import month_params
from forecasts.workload.charts import csv_rows, figures, storage_figures
from forecasts.workload.selectors import departments_visible, workload_report
from planner.roles import sees_everything
from planner.web.spreadsheet import safe_writer


def _filters(request: HttpRequest, **override: Any) -> dict[str, Any]:
    g = request.GET
    start, end, _ = month_params(request)  # as the Usage page reads them: an inverted range swapped
    return {"user": request.user, "cluster": g.get("cluster") or None, "start": start,
            "end": end, "department": override.get("department") or g.get("department") or None,
            "project": g.get("project") or None, "queue": g.get("queue") or None}


def workload(request: HttpRequest, department: str | None = None) -> HttpResponse:
    filters = _filters(request, department=department)
    report = workload_report(**filters)
    depts = departments_visible(request.user)
    if department and department not in {d.code for d in depts}:
        raise Http404("No such department, or not one of yours.")
    context = {
        "report": report, "t": report["table1"], "shape": report["shape"],
        "chart_list": [{"key": k, "id": f"fig-{k}", "fig": f} for k, f in figures(report).items()],
        "filters": filters, "query": request.GET.urlencode(), "planner": sees_everything(request.user),
        "clusters": Cluster.objects.order_by("name"), "departments": depts,
        "projects": Project.objects.filter(department__in=depts).order_by("name"),
        "queues": usage_queue_names(user=request.user),
        "start_value": filters["start"].isoformat()[:7] if filters["start"] else "",
        "end_value": filters["end"].isoformat()[:7] if filters["end"] else "",
        "drill": next((d for d in depts if d.code == department), None),
        "date_notices": month_params(request)[2],
        "charts": ["size", "runtime", "request", "ratio", "wait", "utilisation", "growth"],
    }
    return render(request, "usage/workload.html", context)


def workload_csv(request: HttpRequest, chart: str) -> HttpResponse:
    report = workload_report(**_filters(request))
    table = csv_rows(report, chart)
    if table is None:
        raise Http404("No such chart.")
    response = HttpResponse(content_type="text/csv")
    response["Content-Disposition"] = f'attachment; filename="workload-{chart}.csv"'
    writer = safe_writer(response)
    writer.writerow(table[0])
    writer.writerows(table[1])
    return response


def workload_json(request: HttpRequest) -> HttpResponse:
    from django.http import JsonResponse

    return JsonResponse(workload_report(**_filters(request)))


def storage(request: HttpRequest) -> HttpResponse:
    overview = storage_overview(user=request.user, filesystem=request.GET.get("filesystem") or None)
    figs = storage_figures(overview["stats"], overview["by_department"]) if overview["filesystem"] else {}
    loaded = None  # the scan an upload just loaded (?snapshot=ID, where the progress bar lands)
    if sees_everything(request.user) and (request.GET.get("snapshot") or "").isdigit():
        loaded = StorageSnapshot.objects.select_related("filesystem").filter(pk=request.GET["snapshot"]).first()
    return render(request, "usage/storage.html", {**overview,
                                                  "chart_list": [{"key": k, "id": f"sfig-{k}", "fig": f}
                                                                 for k, f in figs.items()],
                                                  "planner": sees_everything(request.user), "loaded": loaded,
                                                  "loaded_message": snapshot_message(loaded) if loaded else ""})


def storage_csv(request: HttpRequest) -> HttpResponse:
    overview = storage_overview(user=request.user, filesystem=request.GET.get("filesystem") or None)
    response = HttpResponse(content_type="text/csv")
    response["Content-Disposition"] = 'attachment; filename="storage-by-department.csv"'
    writer = safe_writer(response)
    writer.writerow(["filesystem", "taken_on", "department", "bytes", "files"])
    for r in overview["by_department"]:
        writer.writerow([overview["filesystem"].name, r["taken_on"], r["department"], r["bytes"], r["files"]])
    return response

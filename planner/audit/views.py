"""The audit page and its CSV export: admins and finance only, read-only (no form changes a record)."""

from __future__ import annotations

from datetime import date
from typing import Any

from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import render

from planner.audit.events import EVENTS
from planner.audit.registry import AUDITED
from planner.audit.selectors import (
    ACTIONS,
    CSV_HEADER,
    AuditFilters,
    FieldLabels,
    action_label,
    actor_label,
    audit_csv_rows,
    audit_entries,
    changes_of,
    kind_label,
)
from planner.roles import audit_required
from planner.web.spreadsheet import safe_writer

PAGE_SIZE = 50


def _date(value: str | None) -> date | None:
    try:
        return date.fromisoformat(value) if value else None
    except ValueError:
        return None


def _filters(request: HttpRequest) -> tuple[AuditFilters, list[str]]:
    g = request.GET
    problems = []
    since, until = _date(g.get("since")), _date(g.get("until"))
    for key, parsed in (("since", since), ("until", until)):
        if g.get(key) and parsed is None:
            problems.append(f"{key}: {g.get(key)!r} is not a date (YYYY-MM-DD); ignored")
    kind = g.get("kind", "")
    if kind and kind not in AUDITED and kind not in EVENTS:
        problems.append(f"kind: {kind!r} is not one of {', '.join([*AUDITED, *EVENTS])}; ignored")
        kind = ""
    return AuditFilters(kind=kind, actor=g.get("actor", "").strip()[:150], text=g.get("q", "").strip()[:200],
                        since=since, until=until, action=g.get("action", "")), problems


class _Echo:
    def write(self, value: str) -> str:
        return value


@audit_required
def audit_page(request: HttpRequest) -> HttpResponse:
    filters, problems = _filters(request)
    page = Paginator(audit_entries(filters), PAGE_SIZE).get_page(request.GET.get("page"))
    labels = FieldLabels()
    rows: list[dict[str, Any]] = [
        {"entry": e, "kind": kind_label(e), "actor": actor_label(e), "action": action_label(e),
         "changes": changes_of(e, labels)} for e in page.object_list]
    query = request.GET.copy()
    query.pop("page", None)
    return render(request, "audit/audit.html", {
        "rows": rows, "page": page, "filters": filters, "problems": problems, "kinds": [*AUDITED, *EVENTS],
        "events": list(EVENTS),
        "actions": list(dict.fromkeys([*ACTIONS.values(), *EVENTS.values()])), "query": query.urlencode()})


@audit_required
def audit_csv(request: HttpRequest) -> StreamingHttpResponse:
    filters, _ = _filters(request)
    writer = safe_writer(_Echo())

    def lines() -> Any:
        yield writer.writerow(CSV_HEADER)
        for row in audit_csv_rows(audit_entries(filters)):
            yield writer.writerow([str(cell) for cell in row])

    response = StreamingHttpResponse(lines(), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="audit-{date.today():%Y%m%d}.csv"'
    return response

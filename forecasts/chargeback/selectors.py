"""Reads of chargeback statements, scoped to what the user may see (planner.roles decides)."""

from __future__ import annotations

from collections import defaultdict
from datetime import date, datetime
from decimal import Decimal
from typing import Any

from django.db.models import Case, Count, IntegerField, QuerySet, Sum, Value, When
from django.http import Http404

from forecasts.accounting.models import Department, UsageMonthly
from forecasts.accounting.selectors import logs_partial_months
from forecasts.chargeback.models import Statement, StatementLine, statements_logs_end
from planner.roles import scope_by_department


def statements_visible(user: Any) -> QuerySet[Statement]:
    """Every version the user may see; a department viewer only their departments'."""
    return scope_by_department(Statement.objects.select_related("department"), user)


def statement_get(user: Any, pk: int) -> Statement:
    """One statement or 404: another department's statement does not exist for a viewer."""
    statement = statements_visible(user).select_related("plan").filter(pk=pk).first()
    if statement is None:
        raise Http404("No such statement")
    return statement


def department_get(user: Any, code: str) -> Department:
    departments = scope_by_department(Department.objects.all(), user, field="id")
    department = departments.filter(code=code).first()
    if department is None:
        raise Http404("No such department")
    return department


def months_with_statements(user: Any) -> list[date]:
    return list(statements_visible(user).filter(is_current=True).order_by("-month")
                .values_list("month", flat=True).distinct())


# The order the rule applies them (forecasts/chargeback/rates.py, rule 4): charges, then the subsidy, then the
# cap on what the subsidy leaves; read top down, each adjustment follows what it was computed from.
_KIND_ORDER = Case(*(When(kind=kind, then=Value(i)) for i, kind in enumerate(
    [StatementLine.Kind.COMPUTE, StatementLine.Kind.STORAGE, StatementLine.Kind.SUBSIDY, StatementLine.Kind.CAP])),
    default=Value(9), output_field=IntegerField())


def lines_in_rule_order(lines: QuerySet[StatementLine]) -> QuerySet[StatementLine]:
    return lines.order_by(_KIND_ORDER, "-amount_usd", "pk")


def statement_lines(statement: Statement, project: int | None = None) -> QuerySet[StatementLine]:
    lines = lines_in_rule_order(statement.lines.all())
    if project is not None:
        lines = lines.filter(project_id=project)
    return lines


def _grouped(lines: QuerySet[StatementLine], *fields: str) -> list[dict[str, Any]]:
    return list(
        lines.filter(kind=StatementLine.Kind.COMPUTE).values(*fields)
        .annotate(jobs=Sum("jobs"), core_hours=Sum("core_hours"), gpu_hours=Sum("gpu_hours"),
                  amount_usd=Sum("amount_usd"), lines=Count("id"))
        .order_by("-amount_usd", *fields)
    )


def statement_breakdown(statement: Statement, project: int | None = None) -> dict[str, Any]:
    """The drill-downs of a statement: by project/PI, by user, by queue and QOS."""
    lines = statement_lines(statement, project)
    return {
        "projects": _grouped(lines, "project_id", "project_name", "pi"),
        "users": _grouped(lines, "user", "project_name"),
        "queues": _grouped(lines, "cluster", "queue", "qos", "rate", "multiplier"),
        "storage": list(lines.filter(kind=StatementLine.Kind.STORAGE)),
        "adjustments": list(lines.filter(kind__in=[StatementLine.Kind.SUBSIDY, StatementLine.Kind.CAP]))
        if project is None else [],
    }


def department_year(user: Any, department: Department, year: int) -> list[dict[str, Any]]:
    """Current statements of a department's year, month by month (missing months omitted)."""
    rows = statements_logs_end(statements_visible(user).filter(department=department, is_current=True,
                                                               month__year=year).order_by("month"))
    return [{"statement": s, "month": s.month, "compute_usd": s.compute_usd, "storage_usd": s.storage_usd,
             "adjustments_usd": s.subsidy_usd + s.cap_usd, "total_usd": s.total_usd, "core_hours": s.core_hours}
            for s in rows]


def year_coverage(department: Department, year: int, statement_months: list[date], today: date,
                  logs_ended: datetime | None = None) -> dict[str, Any]:
    """Which months of ``year`` a year-to-date total covers, and which it leaves out and why.

    The months counted are January to December (to the current month in the current year; none
    in a future year), and no later than the month the logs end in (``logs_ended``): a month after
    the logs end is named as such ("after_logs"), not as a month without usage. A month without a
    current statement is named either as "usage loaded, statement not computed" (the total is short
    of it until someone computes it) or as "no usage loaded" (nothing to bill, as far as the product
    knows).
    """
    last = 12 if year < today.year else (today.month if year == today.year else 0)
    have = {m.replace(day=1) for m in statement_months}
    used = set(UsageMonthly.objects.filter(department=department, month__year=year)
               .values_list("month", flat=True).distinct())
    in_year = [date(year, m, 1) for m in range(1, last + 1)]
    logs_month = logs_ended.date().replace(day=1) if logs_ended is not None else None
    after = [m for m in in_year if logs_month is not None and m > logs_month and m not in have]
    expected = [m for m in in_year if m not in after]
    missing = [m for m in expected if m not in have]
    return {"included": sorted(have), "expected": expected, "after_logs": after, "logs_end": logs_ended,
            "logs_end_in_year": logs_ended is not None and logs_ended.year == year,
            "not_computed": [m for m in missing if m in used], "no_usage": [m for m in missing if m not in used]}


def default_year(user: Any, department: Department) -> int | None:
    """The year the department's page opens on: that of its latest statement of a whole month (the month
    the logs end inside bills the usage so far), else of its latest statement; None without statements."""
    months = list(statements_visible(user).filter(department=department, is_current=True)
                  .order_by("-month").values_list("month", flat=True).distinct())
    partial = logs_partial_months()
    whole = [m for m in months if m not in partial]
    return (whole or months)[0].year if months else None


def month_overview(user: Any, month: date) -> list[Statement]:
    """The month's current statements, the departments by name and the Unassigned bucket (jobs with no
    department: not a department, but its charge keeps the totals whole) last."""
    rows = statements_visible(user).filter(month=month, is_current=True).order_by("department__name")
    return sorted(statements_logs_end(rows), key=lambda s: s.department.code == Department.UNASSIGNED_CODE)


def month_has_usage(user: Any, month: date) -> bool:
    """Whether usage of the user's departments is loaded for ``month`` (statements can be computed)."""
    return scope_by_department(UsageMonthly.objects.filter(month=month), user).exists()


def years_of(user: Any, department: Department) -> list[int]:
    months = statements_visible(user).filter(department=department).values_list("month", flat=True).distinct()
    return sorted({m.year for m in months}, reverse=True)


def totals(statements: list[Statement]) -> dict[str, Decimal | float]:
    out: dict[str, Any] = defaultdict(Decimal)
    for s in statements:
        for key in ("compute_usd", "storage_usd", "subsidy_usd", "cap_usd", "total_usd"):
            out[key] += getattr(s, key)
    out["core_hours"] = sum(s.core_hours for s in statements)
    return dict(out)


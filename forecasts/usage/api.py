"""REST API for monthly usage (everyone, scoped to the departments they may see).

GET /api/v1/usage/monthly/ answers monthly core-hours by department from the rollups.
"""

from __future__ import annotations

from django.urls import path
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.decorators import api_view
from rest_framework.request import Request
from rest_framework.response import Response

from forecasts.usage.selectors import usage_first_part_months, usage_monthly_by_department, usage_partial_months
from forecasts.usage.views import _month


class UsageMonthlyOut(serializers.Serializer):
    month = serializers.CharField(help_text="YYYY-MM (UTC calendar month of job end)")
    department = serializers.CharField(help_text="department code")
    department_name = serializers.CharField()
    core_hours = serializers.FloatField(help_text="allocated cores x wall hours")
    jobs = serializers.IntegerField()
    users = serializers.IntegerField(help_text="distinct scheduler users active in the month")
    partial = serializers.BooleanField(help_text="the accounting logs begin or end inside this month: a part month")
    logs_end = serializers.DateTimeField(allow_null=True, help_text="where the logs end, in the month they end inside")
    logs_start = serializers.DateTimeField(allow_null=True,
                                           help_text="where the logs begin, in the month they begin inside")


@extend_schema(
    parameters=[OpenApiParameter(n, str, required=False, description=d) for n, d in (
        ("cluster", "cluster name"), ("department", "department code"), ("queue", "queue / partition"),
        ("start", "first month, YYYY-MM"), ("end", "last month, YYYY-MM"))],
    responses=UsageMonthlyOut(many=True),
)
@api_view(["GET"])
def usage_monthly(request: Request) -> Response:
    """Monthly core-hours, jobs and active users per department; department viewers get only theirs."""
    get = request.query_params
    cluster = get.get("cluster") or None
    partials = usage_partial_months(user=request.user, cluster=cluster)
    firsts = usage_first_part_months(user=request.user, cluster=cluster)
    rows = usage_monthly_by_department(
        user=request.user, cluster=cluster, queue=get.get("queue") or None,
        department=get.get("department") or None, start=_month(get.get("start")), end=_month(get.get("end")),
    )
    return Response([{
        "month": r["month"].isoformat()[:7], "department": r["department__code"],
        "department_name": r["department__name"], "core_hours": round(r["core_hours"] or 0, 4),
        "jobs": r["jobs"], "users": r["users"], "partial": r["month"] in partials or r["month"] in firsts,
        "logs_end": partials[r["month"]].isoformat() if r["month"] in partials else None,
        "logs_start": firsts[r["month"]].isoformat() if r["month"] in firsts else None,
    } for r in rows])


urlpatterns = [
    path("usage/monthly/", usage_monthly, name="api-usage-monthly"),
]

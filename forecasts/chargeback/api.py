"""REST API for chargeback statements, mounted at /api/v1/chargeback/.

GET  statements/?month=YYYY-MM[&department=CODE][&all_versions=1]  statements the caller may see
GET  statements/{id}/                                             one statement with its lines and largest jobs
POST statements/compute/ {"month": "YYYY-MM", "department": "ggs"} planners and admins: compute now,
                                                                   returns the same summary as the command
Rows are scoped in one place (``get_queryset`` -> selectors_chargeback.statements_visible):
a department viewer sees only their departments' statements; others are 404.
"""

from __future__ import annotations

from typing import Any

from django.db import DatabaseError
from django.db.models import Prefetch
from django.urls import include, path
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_field
from rest_framework import serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.routers import SimpleRouter

from forecasts.chargeback.models import Statement, StatementJob, StatementLine, statements_logs_end
from forecasts.chargeback.selectors import lines_in_rule_order, statements_visible
from forecasts.chargeback.services import ChargebackError, parse_month, statements_compute
from planner.roles import IsPlanner


class LineOut(serializers.ModelSerializer):
    class Meta:
        model = StatementLine
        fields = ["kind", "project_name", "pi", "user", "cluster", "queue", "qos", "filesystem", "tier", "jobs",
                  "core_hours", "gpu_hours", "mem_gb_hours", "tb", "rate", "multiplier", "amount_usd"]


class JobOut(serializers.ModelSerializer):
    class Meta:
        model = StatementJob
        fields = ["cluster", "job_id", "user", "project_name", "queue", "qos", "cores", "gpus", "wall_hours",
                  "core_hours", "amount_usd"]


@extend_schema_field({"type": "string", "pattern": r"^\d{4}-(0[1-9]|1[0-2])$", "example": "2024-03"})
class MonthField(serializers.DateField):
    """A statement's month, written YYYY-MM (the schema said an ISO date, which the body never was)."""


class StatementOut(serializers.ModelSerializer):
    department = serializers.SlugRelatedField(slug_field="code", read_only=True)
    department_name = serializers.CharField(source="department.name", read_only=True)
    month = MonthField(format="%Y-%m", read_only=True)
    provisional = serializers.BooleanField(source="is_provisional", read_only=True,
                                           help_text="figures will still change: the month is in progress, "
                                                     "or the accounting logs end inside it (usage so far)")
    provisional_reason = serializers.CharField(read_only=True, help_text="why it is provisional ('' when final), "
                                               "e.g. 'logs end on 6 January 2020: usage so far'")

    class Meta:
        model = Statement
        fields = ["id", "department", "department_name", "month", "provisional", "provisional_reason", "version",
                  "is_current", "plan_name", "computed_at", "reason", "jobs", "core_hours", "gpu_hours", "storage_tb",
                  "compute_usd", "storage_usd", "subsidy_usd", "cap_usd", "total_usd", "notes"]


class StatementDetailOut(StatementOut):
    lines = LineOut(many=True, read_only=True)
    top_jobs = JobOut(many=True, read_only=True)

    class Meta(StatementOut.Meta):
        fields = [*StatementOut.Meta.fields, "lines", "top_jobs"]


class ComputeIn(serializers.Serializer):
    month = serializers.CharField(help_text="YYYY-MM (UTC calendar month by job end)")
    department = serializers.SlugField(required=False, allow_blank=True, help_text="only this department (code)")
    reason = serializers.CharField(required=False, allow_blank=True, max_length=200)

    def validate_month(self, value: str) -> str:
        try:
            parse_month(value)
        except ChargebackError as exc:
            raise serializers.ValidationError(str(exc)) from exc
        return value


class StatementViewSet(viewsets.ReadOnlyModelViewSet):
    """Monthly chargeback statements (current versions unless all_versions=1)."""

    serializer_class = StatementOut

    def get_queryset(self) -> Any:
        rows = statements_visible(self.request.user).select_related("department")
        if self.action == "list":
            params = self.request.query_params
            if month := params.get("month"):
                try:
                    rows = rows.filter(month=parse_month(month))
                except ChargebackError as exc:
                    raise serializers.ValidationError({"month": str(exc)}) from exc
            if department := params.get("department"):
                rows = rows.filter(department__code=department)
            if params.get("all_versions") not in ("1", "true"):
                rows = rows.filter(is_current=True)
        else:
            rows = rows.prefetch_related(Prefetch("lines", queryset=lines_in_rule_order(StatementLine.objects.all())),
                                         "top_jobs")
        return rows.order_by("-month", "department__name", "-version")

    def get_serializer(self, *args: Any, **kwargs: Any) -> Any:
        if args and isinstance(args[0], list):  # a page of statements: where the logs end, read once
            args = (statements_logs_end(args[0]), *args[1:])
        return super().get_serializer(*args, **kwargs)

    def get_serializer_class(self) -> Any:
        return StatementDetailOut if self.action == "retrieve" else StatementOut

    @extend_schema(parameters=[
        OpenApiParameter("month", str, description="YYYY-MM"),
        OpenApiParameter("department", str, description="department code"),
        OpenApiParameter("all_versions", bool, description="include superseded versions"),
    ])
    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().list(request, *args, **kwargs)

    @extend_schema(request=ComputeIn, responses={201: dict})
    @action(detail=False, methods=["post"], permission_classes=[IsPlanner])
    def compute(self, request: Request) -> Response:
        """Compute (or re-compute) a month's statements now; the JSON is the command's summary."""
        data = ComputeIn(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            result = statements_compute(month=parse_month(data.validated_data["month"]),
                                        department=data.validated_data.get("department") or None,
                                        user=request.user, reason=data.validated_data.get("reason", ""))
        except ChargebackError as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_400_BAD_REQUEST)
        except DatabaseError as exc:
            return Response({"detail": f"database error: {str(exc).strip().splitlines()[0]}"},
                            status=status.HTTP_503_SERVICE_UNAVAILABLE)
        return Response(result.summary(), status=status.HTTP_201_CREATED)


router = SimpleRouter()
router.register("statements", StatementViewSet, basename="chargeback-statement")

urlpatterns = [path("chargeback/", include(router.urls))]

"""REST API for grant reports (/api/v1/reports/): create (-> a job), list, detail with download links.

Planners and admins only (IsPlanner), as the pages; downloads go through the same guarded page URLs.
"""

from __future__ import annotations

from typing import Any

from django.urls import reverse
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.routers import SimpleRouter

from forecasts.accounting.models import Cluster
from forecasts.demand.models import ForecastFit, SequencerPlan
from planner.designs.models import Design
from planner.reports.inputs import period_problem
from planner.reports.models import GrantReport
from planner.reports.services import report_create
from planner.roles import IsPlanner


class ReportCreateSerializer(serializers.Serializer):
    design = serializers.PrimaryKeyRelatedField(queryset=Design.objects.all(), help_text="design id")
    cluster = serializers.SlugRelatedField(slug_field="name", queryset=Cluster.objects.all(), required=False,
                                           allow_null=True, help_text="cluster name; omit for all clusters")
    start = serializers.DateField(required=False, allow_null=True, help_text="first month (YYYY-MM-01)")
    end = serializers.DateField(required=False, allow_null=True, help_text="last month (YYYY-MM-01)")
    forecast = serializers.PrimaryKeyRelatedField(
        queryset=ForecastFit.objects.all(), required=False, allow_null=True,
        help_text="forecast fit id; omit for the one the design links (another is shown as context)")
    sequencer_plan = serializers.PrimaryKeyRelatedField(
        queryset=SequencerPlan.objects.all(), required=False, allow_null=True,
        help_text="sequencer plan id; omit for the one the design links (another is shown as context)")
    narrative_overrides = serializers.DictField(child=serializers.CharField(), required=False)

    def validate(self, data: dict[str, Any]) -> dict[str, Any]:
        if bool(data.get("start")) != bool(data.get("end")):
            raise serializers.ValidationError("give both start and end, or neither for all usage")
        if data.get("start") and data.get("end") and data["start"] > data["end"]:
            raise serializers.ValidationError("start is after end")
        problem = period_problem(data.get("cluster"), data.get("start"), data.get("end"))
        if problem:
            raise serializers.ValidationError(problem)
        return data


class ReportSerializer(serializers.ModelSerializer):
    downloads = serializers.SerializerMethodField()
    page = serializers.SerializerMethodField()
    job_status = serializers.SerializerMethodField()

    class Meta:
        model = GrantReport
        fields = ["id", "version", "parent", "title", "status", "message", "design", "cluster", "period_start",
                  "period_end", "forecast_fit", "sequencer_plan", "parameters", "narrative_overrides",
                  "created_at", "seconds", "job", "job_status", "page", "downloads"]

    def get_downloads(self, obj: GrantReport) -> dict[str, str]:
        return {fmt: reverse("reports:download", args=[obj.pk, fmt]) for fmt in (obj.files or {})}

    def get_page(self, obj: GrantReport) -> str:
        return reverse("reports:detail", args=[obj.pk])

    def get_job_status(self, obj: GrantReport) -> str | None:
        return reverse("job-json", args=[obj.job_id]) if obj.job_id else None


class ReportViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, mixins.CreateModelMixin,
                    viewsets.GenericViewSet):
    permission_classes = [IsPlanner]
    serializer_class = ReportSerializer
    queryset = GrantReport.objects.select_related("design", "cluster").order_by("-created_at")

    def get_serializer_class(self) -> Any:
        return ReportCreateSerializer if self.action == "create" else ReportSerializer

    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        s = ReportCreateSerializer(data=request.data)
        s.is_valid(raise_exception=True)
        d = s.validated_data
        report = report_create(design=d["design"], cluster=d.get("cluster"), start=d.get("start"),
                               end=d.get("end"), forecast=d.get("forecast"), plan=d.get("sequencer_plan"),
                               overrides=d.get("narrative_overrides"), user=request.user)
        return Response(ReportSerializer(report).data, status=status.HTTP_202_ACCEPTED)


router = SimpleRouter()
router.register("reports", ReportViewSet, basename="report")

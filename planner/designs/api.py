"""REST API for the catalog, designs, evaluations and optimiser runs (/api/v1/...), planners and admins only."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.urls import reverse
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.routers import SimpleRouter

from planner.designs.labels import run_status
from planner.designs.models import Design, DesignEvaluation, OptimizerRun
from planner.designs.scenario import ScenarioError
from planner.designs.services import (
    design_create,
    design_evaluate,
    design_latest_evaluation,
    optimizer_run_start,
)
from planner.hardware.catalog import BENCHMARK_POSITIVE, NODE_POSITIVE, STORAGE_POSITIVE, number_problems
from planner.hardware.models import Benchmark, NodeType, StorageSystem
from planner.hardware.services import CatalogImportError
from planner.roles import IsPlanner
from planner.web.yaml_lines import with_lines


class NodeTypeSerializer(serializers.ModelSerializer):
    class Meta:
        model = NodeType
        exclude = ["updated_at"]

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        problems = number_problems(attrs, NODE_POSITIVE)  # the catalog's own rule
        if problems:
            raise serializers.ValidationError(problems)
        return attrs


class StorageSystemSerializer(serializers.ModelSerializer):
    class Meta:
        model = StorageSystem
        exclude = ["updated_at"]

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        problems = number_problems(attrs, STORAGE_POSITIVE)
        if problems:
            raise serializers.ValidationError(problems)
        return attrs


class BenchmarkSerializer(serializers.ModelSerializer):
    node_type = serializers.SlugRelatedField(slug_field="name", queryset=NodeType.objects.all())
    storage_system = serializers.SlugRelatedField(slug_field="name", queryset=StorageSystem.objects.all())

    class Meta:
        model = Benchmark
        exclude = ["updated_at"]

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        problems = number_problems(attrs, BENCHMARK_POSITIVE)  # a negative CPU hours per genome was stored
        if problems:
            raise serializers.ValidationError(problems)
        return attrs


class NodeTypeViewSet(viewsets.ModelViewSet):
    """Node types of the hardware catalog (designs use edits from their next evaluation)."""

    permission_classes = [IsPlanner]
    serializer_class = NodeTypeSerializer
    queryset = NodeType.objects.all()


class StorageSystemViewSet(viewsets.ModelViewSet):
    """Storage systems of the hardware catalog (per-unit capacity, throughput, ceilings)."""

    permission_classes = [IsPlanner]
    serializer_class = StorageSystemSerializer
    queryset = StorageSystem.objects.all()


class BenchmarkViewSet(viewsets.ModelViewSet):
    """Measured pipeline runs with their source."""

    permission_classes = [IsPlanner]
    serializer_class = BenchmarkSerializer
    queryset = Benchmark.objects.select_related("node_type", "storage_system")


class EvaluationSerializer(serializers.ModelSerializer):
    class Meta:
        model = DesignEvaluation
        fields = ["id", "design", "inputs_sha256", "feasible", "npv_usd", "created_at", "result", "price_sources"]


class DesignSerializer(serializers.ModelSerializer):
    scenario_yaml = serializers.CharField(help_text="the scenario, YAML or JSON text (docs/scenario-format.md)")
    name = serializers.CharField(required=False, help_text="default: the scenario's name")
    latest_evaluation = serializers.SerializerMethodField()

    class Meta:
        model = Design
        fields = ["id", "name", "description", "version", "parent", "scenario_yaml", "scenario", "created_by",
                  "created_at", "updated_at", "latest_evaluation"]
        read_only_fields = ["description", "version", "parent", "scenario", "created_by", "created_at",
                            "updated_at"]

    def get_latest_evaluation(self, obj: Design) -> dict[str, Any] | None:
        ev = design_latest_evaluation(obj)
        if ev is None:
            return None
        return {"id": ev.pk, "feasible": ev.feasible, "npv_usd": ev.npv_usd, "inputs_sha256": ev.inputs_sha256,
                "created_at": ev.created_at.isoformat(),
                "forecast_prices": [{"target": s["target"], "series": s["series"], "fit_id": s["fit_id"],
                                     "percentile": s["percentile"]} for s in ev.price_sources or []]}


def _scenario_error(exc: ScenarioError | CatalogImportError, text: Any = None) -> Response:
    """``text``: the scenario posted; its errors then end with their line, as the editor's and the command's do
    (the API said 'prices.nodes.wide-64.price_usd: must be > 0, got -9000' where they say '... (line 15)')."""
    errors = getattr(exc, "errors", None) or [str(exc)]
    if isinstance(text, str) and isinstance(exc, ScenarioError):
        errors = with_lines(errors, text)
    return Response({"scenario_yaml": errors}, status=status.HTTP_400_BAD_REQUEST)


class OptimizeIn(serializers.Serializer):
    time_limit_s = serializers.FloatField(required=False, min_value=0.01, max_value=600,
                                          help_text="HiGHS time limit, seconds (default: the scenario's)")
    keep_purchases = serializers.BooleanField(required=False,
                                              help_text="keep the design's purchases and add to them")


class OptimizeOut(serializers.Serializer):
    run_id = serializers.IntegerField()
    job_id = serializers.IntegerField()
    status = serializers.CharField()
    status_url = serializers.CharField(help_text="poll: the BackgroundJob's progress")
    run_url = serializers.CharField(help_text="the OptimizerRun: status and result when done")


class DesignViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, mixins.CreateModelMixin,
                    mixins.UpdateModelMixin, mixins.DestroyModelMixin, viewsets.GenericViewSet):
    """Designs (scenario versions). Updating a design stores a new version and returns it."""

    permission_classes = [IsPlanner]
    serializer_class = DesignSerializer
    queryset = Design.objects.all()

    def perform_create(self, serializer: Any) -> None:
        data = serializer.validated_data
        serializer.instance = design_create(text=data["scenario_yaml"], name=data.get("name"), user=self.request.user)

    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        try:
            return super().create(request, *args, **kwargs)
        except (ScenarioError, CatalogImportError) as exc:
            return _scenario_error(exc, request.data.get("scenario_yaml"))

    def update(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        design = self.get_object()
        ser = self.get_serializer(design, data=request.data, partial=kwargs.get("partial", False))
        ser.is_valid(raise_exception=True)
        text = ser.validated_data.get("scenario_yaml", design.scenario_yaml)
        try:
            with transaction.atomic():
                new = design_create(text=text, name=ser.validated_data.get("name"), user=request.user, parent=design)
        except (ScenarioError, CatalogImportError) as exc:
            return _scenario_error(exc, text)
        return Response(self.get_serializer(new).data)

    @extend_schema(request=None, responses={200: EvaluationSerializer, 400: OpenApiResponse(description="invalid")})
    @action(detail=True, methods=["post"])
    def evaluate(self, request: Request, pk: str | None = None) -> Response:
        """Evaluate the design on the current catalog (an identical evaluation is reused)."""
        try:
            ev = design_evaluate(design=self.get_object(), user=request.user)
        except (ScenarioError, CatalogImportError) as exc:
            return _scenario_error(exc)
        return Response(EvaluationSerializer(ev).data)

    @extend_schema(request=OptimizeIn, responses={202: OptimizeOut, 400: OpenApiResponse(description="invalid")})
    @action(detail=True, methods=["post"])
    def optimize(self, request: Request, pk: str | None = None) -> Response:
        """Start the optimiser as a background job; poll status_url, then read run_url."""
        body = OptimizeIn(data=request.data)
        body.is_valid(raise_exception=True)
        try:
            run = optimizer_run_start(design=self.get_object(), user=request.user,
                                      time_limit_s=body.validated_data.get("time_limit_s"),
                                      keep_purchases=body.validated_data.get("keep_purchases"))
        except (ScenarioError, CatalogImportError) as exc:
            return _scenario_error(exc)
        assert run.job is not None
        return Response({"run_id": run.pk, "job_id": run.job.pk, "status": run.job.status,
                         "status_url": request.build_absolute_uri(reverse("job-json", args=[run.job.pk])),
                         "run_url": request.build_absolute_uri(reverse("api-optimizer-run-detail", args=[run.pk]))},
                        status=status.HTTP_202_ACCEPTED)


class OptimizerRunSerializer(serializers.ModelSerializer):
    status_label = serializers.SerializerMethodField(
        help_text="the status in words, as the run page shows it: \"Optimal: the cheapest possible plan\", "
                  "\"Within 0.46% of the cheapest possible plan\" (gap, within the scenario's mip_rel_gap; "
                  "\"... (stopped at the time limit)\" when not), \"Infeasible: no plan meets every constraint\", "
                  "\"Failed: reason\"")

    class Meta:
        model = OptimizerRun
        fields = ["id", "design", "params", "status", "status_label", "message", "inputs_sha256", "job", "result",
                  "created_at", "finished_at"]

    def get_status_label(self, obj: OptimizerRun) -> str:
        return run_status(obj.status, obj.result, obj.design.scenario, obj.message)["label"]


class OptimizerRunViewSet(viewsets.ReadOnlyModelViewSet):
    """Optimiser runs: status optimal / gap / infeasible (with shortfalls) / time_limit / failed, and
    status_label, the same in words."""

    permission_classes = [IsPlanner]
    serializer_class = OptimizerRunSerializer
    queryset = OptimizerRun.objects.select_related("design")


router = SimpleRouter()
router.register("node-types", NodeTypeViewSet, basename="api-node-type")
router.register("storage-systems", StorageSystemViewSet, basename="api-storage-system")
router.register("benchmarks", BenchmarkViewSet, basename="api-benchmark")
router.register("designs", DesignViewSet, basename="api-design")
router.register("optimizer-runs", OptimizerRunViewSet, basename="api-optimizer-run")

"""REST API for designs under uncertain demand (planners and admins).

GET  /api/v1/designs/{id}/chance/          the latest evaluation judged on the design's demand paths
POST /api/v1/designs/{id}/service-level/   buy a plan for a service level (and the cost-of-confidence
                                           curve) in the background: 202 with the run and where to poll
POST /api/v1/designs/from-forecast/{fit}/  start a design from a core-hours forecast, and a storage one (what
                                           the forecast page's form does): 201 with the design
"""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from django.urls import path, reverse
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.decorators import api_view, permission_classes
from rest_framework.request import Request
from rest_framework.response import Response

from forecasts.demand.models import ForecastFit, SequencerPlan
from forecasts.demand.paths import PathsError
from planner.designs.forecast_links import storage_forecast
from planner.designs.models import Design
from planner.designs.scenario import ScenarioError
from planner.designs.services import design_evaluate, design_latest_evaluation
from planner.designs.services_paths import (
    design_chance,
    design_from_forecast,
    design_years,
    service_level_run_start,
)
from planner.hardware.services import CatalogImportError
from planner.roles import IsPlanner


class ServiceLevelIn(serializers.Serializer):
    service_level = serializers.FloatField(min_value=0.01, max_value=1.0,
                                           help_text="share of demand paths to hold on every year, e.g. 0.9")
    paths = serializers.IntegerField(min_value=1, max_value=20_000, required=False,
                                     help_text="demand paths to buy on (default: the scenario's uncertainty.paths)")


@extend_schema(responses={200: OpenApiResponse(description="chance report: per year and constraint, the "
                                                           "probability, expected shortfall, and jointly"),
                          404: OpenApiResponse(description="no such design"),
                          409: OpenApiResponse(description="the design has no uncertainty block")})
@api_view(["GET"])
@permission_classes([IsPlanner])
def design_chance_api(request: Request, pk: int) -> Response:
    design = get_object_or_404(Design, pk=pk)
    ev = design_latest_evaluation(design)
    try:
        ev = ev or design_evaluate(design=design, user=request.user)
    except (ScenarioError, CatalogImportError) as exc:
        return Response({"detail": f"cannot evaluate: {exc}"}, status=status.HTTP_400_BAD_REQUEST)
    chance = design_chance(design, ev)
    if chance is None:
        return Response({"detail": "this design has no uncertainty: block (docs/uncertainty.md)"},
                        status=status.HTTP_409_CONFLICT)
    if "error" in chance:
        return Response({"detail": chance["error"]}, status=status.HTTP_400_BAD_REQUEST)
    return Response({"design": design.pk, "evaluation": ev.pk} | chance)


@extend_schema(request=ServiceLevelIn, responses={202: OpenApiResponse(description="run queued")})
@api_view(["POST"])
@permission_classes([IsPlanner])
def design_service_level_api(request: Request, pk: int) -> Response:
    design = get_object_or_404(Design, pk=pk)
    data = ServiceLevelIn(data=request.data)
    data.is_valid(raise_exception=True)
    try:
        run = service_level_run_start(design=design, alpha=data.validated_data["service_level"], user=request.user,
                                      n_paths=data.validated_data.get("paths"))
    except (ScenarioError, CatalogImportError, PathsError) as exc:
        return Response({"detail": str(exc)}, status=status.HTTP_400_BAD_REQUEST)
    return Response({"run": run.pk, "job": run.job_id, "status": run.status,
                     "poll": reverse("job-json", args=[run.job_id]) if run.job_id else None,
                     "url": reverse("designs:run", args=[run.pk])}, status=status.HTTP_202_ACCEPTED)


class FromForecastIn(serializers.Serializer):
    node_type = serializers.CharField(required=False, allow_blank=True, max_length=120,
                                      help_text="the cluster's nodes in the catalog: the design owns its recorded "
                                                "capacity as these nodes and counts demand on their core")
    plan = serializers.IntegerField(required=False, min_value=1, help_text="a sequencer plan to add")
    plan_on_top = serializers.BooleanField(
        required=False, default=False,
        help_text="the plan's sequencing is new to the cluster: add its core-hours on top of a forecast that already "
                  "holds it (of the plan's department, of every department, or of all but another one; with a plan "
                  "that names no department, any forecast but one of all but a department); else such a forecast "
                  "with a plan is refused: start from one without the plan's department")
    storage_fit = serializers.IntegerField(required=False, min_value=1,
                                           help_text="a monthly PB-stored forecast: the storage check is on, its "
                                                     "demand the fit's year-end medians and its paths the fit's")
    plan_storage_on_top = serializers.BooleanField(
        required=False, default=False,
        help_text="the plan's sequencing data is new to the scanned file systems: add its TB on top of the storage "
                  "forecast (which holds every department's data); else a plan adding TB with a storage forecast "
                  "is refused")
    storage_system = serializers.CharField(required=False, allow_blank=True, max_length=120,
                                           help_text="with storage_fit: the catalog storage system the scanned file "
                                                     "systems are; the design owns their recorded usable TB as its "
                                                     "units (else it owns no storage)")
    start_year = serializers.IntegerField(required=False, help_text="default: the forecast's first whole year")
    end_year = serializers.IntegerField(required=False, help_text="default: up to five whole years")


@extend_schema(request=FromForecastIn, responses={201: OpenApiResponse(description="the design, not yet evaluated"),
                                                  400: OpenApiResponse(description="why it cannot be started"),
                                                  404: OpenApiResponse(description="no such core-hours forecast")})
@api_view(["POST"])
@permission_classes([IsPlanner])
def design_from_forecast_api(request: Request, fit: int) -> Response:
    row = get_object_or_404(ForecastFit, pk=fit, metric=ForecastFit.Metric.CORE_HOURS)
    data = FromForecastIn(data=request.data)
    data.is_valid(raise_exception=True)
    v = data.validated_data
    plan = None
    if v.get("plan"):
        plan = SequencerPlan.objects.filter(pk=v["plan"]).first()
        if plan is None:
            return Response({"detail": f"no sequencer plan #{v['plan']}"}, status=status.HTTP_400_BAD_REQUEST)
    try:
        storage = storage_forecast(v["storage_fit"]) if v.get("storage_fit") else None
        start, end = design_years(row, v.get("start_year"), v.get("end_year"))
        design = design_from_forecast(fit=row, start_year=start, end_year=end, user=request.user, plan=plan,
                                      node_type=v.get("node_type") or None, plan_on_top=v["plan_on_top"],
                                      storage=storage, plan_storage_on_top=v["plan_storage_on_top"],
                                      storage_system=v.get("storage_system") or None)
    except (ScenarioError, CatalogImportError, PathsError) as exc:
        return Response({"detail": str(exc)}, status=status.HTTP_400_BAD_REQUEST)
    return Response({"design": design.pk, "name": design.name, "existing": design.scenario.get("existing", []),
                     "url": reverse("designs:detail", args=[design.pk]),
                     "chance": reverse("api-design-chance", args=[design.pk])}, status=status.HTTP_201_CREATED)


urlpatterns = [
    path("designs/from-forecast/<int:fit>/", design_from_forecast_api, name="api-design-from-forecast"),
    path("designs/<int:pk>/chance/", design_chance_api, name="api-design-chance"),
    path("designs/<int:pk>/service-level/", design_service_level_api, name="api-design-service-level"),
]

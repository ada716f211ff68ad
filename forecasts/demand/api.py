"""REST API for demand forecasting (planners and admins only: IsPlanner).

/api/v1/sequencer-plans/            list (latest versions and all), create (a plan document);
/api/v1/sequencer-plans/{id}/       read (with yearly figures), PUT/PATCH = a new version, DELETE;
/api/v1/sequencer-plans/{id}/versions/   every version of that plan's name;
/api/v1/forecasts/                  list, create (= fit a usage series and store it);
/api/v1/forecasts/{id}/             the stored fit (summary; ?full=1 adds Forecast.to_dict());
/api/v1/external-series/            list, upload (multipart CSV or JSON points);
/api/v1/external-series/{id}/forecast/   POST: fit and forecast it.
"""

from __future__ import annotations

from typing import Any

from django.urls import include, path
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.generics import GenericAPIView
from rest_framework.parsers import FormParser, JSONParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.routers import SimpleRouter

from forecasts.demand.engine import STAT_MEMBERS
from forecasts.demand.external import ExternalSeriesError, external_series_create, forecast_rows
from forecasts.demand.horizon import HORIZON_MONTHS_DEFAULT, HORIZON_MONTHS_MAX, HORIZON_MONTHS_MIN, HORIZON_RULE
from forecasts.demand.models import ExternalSeries, ForecastFit, SequencerPlan
from forecasts.demand.panels import MAX_WEB_SERIES, PanelError, panel_run
from forecasts.demand.plans import PlanError, plan_from_document, plan_save, plan_summary
from forecasts.demand.series import (
    DEFAULT_ORIGINS,
    FAMILY_CHOICES,
    METRICS,
    SeriesError,
    external_fit_create,
    forecast_fit_create,
    other_scale_pin,
    spec_from_names,
)
from planner.roles import IsPlanner

# every name the model table lists, the scale ensemble's members ('theta_log', 'ets_orig') too: one of those is
# pinned as its member with the scale forced, as "Use this one" does
PINNABLE = (*FAMILY_CHOICES, *(f"{m}{s}" for m in STAT_MEMBERS for s in ("_log", "_orig")))


def _pin(d: dict[str, Any]) -> tuple[str | None, bool | None]:
    """(family, log) asked for: an other-scale member's name becomes its member and scale."""
    scaled = other_scale_pin(d.get("family"))
    return scaled if scaled is not None else (d.get("family"), d.get("log"))


class PlanOut(serializers.ModelSerializer):
    created_by = serializers.StringRelatedField(allow_null=True, help_text="null: imported by a command or the demo")
    department = serializers.SlugRelatedField(slug_field="code", read_only=True, allow_null=True,
                                              help_text="the code of the department whose sequencing the plan "
                                                        "describes (null: the plan does not say)")

    class Meta:
        model = SequencerPlan
        fields = ["id", "name", "version", "parent", "department", "note", "source", "created_by", "created_at",
                  "document"]


class PlanIn(serializers.Serializer):
    document = serializers.JSONField(help_text="the plan (schema in docs/forecasting.md); its name sets the plan. "
                                               "`department`: a department code; left out, a new version keeps "
                                               "the department of the one before; null: none")
    note = serializers.CharField(required=False, allow_blank=True, max_length=300)

    def validate_document(self, value: Any) -> dict[str, Any]:
        if not isinstance(value, dict):
            kind = "null" if value is None else type(value).__name__
            raise serializers.ValidationError(f"expected the plan as a JSON object (name, start, end, assays, ...), "
                                              f"got {kind}")
        return value


class SequencerPlanViewSet(viewsets.ModelViewSet):
    """Sequencer rollout plans; a write never changes a version, it stores the next one."""

    permission_classes = [IsPlanner]
    serializer_class = PlanOut
    queryset = SequencerPlan.objects.select_related("created_by", "department").order_by("name", "-version")
    http_method_names = ["get", "post", "put", "patch", "delete", "head", "options"]

    def _store(self, request: Request, parent: SequencerPlan | None) -> Response:
        inp = PlanIn(data=request.data)
        inp.is_valid(raise_exception=True)
        doc = dict(inp.validated_data["document"])
        if parent is not None:
            doc = {**parent.document, **doc} if request.method == "PATCH" else doc
            doc.setdefault("name", parent.name)
        try:
            plan = plan_from_document(doc)
            row, created = plan_save(plan, user=request.user, note=inp.validated_data.get("note", ""),
                                     source="api", parent=parent)
        except PlanError as exc:
            raise serializers.ValidationError({"document": str(exc)}) from exc
        body = {**PlanOut(row).data, "created": created, "figures": plan_summary(row)}
        return Response(body, status=status.HTTP_201_CREATED if created else status.HTTP_200_OK)

    @extend_schema(request=PlanIn, responses=PlanOut)
    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return self._store(request, None)

    @extend_schema(request=PlanIn, responses=PlanOut)
    def update(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return self._store(request, self.get_object())

    def retrieve(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        row = self.get_object()
        return Response({**PlanOut(row).data, "figures": plan_summary(row)})

    @extend_schema(responses=PlanOut(many=True))
    @action(detail=True, methods=["get"], pagination_class=None)
    def versions(self, request: Request, pk: str | None = None) -> Response:
        row = self.get_object()
        rows = SequencerPlan.objects.filter(name=row.name).select_related("created_by", "department").order_by(
            "-version")
        return Response(PlanOut(rows, many=True).data)


class FitOut(serializers.ModelSerializer):
    summary = serializers.SerializerMethodField()

    class Meta:
        model = ForecastFit
        fields = ["id", "summary"]

    def get_summary(self, obj: ForecastFit) -> dict[str, Any]:
        return obj.summary()


class FitIn(serializers.Serializer):
    metric = serializers.ChoiceField(choices=METRICS, default="core_hours")
    cluster = serializers.CharField(required=False, allow_blank=True,
                                    help_text="default: all clusters; not with storage_pb (every file system together)")
    department = serializers.CharField(required=False, allow_blank=True, help_text="department code")
    exclude_department = serializers.CharField(required=False, allow_blank=True)
    horizon_months = serializers.IntegerField(
        default=HORIZON_MONTHS_DEFAULT, min_value=HORIZON_MONTHS_MIN, max_value=HORIZON_MONTHS_MAX,
        error_messages={k: f"expected {HORIZON_RULE}"
                        for k in ("invalid", "null", "min_value", "max_value", "max_string_length")},
        help_text=f"{HORIZON_RULE} (the series picker's rule); default {HORIZON_MONTHS_DEFAULT}")
    family = serializers.ChoiceField(choices=PINNABLE, required=False,
                                     help_text="pin one model instead of the combination ('theta_log': Theta "
                                               "on the log scale, the scale forced)")
    log = serializers.BooleanField(required=False, allow_null=True, default=None)
    backtest_origins = serializers.IntegerField(default=DEFAULT_ORIGINS, min_value=0, max_value=60,
                                                help_text=f"default {DEFAULT_ORIGINS}, as the page and the command")
    growth_rate = serializers.FloatField(required=False, allow_null=True, default=None, min_value=-99.9,
                                         help_text="% per year: projects a history too short to forecast")


class ForecastViewSet(mixins.CreateModelMixin, viewsets.ReadOnlyModelViewSet):
    """Stored fits; POST fits a usage series (under a second) and stores it with its inputs."""

    permission_classes = [IsPlanner]
    serializer_class = FitOut
    queryset = ForecastFit.objects.select_related("cluster", "department", "exclude_department",
                                                  "external_series")

    @extend_schema(request=FitIn, responses=FitOut)
    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        inp = FitIn(data=request.data)
        inp.is_valid(raise_exception=True)
        d = inp.validated_data
        try:
            spec = spec_from_names(metric=d["metric"], cluster=d.get("cluster") or None,
                                   department=d.get("department") or None,
                                   exclude_department=d.get("exclude_department") or None)
            family, log = _pin(d)
            fit = forecast_fit_create(spec, horizon_months=d["horizon_months"], family=family,
                                      log=log, backtest_origins=d["backtest_origins"], user=request.user,
                                      growth_rate=d.get("growth_rate"))
        except SeriesError as exc:
            raise serializers.ValidationError({"series": str(exc)}) from exc
        return Response(FitOut(fit).data, status=status.HTTP_201_CREATED)

    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        """The page's fits with each one's logs caveat from one query of every cluster's logs' end (it was two
        queries a fit)."""
        queryset = self.filter_queryset(self.get_queryset())
        page = self.paginate_queryset(queryset)
        fits = list(queryset if page is None else page)
        ForecastFit.prime_logs_caveats(fits)
        data = FitOut(fits, many=True).data
        return Response(data) if page is None else self.get_paginated_response(data)

    def retrieve(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        fit = self.get_object()
        body = FitOut(fit).data
        if request.query_params.get("full"):
            body["result"] = fit.result
        return Response(body)


class SeriesOut(serializers.ModelSerializer):
    class Meta:
        model = ExternalSeries
        fields = ["id", "name", "units", "frequency", "aggregate", "points", "description", "source_name",
                  "uploaded_at"]


class SeriesCreatedOut(SeriesOut):
    gap_lines = serializers.SerializerMethodField(
        help_text="the CSV's lines whose value was blank, NA or NaN: periods kept as gaps, not as zeros")

    class Meta(SeriesOut.Meta):
        fields = [*SeriesOut.Meta.fields, "gap_lines"]

    def get_gap_lines(self, obj: ExternalSeries) -> list[int]:
        return list(self.context.get("gap_lines", []))


class SeriesIn(serializers.Serializer):
    name = serializers.CharField(max_length=200)
    units = serializers.CharField(max_length=60)
    frequency = serializers.ChoiceField(choices=ExternalSeries.Frequency.values)
    aggregate = serializers.ChoiceField(choices=ExternalSeries.Aggregate.values, default="mean")
    file = serializers.FileField(required=False, help_text="CSV: date or period, value")
    csv = serializers.CharField(required=False, help_text="the CSV as text, instead of a file")
    description = serializers.CharField(required=False, allow_blank=True)
    replace = serializers.BooleanField(default=False)


class SeriesForecastIn(serializers.Serializer):
    horizon = serializers.IntegerField(default=5, min_value=1, max_value=240)
    log = serializers.BooleanField(required=False, allow_null=True, default=None)
    backtest = serializers.IntegerField(default=DEFAULT_ORIGINS, min_value=0, max_value=60)
    family = serializers.ChoiceField(choices=PINNABLE, required=False)
    growth_rate = serializers.FloatField(required=False, allow_null=True, default=None, min_value=-99.9,
                                         help_text="% per year: projects a history too short to forecast")


class ExternalSeriesViewSet(mixins.CreateModelMixin, viewsets.ReadOnlyModelViewSet):
    permission_classes = [IsPlanner]
    serializer_class = SeriesOut
    queryset = ExternalSeries.objects.all()
    parser_classes = [MultiPartParser, FormParser, JSONParser]

    @extend_schema(request=SeriesIn, responses={201: SeriesCreatedOut})
    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        inp = SeriesIn(data=request.data)
        inp.is_valid(raise_exception=True)
        d = inp.validated_data
        if d.get("file") is not None:
            text, source = d["file"].read().decode("utf-8-sig", errors="replace"), d["file"].name
        elif d.get("csv"):
            text, source = d["csv"], "api"
        else:
            raise serializers.ValidationError({"file": "give a CSV file or the csv text"})
        gaps: list[int] = []
        try:
            series = external_series_create(name=d["name"], units=d["units"], frequency=d["frequency"], text=text,
                                            aggregate=d["aggregate"], description=d.get("description", ""),
                                            source_name=source, user=request.user, replace=d["replace"], gaps=gaps)
        except ExternalSeriesError as exc:
            raise serializers.ValidationError({"file": str(exc)}) from exc
        return Response(SeriesCreatedOut(series, context={"gap_lines": gaps}).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=SeriesForecastIn)
    @action(detail=True, methods=["post"])
    def forecast(self, request: Request, pk: str | None = None) -> Response:
        series = self.get_object()
        inp = SeriesForecastIn(data=request.data)
        inp.is_valid(raise_exception=True)
        d = inp.validated_data
        try:
            family, log = _pin(d)
            fit = external_fit_create(series, horizon=d["horizon"], family=family, log=log,
                                      backtest_origins=d["backtest"], user=request.user,
                                      growth_rate=d.get("growth_rate"))
        except SeriesError as exc:
            raise serializers.ValidationError({"series": str(exc)}) from exc
        return Response({**fit.summary(), "forecast": forecast_rows(fit.result)}, status=status.HTTP_201_CREATED)


class PanelIn(serializers.Serializer):
    file = serializers.FileField(help_text="long CSV series_id,timestamp,value (gzip allowed)")
    frequency = serializers.CharField(max_length=1, help_text="A (yearly), S, Q or M; checked by the panel reader")
    horizon = serializers.IntegerField(default=6, min_value=1, max_value=240)
    holdout = serializers.IntegerField(default=0, min_value=0, max_value=240,
                                       help_text="score against each series' last H points")


class PanelView(GenericAPIView):  # type: ignore[type-arg]
    """Forecast a panel (or score it with ``holdout``): the summary with per-method scores and, per
    future step of each series, median, p10, p90, p2_5, p97_5 (at most MAX_WEB_SERIES series)."""

    permission_classes = [IsPlanner]
    parser_classes = [MultiPartParser, FormParser]
    serializer_class = PanelIn

    @extend_schema(request=PanelIn, responses={200: OpenApiTypes.OBJECT})
    def post(self, request: Request) -> Response:
        inp = PanelIn(data=request.data)
        inp.is_valid(raise_exception=True)
        d = inp.validated_data
        try:
            run = panel_run(d["file"].read(), frequency=d["frequency"], horizon=d["horizon"], holdout=d["holdout"],
                            name=d["file"].name, jobs=1, max_series=MAX_WEB_SERIES)
        except PanelError as exc:
            raise serializers.ValidationError({"file": str(exc)}) from exc
        return Response({**run.summary, "steps": run.rows()})


router = SimpleRouter()
router.register("sequencer-plans", SequencerPlanViewSet, basename="sequencer-plan")
router.register("forecasts", ForecastViewSet, basename="forecast")
router.register("external-series", ExternalSeriesViewSet, basename="external-series")

urlpatterns = [path("", include(router.urls)), path("forecast-panels/", PanelView.as_view(), name="forecast-panels")]

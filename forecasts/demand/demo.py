"""Demo step for demand forecasting: the Minerva plan, core-hour fits of the demo usage, a storage (PB) fit of
every file system's scans, and an illustrative disk-price series.  Idempotent and quick on a second run (skips
what exists)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from django.conf import settings
from django.db.models import Sum

from forecasts.accounting.models import Department, UsageMonthly
from forecasts.demand.external import external_series_create
from forecasts.demand.models import ExternalSeries, ForecastFit
from forecasts.demand.plans import plan_import_file
from forecasts.demand.series import SeriesError, SeriesSpec, external_fit_create, forecast_fit_create

FIXTURES = Path(settings.BASE_DIR) / "fixtures"
PRICE_SERIES = "Disk price (illustrative)"
MIN_MONTHS = 12
DEMO_PLAN = "nigm_sequencer_plan.yaml"  # the demo institution's own plan (department ggs)


def load_forecasts(log: Callable[[str], None]) -> None:
    # The SC15 study's plan (Minerva's fleet: 48 M core-hours in 2019, more than the whole demo cluster) is
    # the study's designs' and report's; it names no department of the demo institution. The demo's own
    # plan is department ggs's share of its sequencing core, sized to ggs's usage on nexus
    # (fixtures/nigm_sequencer_plan.yaml): the department the "all but" fit below leaves out, so plan +
    # trend counts it once (the fixture names none: tests load it without departments).
    row, created = plan_import_file(FIXTURES / "minerva_sequencer_plan.yaml", source="demo")
    log(f"sequencer plan: {row} ({'imported' if created else 'already loaded'})")
    genomics = Department.objects.filter(code__in=("ggs", "genomics")).first()
    if genomics is not None:
        row, created = plan_import_file(FIXTURES / DEMO_PLAN, source="demo", department=genomics.code)
        log(f"sequencer plan: {row}, department {genomics.code} ({'imported' if created else 'already loaded'})")

    if not ExternalSeries.objects.filter(name=PRICE_SERIES).exists():
        series = external_series_create(
            name=PRICE_SERIES, units="USD/TB", frequency="A", aggregate="mean",
            text=(FIXTURES / "price_disk_usd_per_tb.csv").read_text(), source_name="price_disk_usd_per_tb.csv",
            description="Illustrative hard-disk street price per decimal TB, 2005-2024 (not measured data).",
        )
        external_fit_create(series, horizon=5, backtest_origins=8)
        log("external series: disk price per TB fitted")

    months = UsageMonthly.objects.values("month").distinct().count()
    if months < MIN_MONTHS:
        log(f"usage forecasts: skipped ({months} months of usage loaded; need {MIN_MONTHS})")
        return
    clusters = list(UsageMonthly.objects.values_list("cluster__name", flat=True).distinct())
    top = (UsageMonthly.objects.values("department").annotate(ch=Sum("core_hours")).order_by("-ch")[:3])
    specs = [SeriesSpec("core_hours")]
    from forecasts.accounting.models import Cluster

    for name in clusters:
        c = Cluster.objects.get(name=name)
        specs.append(SeriesSpec("core_hours", cluster=c))
        for d in top:
            specs.append(SeriesSpec("core_hours", cluster=c, department=Department.objects.get(pk=d["department"])))
        if genomics is not None:  # the trend a sequencing plan of this cluster goes on top of (counted once)
            specs.append(SeriesSpec("core_hours", cluster=c, exclude_department=genomics))
    if genomics is not None:
        specs.append(SeriesSpec("core_hours", exclude_department=genomics))
    # storage: every file system's PB held together (a storage forecast takes no cluster), from the month each
    # file system has been scanned; the forecast pages and the combined projection's storage trend show it
    specs.append(SeriesSpec("storage_pb"))
    fitted = 0
    for spec in specs:
        if ForecastFit.objects.filter(metric=spec.metric, cluster=spec.cluster, department=spec.department,
                                      exclude_department=spec.exclude_department).exists():
            continue
        try:
            forecast_fit_create(spec, horizon_months=_storage_horizon() if spec.metric == "storage_pb" else 36)
            fitted += 1
        except SeriesError as exc:
            log(f"forecast {spec.label}: skipped ({exc})")
    log(f"usage and storage forecasts: {fitted} fitted, {len(specs) - fitted} already present or skipped")


def _storage_horizon() -> int:
    """The storage fit's horizon in months: to the end of the usage fits' last year (36 months past the logs' last
    month). The quarterly scans end before the logs do (the last on 1 October 2019 for logs to December), so 36
    months past the scans would stop inside that year, and a design started from the cluster's forecast for its
    last year could not take its storage from this fit."""
    from django.db.models import Max

    from forecasts.storage.models import StorageSnapshot

    logs = UsageMonthly.objects.aggregate(m=Max("month"))["m"]
    scans = StorageSnapshot.objects.filter(status="completed").aggregate(d=Max("taken_on"))["d"]
    if logs is None or scans is None:
        return 36
    return 36 + max(0, (logs.year - scans.year) * 12 + logs.month - scans.month)

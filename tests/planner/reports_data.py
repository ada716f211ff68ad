"""Shared set-up for the report tests: the Minerva designs, a little real usage, a forecast and the plan."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def report_inputs(tmp_path: Path, departments: dict[str, Any], *, with_forecast: bool = True) -> dict[str, Any]:
    """Designs (the demo step), four jobs through the real ingest path on 'minerva' plus three years of
    monthly rollups, a capacity, the Minerva sequencer plan and (optionally) a stored core-hours fit."""
    from forecasts.demand.plans import plan_import_file
    from forecasts.demand.series import SeriesSpec, forecast_fit_create
    from forecasts.models import Cluster, ClusterCapacity
    from tests.forecasts.forecast_factories import usage_history
    from tests.forecasts.usage_data import load_usage
    from tests.planner.designs_data import load_catalog_and_designs

    designs = load_catalog_and_designs()
    run = load_usage(tmp_path, departments)
    usage_history(departments, months=36, cluster="minerva", start=date(2021, 1, 1))
    cluster = Cluster.objects.get(name="minerva")
    ClusterCapacity.objects.create(cluster=cluster, effective_from=date(2020, 1, 1), cores=1000, nodes=20)
    plan, _ = plan_import_file(ROOT / "fixtures" / "minerva_sequencer_plan.yaml", source="test")
    fit = None
    if with_forecast:
        fit = forecast_fit_create(SeriesSpec("core_hours", cluster=cluster), horizon_months=24, backtest_origins=4)
    return {**designs, "run": run, "cluster": cluster, "plan": plan, "fit": fit}


def squash(text: str) -> str:
    """Text without any whitespace: PDF extraction breaks lines where the layout wrapped them."""
    return "".join(text.split())

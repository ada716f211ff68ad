"""Backtests on real public workloads: Parallel Workloads Archive SWF traces, loaded through the
real ingest path and aggregated by month, then forecast like any usage series.

The figures are recorded in docs/forecasting.md (rerun with ``-s`` to print them)."""

from __future__ import annotations

import json
from io import StringIO
from typing import Any

import pytest
from django.core.management import CommandError, call_command

from tests.shared import SHARED_DATA, requires_shared

SWF = SHARED_DATA / "swf"
TRACES = {
    "kth": "cloudsimplusfork_KTH-SP2-1996-2.1-cln.swf.gz",
    "nasa": "cloudsimplus_NASA-iPSC-1993-3.1-cln.swf.gz",
}

pytestmark = [requires_shared, pytest.mark.django_db, pytest.mark.slow]


def run(*args: Any) -> dict[str, Any]:
    out = StringIO()
    call_command(*args, stdout=out, stderr=StringIO())
    return json.loads(out.getvalue().strip().splitlines()[-1])


def _ingest(cluster: str) -> dict[str, Any]:
    path = SWF / TRACES[cluster]
    if not path.exists():
        pytest.skip(f"{path} is absent")
    return run("ingest_accounting", "--format", "swf", "--cluster", cluster, str(path))


def test_kth_sp2_monthly_series_backtest_with_sane_errors(departments: dict[str, Any]) -> None:
    cluster = "kth"
    path = SWF / TRACES[cluster]
    if not path.exists():
        pytest.skip(f"{path} is absent")
    ingest = run("ingest_accounting", "--format", "swf", "--cluster", cluster, str(path))
    assert ingest["jobs_ingested"] > 10_000
    figures = {}
    for metric in ("core_hours", "jobs", "active_users"):
        s = run("forecast", "--cluster", cluster, "--metric", metric, "--horizon-months", "6", "--backtest", "6",
                "--json")
        bt = s["backtest"]
        figures[metric] = {"months": s["periods_used"], "family": s["family"], "mase": bt["mase"],
                           "smape": bt["smape"], "coverage80": bt["coverage80"], "origins": bt["origins"]}
        assert s["periods_used"] == 10  # Oct 1996 - Jul 1997: the logs begin on 30 Sep and end on 29 Aug
        assert bt["origins"] >= 1 and bt["mase"] is not None
        assert bt["mase"] < 5  # no worse than a few naive steps on short, noisy real series
        assert 0 <= bt["coverage80"] <= 1
        for y in s["yearly"]:
            assert y["p10"] <= y["median"] <= y["p90"]
    print(cluster, json.dumps(figures))


def test_nasa_ipsc_is_too_short_to_forecast_and_says_how_many_months_exist_and_are_needed(
        departments: dict[str, Any]) -> None:
    """Three whole months of 1993: no forecast is invented; the message says what exists, what is
    needed and what to do instead."""
    assert _ingest("nasa")["jobs_ingested"] > 10_000
    with pytest.raises(CommandError, match=r"\d months of history; at least 8 are needed .* growth rate"):
        call_command("forecast", "--cluster", "nasa", "--metric", "core_hours", "--horizon-months", "3", "--json",
                     stdout=StringIO(), stderr=StringIO())

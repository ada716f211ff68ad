"""The forecasting commands as a cron job or a planner at a shell would use them."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command

from forecasts.models import ExternalSeries, ForecastFit, SequencerPlan
from tests.forecasts.forecast_factories import usage_history

ROOT = Path(__file__).resolve().parents[2]
MINERVA = ROOT / "fixtures" / "minerva_sequencer_plan.yaml"
PRICES = ROOT / "fixtures" / "price_disk_usd_per_tb.csv"

pytestmark = pytest.mark.django_db


def run(*args: Any) -> dict[str, Any]:
    out = StringIO()
    call_command(*args, stdout=out, stderr=StringIO())
    return json.loads(out.getvalue().strip().splitlines()[-1])


def test_minerva_plan_import_reports_48_m_core_hours_which_are_32_9_m_at_3_5_ghz() -> None:
    summary = run("import_sequencer_plan", str(MINERVA))
    y2019 = next(y for y in summary["years"] if y["year"] == 2019)
    assert y2019["core_hours_ref"] / 1e6 == pytest.approx(48.0, abs=0.05)
    assert y2019["core_hours_by_node"]["ivy_bridge"] / 1e6 == pytest.approx(48 * 2.3 / 3.5, abs=0.05)
    assert y2019["instruments_end"] == 12
    assert 5.0 <= y2019["stored_pb"] <= 6.0
    assert summary["reference_node"] == "amd_interlagos" and summary["reference_clock_ghz"] == 2.3
    assert summary["version"] == 1 and summary["created"] is True


def test_importing_the_same_plan_twice_keeps_one_version_and_a_change_makes_the_next(tmp_path: Path) -> None:
    run("import_sequencer_plan", str(MINERVA))
    again = run("import_sequencer_plan", str(MINERVA))
    assert again["created"] is False and SequencerPlan.objects.count() == 1
    counts = tmp_path / "counts.csv"
    counts.write_text("model,date,count\nIllumina HiSeq 2500,2013-01-01,5\nIllumina HiSeq 2500,2015-01-01,9\n"
                      "Illumina HiSeq 2500,2019-01-01,14\n")
    v2 = run("import_sequencer_plan", str(counts), "--plan", again["name"])
    assert v2["version"] == 2
    assert next(y for y in v2["years"] if y["year"] == 2019)["instruments_end"] == 14
    assert SequencerPlan.objects.get(version=2).parent.version == 1


def test_plan_import_errors_name_the_file_and_field(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\nstart: 2013-01-01\n")
    with pytest.raises(CommandError, match="bad.yaml: missing field"):
        call_command("import_sequencer_plan", str(bad), stdout=StringIO(), stderr=StringIO())
    csv = tmp_path / "c.csv"
    csv.write_text("model,date,count\nX,2013-01-01,1\n")
    with pytest.raises(CommandError, match="c.csv: .*--plan NAME"):
        call_command("import_sequencer_plan", str(csv), stdout=StringIO(), stderr=StringIO())


def test_forecast_prints_model_parameters_backtest_and_yearly_ranges(departments: dict[str, Any]) -> None:
    usage_history(departments, months=48)
    s = run("forecast", "--cluster", "minerva", "--metric", "core_hours", "--horizon-months", "24", "--json")
    assert s["family"] and s["parameters"] and s["reason"]
    assert s["backtest"]["origins"] >= 2 and s["backtest"]["mase"] > 0 and s["backtest"]["smape"] > 0
    years = {y["year"]: y for y in s["yearly"]}
    assert set(years) == {2020, 2021, 2022, 2023, 2024, 2025}
    assert years[2025]["p10"] < years[2025]["median"] < years[2025]["p90"]
    assert years[2020]["p10"] == pytest.approx(years[2020]["median"])  # fully observed: no spread
    fit = ForecastFit.objects.get(pk=s["fit"])
    assert len(fit.values) == 48 and fit.through.isoformat() == "2023-12-01"
    assert s["history_through"] == "2023-12-01"


def test_forecast_text_gives_years_in_units_of_a_year_and_the_caveats(departments: dict[str, Any]) -> None:
    usage_history(departments, months=12)
    out = StringIO()
    call_command("forecast", "--cluster", "minerva", "--metric", "core_hours", "--horizon-months", "12",
                 stdout=out, stderr=StringIO())
    lines = out.getvalue().splitlines()
    years = [line for line in lines if line.startswith("  20")]
    assert years and all("core-hours/year" in line and "core-hours/month" not in line for line in years)
    assert any(line.startswith("  note: A short history: 12 values fitted") for line in lines)
    summary = json.loads(lines[-1])
    assert summary["yearly_units"] == "core-hours/year" and summary["units"] == "core-hours/month"


def test_forecast_of_a_department_and_a_family_override(departments: dict[str, Any]) -> None:
    usage_history(departments, months=36)
    s = run("forecast", "--cluster", "minerva", "--metric", "core_hours", "--department", "scb",
            "--horizon-months", "12", "--family", "linear", "--json")
    assert s["family"] == "linear" and s["selection"] == "override" and s["department"] == "scb"
    slope = s["parameters"]["slope"]
    assert slope == pytest.approx(1_000, rel=0.05)  # chemistry grows 1,000 core-hours a month


def test_forecast_of_storage_without_scans_fails_with_what_to_load(departments: dict[str, Any]) -> None:
    usage_history(departments, months=24)
    with pytest.raises(CommandError, match="no storage scans loaded"):
        call_command("forecast", "--metric", "storage_pb", "--horizon-months", "12",
                     stdout=StringIO(), stderr=StringIO())


def test_forecast_series_gives_each_step_with_80_and_95_bounds_and_backtest() -> None:
    s = run("forecast_series", str(PRICES), "--frequency", "A", "--horizon", "5", "--backtest", "8", "--json")
    assert s["points"] == 20 and s["history_through"] == "2024-01-01"
    assert s["log"] is True  # prices fall exponentially: the log scale is chosen automatically
    assert len(s["forecast"]) == 5 and s["forecast"][0]["date"] == "2025-01-01"
    for r in s["forecast"]:
        assert r["p2_5"] < r["p10"] < r["median"] < r["p90"] < r["p97_5"]
    assert s["forecast"][-1]["median"] < s["forecast"][0]["median"]  # still falling
    bt = s["backtest"]
    assert bt["origins"] >= 2 and bt["mase"] is not None and 0 <= bt["coverage80"] <= 1
    assert ExternalSeries.objects.count() == 0  # not stored unless --save


def test_forecast_series_is_reproducible_and_save_stores_it() -> None:
    a = run("forecast_series", str(PRICES), "--frequency", "A", "--horizon", "3", "--json")
    b = run("forecast_series", str(PRICES), "--frequency", "A", "--horizon", "3", "--json", "--save", "Disk",
            "--units", "USD/TB")
    assert a["forecast"] == b["forecast"] and a["backtest"] == b["backtest"]
    fit = ForecastFit.objects.get(pk=b["fit"])
    assert fit.external_series.name == "Disk" and fit.units == "USD/TB"


def test_forecast_series_quarterly_with_gaps_and_forced_log(tmp_path: Path) -> None:
    f = tmp_path / "q.csv"
    rows = ["period,value"] + [f"{2015 + i // 4}Q{i % 4 + 1},{100 * 1.05 ** i:.2f}" if i not in (5, 9) else
                               f"{2015 + i // 4}Q{i % 4 + 1}," for i in range(24)]
    f.write_text("\n".join(rows) + "\n")
    s = run("forecast_series", str(f), "--frequency", "Q", "--horizon", "4", "--log", "--json")
    assert s["points"] == 22 and s["log"] is True and s["forecast"][0]["date"] == "2021-01-01"
    assert s["gap_lines"] == [7, 11]  # the header is line 1: the periods 6 and 10 rows down have no value
    err = StringIO()
    call_command("forecast_series", str(f), "--frequency", "Q", "--horizon", "4", "--json", stdout=StringIO(),
                 stderr=err)
    assert "22 points, 2 periods without a value (lines 7, 11) kept as gaps" in err.getvalue()


def test_forecast_series_bad_rows_name_the_line(tmp_path: Path) -> None:
    f = tmp_path / "bad.csv"
    f.write_text("date,value\n2019,1\n2020,abc\n2021,3\n")
    with pytest.raises(CommandError, match="bad.csv line 3: column 'value': not a number"):
        call_command("forecast_series", str(f), "--frequency", "A", "--horizon", "2", stdout=StringIO(),
                     stderr=StringIO())


@pytest.mark.parametrize("value", ["inf", "-inf", "1e400"])
def test_an_infinite_value_is_refused_with_its_line_not_taken_for_a_gap(tmp_path: Path, value: str) -> None:
    f = tmp_path / "inf.csv"
    f.write_text(f"date,value\n2019,1\n2020,{value}\n2021,3\n2022,4\n")
    with pytest.raises(CommandError, match=r"inf.csv line 3: column 'value': not a finite number"):
        call_command("forecast_series", str(f), "--frequency", "A", "--horizon", "2", stdout=StringIO(),
                     stderr=StringIO())


def test_designs_can_read_a_forecast_price_for_a_year() -> None:
    from forecasts.demand.selectors import NoPriceForecast, price_forecast_for, price_forecast_range

    s = run("forecast_series", str(PRICES), "--frequency", "A", "--horizon", "5", "--save", "Disk", "--units",
            "USD/TB", "--json")
    series_id = ForecastFit.objects.get(pk=s["fit"]).external_series_id
    assert price_forecast_for(series_id, 2024) == pytest.approx(14.0)  # observed
    p10, median, p90 = price_forecast_range(series_id, 2027)
    assert p10 < median < p90 and median < 14.0  # still falling
    with pytest.raises(NoPriceForecast, match="not 2040"):
        price_forecast_for(series_id, 2040)

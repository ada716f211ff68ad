"""Every way in to the combined, calibrated forecast: the commands, the panel command, API and page,
stored fits made before, whole months only, short histories, and the dashboard's yearly figure."""

from __future__ import annotations

import csv
import io
import json
from datetime import UTC, date, datetime
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from django.test import Client

from forecasts.demand.models import ForecastFit
from forecasts.demand.series import SeriesError, SeriesSpec, forecast_fit_create, monthly_series, run_forecast
from planner.web.dashboard import forecast_status
from tests.forecasts.forecast_factories import usage_history
from tests.helpers import login

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[3]
PRICES = ROOT / "fixtures" / "price_disk_usd_per_tb.csv"


def run(*args: Any) -> dict[str, Any]:
    out = StringIO()
    call_command(*args, stdout=out, stderr=StringIO())
    return json.loads(out.getvalue().strip().splitlines()[-1])


def _panel(tmp_path: Path, n_series: int = 3, years: int = 24) -> Path:
    path = tmp_path / "panel.csv"
    rows = ["series_id,timestamp,value"]
    for k in range(n_series):
        rows += [f"S{k},{1990 + i},{100 * 1.04 ** i * (1 + 0.02 * ((i * (k + 3)) % 5 - 2)):.3f}"
                 for i in range(years)]
    path.write_text("\n".join(rows) + "\n")
    return path


def test_forecast_series_reports_the_combination_each_member_and_its_weight() -> None:
    s = run("forecast_series", str(PRICES), "--frequency", "A", "--horizon", "3", "--json")
    assert s["family"] == "combined" and s["selection"] == "combination"
    assert {"median", "p10", "p90", "p2_5", "p97_5", "date"} <= set(s["forecast"][0])
    members = {m["family"]: m for m in s["members"]}
    assert {"ets", "ets_damped", "theta", "dotm", "arima", "rwd"} <= set(members)
    assert sum(m["weight"] for m in members.values()) == pytest.approx(1.0)
    assert members["arima"]["weight"] == 0  # reported, not combined (its backtest reuses its coefficients)
    assert s["backtest"]["horizon"] == 3  # the backtest runs at the asked horizon


def test_forecast_series_pins_a_member_and_projects_a_short_history_at_an_entered_rate(tmp_path: Path) -> None:
    pinned = run("forecast_series", str(PRICES), "--frequency", "A", "--horizon", "2", "--family", "theta",
                 "--json")
    assert pinned["family"] == "theta" and pinned["selection"] == "override"
    short = tmp_path / "short.csv"
    short.write_text("date,value\n2022,10\n2023,11\n2024,12\n")
    with pytest.raises(CommandError, match="3 years of history; at least 8 are needed"):
        call_command("forecast_series", str(short), "--frequency", "A", "--horizon", "2", stdout=StringIO(),
                     stderr=StringIO())
    proj = run("forecast_series", str(short), "--frequency", "A", "--horizon", "2", "--growth-rate", "10", "--json")
    assert proj["family"] == "growth_rate"
    assert [r["median"] for r in proj["forecast"]] == pytest.approx([13.2, 14.52])


def test_forecast_panel_writes_every_series_forecast_and_scores_a_holdout(tmp_path: Path) -> None:
    path = _panel(tmp_path)
    out = tmp_path / "out.csv"
    s = run("forecast_panel", str(path), "--frequency", "A", "--horizon", "4", "--out", str(out), "--jobs", "1",
            "--json")
    assert s["forecast"] == 3 and s["series"] == 3
    rows = list(csv.DictReader(out.open()))
    assert len(rows) == 12 and rows[0]["timestamp"] == "2014" and float(rows[0]["p10"]) < float(rows[0]["p90"])
    h = run("forecast_panel", str(path), "--frequency", "A", "--horizon", "4", "--out", str(out), "--holdout", "5",
            "--jobs", "1", "--json")
    base = {"ets", "ets_damped", "theta", "dotm", "rwd"}
    # every combinable member on both scales (positive series), the panel's pooled model, ARIMA only when asked
    assert "global" in h["scores"]
    assert set(h["scores"]) - {"combined", "global"} - base <= {f"{n}_{s}" for n in base for s in ("log", "orig")}
    assert base | {"combined"} <= set(h["scores"]) and not {"arima", "arima_log", "arima_orig"} & set(h["scores"])
    assert 0 <= h["scores"]["combined"]["coverage80"] <= 1
    with_arima = run("forecast_panel", str(path), "--frequency", "A", "--horizon", "4", "--out", str(out),
                     "--holdout", "5", "--jobs", "1", "--members", "ets,ets_damped,theta,dotm,rwd,arima", "--json")
    assert "arima" in with_arima["scores"]
    assert with_arima["scores"]["combined"] == h["scores"]["combined"]  # ARIMA is scored, never combined
    with_ces = run("forecast_panel", str(path), "--frequency", "A", "--horizon", "4", "--out", str(out),
                   "--holdout", "5", "--jobs", "1", "--members", "ets,ets_damped,theta,dotm,rwd,ces", "--json")
    assert "ces" in with_ces["scores"] and "ces" not in h["scores"]  # AutoCES only when asked for


def test_forecast_panel_names_a_bad_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text("series_id,timestamp,value\nA,1990,1\nA,1991-Q2,2\n")
    with pytest.raises(CommandError, match="bad.csv line 3: field timestamp"):
        call_command("forecast_panel", str(bad), "--frequency", "A", "--horizon", "2", "--out",
                     str(tmp_path / "o.csv"), stdout=StringIO(), stderr=StringIO())


def test_a_planner_posts_a_panel_to_the_api_and_gets_the_scores(client: Client, planner_user: Any,
                                                                tmp_path: Path) -> None:
    login(client, planner_user)
    path = _panel(tmp_path, n_series=2)
    with path.open("rb") as fh:
        resp = client.post("/api/v1/forecast-panels/", {"file": fh, "frequency": "A", "horizon": 3, "holdout": 4})
    assert resp.status_code == 200, resp.content
    body = resp.json()
    assert body["forecast"] == 2 and body["scores"]["combined"]["smape"] >= 0
    assert len(body["steps"]) == 2 * 4 and body["steps"][0]["timestamp"] == "2010"  # the held-back years


def test_the_panel_page_shows_the_scores_and_explains_a_bad_file(client: Client, planner_user: Any,
                                                                 genomics_viewer: Any, tmp_path: Path) -> None:
    login(client, planner_user)
    path = _panel(tmp_path, n_series=2)
    with path.open("rb") as fh:
        page = client.post("/forecasts/panel/", {"file": fh, "frequency": "A", "horizon": 3, "holdout": 4})
    html = page.content.decode()
    assert page.status_code == 200 and 'id="panel-scores"' in html and "combined" in html
    assert "<strong>global</strong> member at weight 0.2" in html  # the weight the run used: a small panel
    # the command hint repeats what was asked, the reference is the yearly one, and every row is shown
    assert "forecast_panel PATH --frequency A --horizon 3 --out forecast.csv --holdout 4" in html
    assert "M3 competition&#x27;s yearly series" in html or "M3 competition's yearly series" in html
    assert "The first 60" not in html
    # coverage as a percentage, as on every other page (it read 1.000 here and 84% elsewhere)
    cov = html.split('id="panel-scores"')[1].split("</tr>")[1].split('<td class="num">')[3].split("<")[0]
    assert cov.endswith("%") and "." in cov, cov
    bad = io.BytesIO(b"series_id,timestamp,value\nA,1990,x\n")
    bad.name = "bad.csv"
    html = client.post("/forecasts/panel/", {"file": bad, "frequency": "A", "horizon": 3}).content.decode()
    assert "bad.csv line 2: field value: &#x27;x&#x27; is not a number" in html
    login(client, genomics_viewer)
    assert client.get("/forecasts/panel/").status_code == 403


def test_a_month_the_logs_end_inside_is_left_out_of_the_fit_and_shown_apart(departments: dict[str, Any]) -> None:
    from forecasts.accounting.models import IngestRun

    h = usage_history(departments, months=37)  # Jan 2020 .. Jan 2023
    IngestRun.objects.create(cluster=h["cluster"], format="slurm", status=IngestRun.Status.COMPLETED,
                             last_end=datetime(2023, 1, 6, 12, tzinfo=UTC))
    spec = SeriesSpec("core_hours", h["cluster"])
    series = monthly_series(spec)
    assert series.through == date(2022, 12, 1) and series.partial_month == date(2023, 1, 1)
    fit = forecast_fit_create(spec, horizon_months=13)
    assert fit.through == date(2022, 12, 1)
    assert fit.result["partial_period"]["month"] == "2023-01-01"
    assert fit.result["steps"][0]["date"] == "2023-01-01"  # January is forecast, not taken as whole
    years = {y["year"]: y for y in fit.yearly}
    assert years[2023]["complete"] and years[2024]["partial"] and years[2024]["periods_forecast"] == 1
    out = StringIO()
    call_command("forecast", "--cluster", "minerva", "--metric", "core_hours", "--horizon-months", "13",
                 stdout=out, stderr=StringIO())
    text = out.getvalue()
    assert "2023-01 left out: the logs end 2023-01-06 inside it" in text
    assert "2024: median" in text and "(part year: 1 of 12 months)" in text


def test_a_short_usage_history_says_how_many_months_exist_and_offers_a_growth_rate(
        client: Client, planner_user: Any, departments: dict[str, Any]) -> None:
    h = usage_history(departments, months=3)
    with pytest.raises(SeriesError, match="3 months of history; at least 8 are needed"):
        forecast_fit_create(SeriesSpec("core_hours", h["cluster"]), horizon_months=12)
    login(client, planner_user)
    page = client.post("/forecasts/", {"cluster": "minerva", "metric": "core_hours", "horizon": 12})
    html = page.content.decode()
    assert "3 months of history; at least 8 are needed" in html and "Enter a growth rate" in html
    for typo in ("20%", "nan", "inf", "-150"):  # refused with the field named, never dropped or stored
        refused = client.post("/forecasts/", {"cluster": "minerva", "metric": "core_hours", "horizon": 12,
                                              "growth_rate": typo})
        assert refused.status_code == 200 and "growth rate: expected a number of % per year" in \
            refused.content.decode(), typo
    assert not ForecastFit.objects.exists()
    made = client.post("/forecasts/", {"cluster": "minerva", "metric": "core_hours", "horizon": 12,
                                       "growth_rate": "20"})
    assert made.status_code == 302
    fit = ForecastFit.objects.get()
    assert fit.family == "growth_rate" and fit.options["growth_rate"] == 20
    assert fit.result["steps"][11]["median"] == pytest.approx(fit.values[-1] * 1.2)


def test_a_fit_stored_before_the_engine_still_opens(client: Client, planner_user: Any,
                                                    departments: dict[str, Any]) -> None:
    usage_history(departments, months=36)
    result, _ = run_forecast([1.0] * 20, start=date(2020, 1, 1), frequency="M", horizon=3, aggregate="sum")
    old = ForecastFit.objects.create(
        metric="core_hours", units="core-hours/month", frequency="M", start=date(2020, 1, 1),
        through=date(2021, 12, 1), values=[1.0] * 24, options={"horizon": 3}, family="linear", selection="backtest",
        reason="old", parameters={"slope": 1.0}, errors={}, yearly=[{"year": 2022, "median": 1.0, "p10": 1.0,
                                                                      "p90": 1.0, "periods_observed": 0,
                                                                      "periods_forecast": 3, "complete": False}],
        result={**{k: result[k] for k in ("history_dates", "history", "steps", "log", "log_reason", "seed",
                                          "backtest_origins", "backtest_horizon", "aggregate", "n_boot")},
                "family": "linear", "fits": [{**result["fits"][1], "family": "linear", "params": {"slope": 1.0}}],
                "skipped": {}},
    )
    login(client, planner_user)
    assert client.get(f"/forecasts/fits/{old.pk}/").status_code == 200
    assert client.get(f"/api/v1/forecasts/{old.pk}/").status_code == 200


def test_the_dashboard_never_quotes_a_part_year_as_a_year() -> None:
    yearly = [
        {"year": 2028, "median": 30e6, "p10": 25e6, "p90": 35e6, "periods_observed": 0, "periods_forecast": 12,
         "complete": True},
        {"year": 2029, "median": 33e6, "p10": 26e6, "p90": 40e6, "periods_observed": 0, "periods_forecast": 11,
         "complete": False},
    ]
    line = forecast_status("minerva", yearly)
    assert "2028 (whole year): 30.0 M core-hours in total, 80% range 25.0–35.0 M" in line and "2029" not in line
    only_part = forecast_status("minerva", yearly[1:])
    assert "no whole forecast year yet" in only_part and "11 of 12 months" in only_part


def test_the_panel_page_offers_this_institutions_usage_as_a_panel_that_uploads_back(
        client: Client, planner_user: Any, genomics_viewer: Any, departments: dict[str, Any]) -> None:
    from forecasts.accounting.models import IngestRun

    login(client, planner_user)
    empty = client.get("/forecasts/panel/usage-panel.csv")
    assert empty.status_code == 404 and b"no usage loaded yet" in empty.content
    h = usage_history(departments, months=37)  # Jan 2020 .. Jan 2023, logs end on 6 January 2023
    IngestRun.objects.create(cluster=h["cluster"], format="slurm", status=IngestRun.Status.COMPLETED,
                             last_end=datetime(2023, 1, 6, 12, tzinfo=UTC))
    assert 'href="/forecasts/panel/usage-panel.csv"' in client.get("/forecasts/panel/").content.decode()
    resp = client.get("/forecasts/panel/usage-panel.csv")
    assert resp.status_code == 200 and resp["Content-Type"] == "text/csv"
    rows = list(csv.DictReader(io.StringIO(resp.content.decode())))
    by_id: dict[str, list[dict[str, str]]] = {}
    for r in rows:
        by_id.setdefault(r["series_id"], []).append(r)
    assert len(by_id) == 2 and all(sid.startswith("minerva/") for sid in by_id), by_id.keys()
    for pts in by_id.values():  # 36 whole months: the partial January 2023 is left out
        assert [p["timestamp"] for p in pts][:2] == ["2020-01", "2020-02"] and pts[-1]["timestamp"] == "2022-12"
        assert len(pts) == 36
    genomics = next(pts for sid, pts in by_id.items() if sid.endswith("/" + departments["genomics"].code))
    assert float(genomics[0]["value"]) == pytest.approx(100_000 * 1.0, rel=1e-3)  # the three rows summed
    upload = io.BytesIO(resp.content)
    upload.name = "usage-panel-core-hours.csv"
    page = client.post("/forecasts/panel/", {"file": upload, "frequency": "M", "horizon": 12, "holdout": 12})
    assert page.status_code == 200 and 'id="panel-scores"' in page.content.decode()
    # a monthly panel: no pooled member by default, and the page says why
    note = page.content.decode().split('id="panel-global-note"')[1].split("</p>")[0]
    assert "no pooled global member: by default only yearly and quarterly panels get one" in note
    login(client, genomics_viewer)  # every department's usage: planners and admins only
    assert client.get("/forecasts/panel/usage-panel.csv").status_code == 403

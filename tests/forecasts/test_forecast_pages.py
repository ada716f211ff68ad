"""Forecast pages and API: planners use them; department viewers get 403 everywhere."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from forecasts.demand.plans import plan_import_file
from forecasts.demand.series import forecast_fit_create, spec_from_names
from forecasts.models import ExternalSeries, ForecastFit, SequencerPlan
from tests.forecasts.forecast_factories import usage_history
from tests.helpers import login

ROOT = Path(__file__).resolve().parents[2]
MINERVA = ROOT / "fixtures" / "minerva_sequencer_plan.yaml"
PRICES = ROOT / "fixtures" / "price_disk_usd_per_tb.csv"

pytestmark = pytest.mark.django_db


@pytest.fixture
def loaded(departments: dict[str, Any]) -> dict[str, Any]:
    usage_history(departments, months=36)
    plan, _ = plan_import_file(MINERVA)
    fit = forecast_fit_create(spec_from_names(metric="core_hours", cluster="minerva"), horizon_months=24)
    return {"plan": plan, "fit": fit}


def page_urls(loaded: dict[str, Any]) -> list[str]:
    p, f = loaded["plan"].pk, loaded["fit"].pk
    return ["/forecasts/", f"/forecasts/fits/{f}/", f"/forecasts/fits/{f}/yearly.csv",
            f"/forecasts/fits/{f}/forecast.csv", "/forecasts/combined/", "/forecasts/series/",
            "/forecasts/plans/", f"/forecasts/plans/{p}/", f"/forecasts/plans/{p}/edit/",
            f"/forecasts/plans/{p}/export.yaml", f"/forecasts/plans/{p}/export.csv",
            f"/forecasts/plans/{p}/export.counts", f"/forecasts/plans/compare/?a={p}&b={p}"]


def test_a_department_viewer_gets_403_on_every_forecast_page_and_api(
        client: Client, loaded: dict[str, Any], genomics_viewer: Any) -> None:
    login(client, genomics_viewer)
    for url in page_urls(loaded):
        assert client.get(url).status_code == 403, url
    assert client.post("/forecasts/refit-all/").status_code == 403
    assert client.post(f"/forecasts/plans/{loaded['plan'].pk}/derive.json", {}).status_code == 403
    for url in ("/api/v1/sequencer-plans/", "/api/v1/forecasts/", "/api/v1/external-series/",
                f"/api/v1/forecasts/{loaded['fit'].pk}/"):
        assert client.get(url).status_code == 403, url
    assert client.post("/api/v1/forecasts/", {"metric": "core_hours"}).status_code == 403


def test_a_planner_opens_every_page(client: Client, loaded: dict[str, Any], planner_user: Any) -> None:
    login(client, planner_user)
    for url in page_urls(loaded):
        resp = client.get(url)
        assert resp.status_code == 200, url
    fit_page = client.get(f"/forecasts/fits/{loaded['fit'].pk}/").content.decode()
    assert 'data-figure="fan-fig"' in fit_page and "Model table" in fit_page
    assert "What we would have predicted a year ago" in fit_page
    plan_page = client.get(f"/forecasts/plans/{loaded['plan'].pk}/").content.decode()
    assert "core-hours on ivy-bridge" in plan_page and "31.5 M" in plan_page and "48 M" in plan_page
    yearly = client.get(f"/forecasts/fits/{loaded['fit'].pk}/yearly.csv").content.decode()
    assert yearly.splitlines()[0].startswith("fit,series,units,family,year,median,p10,p90")
    # a year of core-hours is its months summed: per year, not per month (it said core-hours/month)
    assert all(",core-hours/year," in row for row in yearly.splitlines()[1:])
    assert "median core-hours/year" in fit_page
    assert "Points: observed months." in fit_page and "python manage.py forecast --cluster minerva" in fit_page
    # 36 monthly values: neither short nor yearly, so no interval caveat (monthly panels held 0.80: measured)
    assert loaded["fit"].interval_caveat is None and 'id="short-history-intervals"' not in fit_page


def test_the_series_picker_fits_and_lands_on_the_fan_chart(client: Client, loaded: dict[str, Any],
                                                           admin_user: Any) -> None:
    login(client, admin_user)
    resp = client.post("/forecasts/", {"cluster": "minerva", "department": "ggs", "metric": "jobs",
                                       "horizon": "12"})
    fit = ForecastFit.objects.get(metric="jobs")
    assert resp.status_code == 302 and resp["Location"] == f"/forecasts/fits/{fit.pk}/"
    override = client.post(f"/forecasts/fits/{fit.pk}/", {"family": "linear"})
    newest = ForecastFit.objects.order_by("-pk").first()
    assert override["Location"] == f"/forecasts/fits/{newest.pk}/" and newest.family == "linear"
    assert newest.selection == "override"
    # "all but" a department: the trend a sequencer plan goes on top of
    assert '<option value="not:ggs">all but ' in client.get("/forecasts/").content.decode()
    resp = client.post("/forecasts/", {"cluster": "minerva", "department": "not:ggs", "metric": "jobs",
                                       "horizon": "12"})
    rest = ForecastFit.objects.order_by("-pk").first()
    assert resp["Location"] == f"/forecasts/fits/{rest.pk}/"
    assert rest.exclude_department.code == "ggs" and rest.department is None


def test_storage_forecast_in_the_picker_explains_no_scans(client: Client, loaded: dict[str, Any],
                                                          planner_user: Any) -> None:
    login(client, planner_user)
    resp = client.post("/forecasts/", {"metric": "storage_pb", "horizon": "12"})
    assert resp.status_code == 200 and "no storage scans loaded" in resp.content.decode()


def test_the_plan_editor_recomputes_and_saves_a_new_version(client: Client, loaded: dict[str, Any],
                                                            planner_user: Any) -> None:
    login(client, planner_user)
    plan = loaded["plan"]
    form = {"date-0-0": "2013-01-01", "count-0-0": "5", "date-0-1": "2015-01-01", "count-0-1": "9",
            "date-0-2": "2019-01-01", "count-0-2": "24", "rpw-0": "1"}
    derived = client.post(f"/forecasts/plans/{plan.pk}/derive.json", form).json()
    y2019 = next(y for y in derived["years"] if y["year"] == 2019)
    assert y2019["instruments_end"] == 24
    assert y2019["core_hours_ref"] / 1e6 > 1.5 * 48.0  # twice the new samples; re-analysis of older cohorts
    assert SequencerPlan.objects.count() == 1  # nothing saved yet
    resp = client.post(f"/forecasts/plans/{plan.pk}/edit/", {**form, "note": "double the 2019 fleet"})
    v2 = SequencerPlan.objects.get(version=2)
    assert resp["Location"] == f"/forecasts/plans/{v2.pk}/" and v2.parent == plan and v2.created_by == planner_user
    bad = client.post(f"/forecasts/plans/{plan.pk}/derive.json", {"rpw-0": "lots"})
    assert bad.status_code == 400 and "error" in bad.json()
    compare = client.get(f"/forecasts/plans/compare/?a={plan.pk}&b={v2.pk}").content.decode()
    assert "Instruments at year end" in compare and "+100%" in compare


def test_uploading_a_series_fits_it_and_offers_the_forecast_csv(client: Client, planner_user: Any) -> None:
    login(client, planner_user)
    upload = SimpleUploadedFile("prices.csv", PRICES.read_bytes(), content_type="text/csv")
    resp = client.post("/forecasts/series/", {"name": "Disk", "units": "USD/TB", "frequency": "A",
                                              "aggregate": "mean", "horizon": "5", "log": "auto", "file": upload})
    series = ExternalSeries.objects.get(name="Disk")
    assert resp["Location"] == f"/forecasts/series/{series.pk}/"
    page = client.get(resp["Location"]).content.decode()
    assert "Predicted from" in page and "USD/TB" in page and "MASE" in page
    assert "2025 median" in page and "2029 median" in page and "2025-01 median" not in page  # years, not months
    fit = series.fits.get()
    csv = client.get(f"/forecasts/fits/{fit.pk}/forecast.csv").content.decode().splitlines()
    assert csv[0].startswith("period,date,kind,value_USD/TB,median") and csv[-1].startswith("2029,2029-01-01,forecast")
    assert csv[1].split(",")[:3] == ["2005", "2005-01-01", "observed"]  # years named as years, the date kept


@pytest.mark.parametrize("horizon", ["abc", "0", "-2", "241", "2.5"])
def test_a_series_horizon_out_of_range_is_refused_before_anything_is_stored(
        client: Client, planner_user: Any, horizon: str) -> None:
    login(client, planner_user)
    upload = SimpleUploadedFile("prices.csv", PRICES.read_bytes(), content_type="text/csv")
    resp = client.post("/forecasts/series/", {"name": "Disk", "units": "USD/TB", "frequency": "A",
                                              "aggregate": "mean", "horizon": horizon, "log": "auto", "file": upload})
    assert resp.status_code == 200 and not ExternalSeries.objects.exists()  # not clamped to another horizon
    assert "horizon: expected a whole number of periods from 1 to 240, got" in resp.content.decode()
    upload = SimpleUploadedFile("prices.csv", PRICES.read_bytes(), content_type="text/csv")
    client.post("/forecasts/series/", {"name": "Disk", "units": "USD/TB", "frequency": "A", "aggregate": "mean",
                                       "horizon": "", "log": "auto", "file": upload})  # blank: the default, 5
    series = ExternalSeries.objects.get()
    assert series.fits.get().options["horizon"] == 5
    page = client.post(f"/forecasts/series/{series.pk}/", {"horizon": horizon}, follow=True).content.decode()
    assert "horizon: expected a whole number of periods from 1 to 240" in page and series.fits.count() == 1
    for origins in ("x", "-1", "61"):  # the backtest's origins are refused the same way
        page = client.post(f"/forecasts/series/{series.pk}/", {"horizon": "5", "backtest": origins},
                           follow=True).content.decode()
        assert "backtest: expected a whole number of origins from 0 to 60" in page and series.fits.count() == 1
    client.post(f"/forecasts/series/{series.pk}/", {"horizon": "5", "backtest": "00"})
    assert series.fits.count() == 2 and series.fits.latest("created_at").options["backtest_origins"] == 0


def test_a_series_upload_with_blank_values_says_which_lines_are_gaps(client: Client, planner_user: Any) -> None:
    login(client, planner_user)
    rows = "year,value\n" + "".join(f"{2000 + i},{'' if i in (3, 6) else 100 + 5 * i}\n" for i in range(14))
    upload = SimpleUploadedFile("holes.csv", rows.encode())
    resp = client.post("/forecasts/series/", {"name": "Holes", "units": "u", "frequency": "A", "horizon": "3",
                                              "file": upload}, follow=True)
    page = resp.content.decode()
    assert "holes.csv: 2 periods without a value (lines 5, 8): kept as gaps, not as zeros" in page
    assert len(ExternalSeries.objects.get(name="Holes").points) == 12


def test_a_fit_whose_backtest_misses_more_than_a_naive_step_says_so(client: Client, planner_user: Any) -> None:
    """MASE above 1 (the backtest's errors exceed the history's period-to-period change) gets a plain warning on
    the page and in the JSON; a forecast that beats the naive step gets none."""
    login(client, planner_user)
    # quiet for years, then a run of jumps the models cannot see coming: every backtest origin misses
    values = [100 + (i % 2) for i in range(12)] + [160, 110, 190, 120, 230, 125]
    rows = "year,value\n" + "".join(f"{2000 + i},{v}\n" for i, v in enumerate(values))
    client.post("/forecasts/series/", {"name": "Jumpy", "units": "PB", "frequency": "A", "horizon": "3",
                                       "file": SimpleUploadedFile("jumpy.csv", rows.encode())})
    fit = ExternalSeries.objects.get(name="Jumpy").fits.get()
    assert fit.errors["mase"] > 1
    page = client.get(f"/forecasts/fits/{fit.pk}/").content.decode()
    assert 'id="accuracy-caveat"' in page and f"Backtest MASE {fit.errors['mase']:.2f}" in page
    assert "up to 3 years ahead" in page
    summary = client.get(f"/api/v1/forecasts/{fit.pk}/").json()["summary"]
    assert summary["accuracy_caveat"].startswith("Backtest MASE")
    client.post("/forecasts/series/", {"name": "Smooth", "units": "USD/TB", "frequency": "A", "horizon": "3",
                                       "file": SimpleUploadedFile("prices.csv", PRICES.read_bytes())})
    smooth = ExternalSeries.objects.get(name="Smooth").fits.get()
    assert smooth.errors["mase"] < 1
    assert 'id="accuracy-caveat"' not in client.get(f"/forecasts/fits/{smooth.pk}/").content.decode()
    assert client.get(f"/api/v1/forecasts/{smooth.pk}/").json()["summary"]["accuracy_caveat"] is None


def test_a_short_history_s_fit_page_says_its_intervals_run_narrow(client: Client, planner_user: Any) -> None:
    login(client, planner_user)
    rows = "year,value\n" + "".join(f"{2010 + i},{100 * 1.2 ** i * (1 + 0.05 * (-1) ** i):.1f}\n" for i in range(10))
    resp = client.post("/forecasts/series/", {"name": "Short", "units": "PB", "frequency": "A", "horizon": "3",
                                              "file": SimpleUploadedFile("short.csv", rows.encode())}, follow=True)
    assert resp.status_code == 200
    fit = ExternalSeries.objects.get(name="Short").fits.get()
    page = client.get(f"/forecasts/fits/{fit.pk}/").content.decode()
    assert 'id="short-history-intervals"' in page and "10 values fitted" in page
    assert "(10 whole years)" in page  # a yearly series' periods are years, not months
    assert "history 2010 – 2019 (10 whole years)" in page  # and its history is named in years, not as 2010-01
    assert "10 values fitted" in client.get(f"/api/v1/forecasts/{fit.pk}/").json()["summary"]["interval_caveat"]
    client.post("/forecasts/series/", {"name": "Long", "units": "USD/TB", "frequency": "A", "horizon": "3",
                                       "file": SimpleUploadedFile("prices.csv", PRICES.read_bytes())})
    long_fit = ExternalSeries.objects.get(name="Long").fits.get()
    # a long yearly series is not short, but forecast on its own its 80% band still runs narrow (measured)
    caveat = client.get(f"/api/v1/forecasts/{long_fit.pk}/").json()["summary"]["interval_caveat"]
    assert caveat.startswith("A yearly series forecast on its own") and "values fitted" not in caveat
    long_page = client.get(f"/forecasts/fits/{long_fit.pk}/").content.decode()
    assert "68-79% of the later years" in long_page
    # a yearly series holds back three years, not "a year", and counts them in years
    assert "What we would have predicted 3 years ago" in long_page and "3 following years fell inside" in long_page
    # its trace re-makes it with the external-series command (not `forecast --metric external`) and counts years
    assert "python manage.py forecast_series FILE --frequency A --horizon 3" in long_page
    assert "--metric external" not in long_page and "Points: observed years." in long_page


def test_a_bad_series_upload_names_the_line(client: Client, planner_user: Any) -> None:
    login(client, planner_user)
    upload = SimpleUploadedFile("bad.csv", b"year,value\n2001,1\n2002,x\n2003,2\n")
    resp = client.post("/forecasts/series/", {"name": "B", "units": "u", "frequency": "A", "file": upload})
    assert resp.status_code == 200 and "bad.csv line 3" in resp.content.decode()


def test_api_plans_crud_with_versions(client: Client, planner_user: Any) -> None:
    import yaml

    login(client, planner_user)
    doc = yaml.safe_load(MINERVA.read_text())
    created = client.post("/api/v1/sequencer-plans/", {"document": doc}, content_type="application/json")
    assert created.status_code == 201
    body = created.json()
    assert next(y for y in body["figures"]["years"] if y["year"] == 2019)["core_hours_by_node"]["ivy_bridge"] \
        == pytest.approx(48e6 * 2.3 / 3.5, rel=2e-3)
    doc["instruments"][0]["runs_per_week"] = 2.0
    updated = client.put(f"/api/v1/sequencer-plans/{body['id']}/", {"document": doc, "note": "2 runs a week"},
                         content_type="application/json")
    assert updated.status_code == 201 and updated.json()["version"] == 2
    versions = client.get(f"/api/v1/sequencer-plans/{body['id']}/versions/").json()
    assert [v["version"] for v in versions] == [2, 1]
    bad = client.post("/api/v1/sequencer-plans/", {"document": {"name": "x"}}, content_type="application/json")
    assert bad.status_code == 400 and "missing field" in str(bad.json())
    assert client.delete(f"/api/v1/sequencer-plans/{body['id']}/").status_code == 204


def test_api_forecast_create_list_detail(client: Client, departments: dict[str, Any], planner_user: Any) -> None:
    usage_history(departments, months=30)
    login(client, planner_user)
    resp = client.post("/api/v1/forecasts/", {"metric": "core_hours", "cluster": "minerva", "department": "ggs",
                                              "horizon_months": 12}, content_type="application/json")
    assert resp.status_code == 201
    s = resp.json()["summary"]
    assert s["department"] == "ggs" and s["yearly"] and s["backtest"]["mase"] is not None
    listed = client.get("/api/v1/forecasts/").json()
    rows = listed["results"] if isinstance(listed, dict) else listed
    assert rows[0]["id"] == resp.json()["id"]
    full = client.get(f"/api/v1/forecasts/{resp.json()['id']}/?full=1").json()
    assert full["result"]["steps"] and len(full["result"]["history"]) == 30
    bad = client.post("/api/v1/forecasts/", {"metric": "storage_pb"}, content_type="application/json")
    assert bad.status_code == 400 and "no storage scans loaded" in str(bad.json())


def test_api_external_series_upload_and_forecast(client: Client, planner_user: Any) -> None:
    login(client, planner_user)
    resp = client.post("/api/v1/external-series/", {"name": "Disk", "units": "USD/TB", "frequency": "A",
                                                    "file": SimpleUploadedFile("p.csv", PRICES.read_bytes())})
    assert resp.status_code == 201 and len(resp.json()["points"]) == 20 and resp.json()["gap_lines"] == []
    holes = client.post("/api/v1/external-series/", {"name": "Holes", "units": "u", "frequency": "A",
                                                     "csv": "year,value\n2001,1\n2002,\n2003,3\n2004,NA\n2005,5\n"},
                        content_type="application/json")
    assert holes.status_code == 201 and holes.json()["gap_lines"] == [3, 5] and len(holes.json()["points"]) == 3
    fc = client.post(f"/api/v1/external-series/{resp.json()['id']}/forecast/", {"horizon": 3, "backtest": 8},
                     content_type="application/json")
    assert fc.status_code == 201
    body = fc.json()
    assert len(body["forecast"]) == 3 and body["backtest"]["origins"] >= 2 and body["units"] == "USD/TB"
    assert [r["period"] for r in body["forecast"]] == ["2025", "2026", "2027"]  # the series ends in 2024


def test_a_year_outside_the_plan_has_no_plan_figure_and_no_storage_figure_without_a_trend(
        client: Client, loaded: dict[str, Any], planner_user: Any) -> None:
    from forecasts.demand.plans import combined_projection

    proj = combined_projection(plan_row=loaded["plan"], core_fit=loaded["fit"])
    rows = {r["year"]: r for r in proj["years"]}
    assert rows[2016]["in_plan"] and rows[2016]["has_storage"] and rows[2016]["plan_stored_pb"] > 0
    assert not rows[2022]["in_plan"] and not rows[2022]["has_storage"]  # the plan ends in 2019; usage from 2020
    html = login(client, planner_user).get(
        f"/forecasts/combined/?plan={loaded['plan'].pk}&fit={loaded['fit'].pk}").content.decode()
    row_2022 = html[html.index("<tr><td>2022"):].split("</tr>")[0]
    assert "no storage figure" in row_2022 and "0.00" not in row_2022


def test_a_steps_date_is_named_as_the_series_period() -> None:
    from forecasts.templatetags.forecast_extras import period

    assert [period("2016-01-01", f) for f in ("A", "S", "Q", "M")] == ["2016", "2016-H1", "2016-Q1", "2016-01"]
    assert [period("2016-07-01", f) for f in ("S", "Q")] == ["2016-H2", "2016-Q3"]
    assert period("", "A") == "" and period("n/a", "Q") == "n/a"

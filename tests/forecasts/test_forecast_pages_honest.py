"""What the forecast pages say is what they show: the plan's years on the combined projection, the fit's own
series readable under a plan or a capacity far larger, the horizon's range, the fit's settings as words."""

from __future__ import annotations

import json
import re
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from forecasts.demand.fit_inputs import fit_inputs
from forecasts.demand.plans import plan_import_file
from forecasts.demand.series import SeriesSpec, forecast_fit_create, spec_from_names
from forecasts.models import ForecastFit
from tests.forecasts.forecast_factories import usage_history
from tests.helpers import login

MINERVA = Path(__file__).resolve().parents[2] / "fixtures" / "minerva_sequencer_plan.yaml"  # 2013-2019

pytestmark = pytest.mark.django_db


def _figure(html: str, element: str) -> dict[str, Any]:
    found = re.search(rf'<script id="{element}" type="application/json">(.*?)</script>', html, re.S)
    assert found, element
    return json.loads(found.group(1))


def _traces(fig: dict[str, Any], prefix: str) -> list[dict[str, Any]]:
    return [t for t in fig["data"] if t["name"].startswith(prefix)]


def test_the_combined_projection_says_which_years_the_plan_covers_and_that_later_totals_leave_it_out(
        client: Client, departments: dict[str, Any], planner_user: Any) -> None:
    usage_history(departments, months=36)  # 2020-2022: the plan (2013-2019) and the trend never overlap
    plan, _ = plan_import_file(MINERVA, department="ggs")
    trend = forecast_fit_create(SeriesSpec("core_hours", exclude_department=departments["genomics"]),
                                horizon_months=24)
    html = login(client, planner_user).get(f"/forecasts/combined/?plan={plan.pk}&fit={trend.pk}").content.decode()
    note = html.split('id="plan-coverage">', 1)[1].split("</p>", 1)[0]
    assert "covers 2013–2019 only" in note and "2020–2024 are outside it" in note
    assert "leave out department ggs's sequencing" in note
    assert 'id="table-coverage"' in html
    row_2021 = html[html.index("<tr><td>2021"):].split("</tr>")[0]
    row_2019 = html[html.index("<tr><td>2019"):].split("</tr>")[0]
    assert "trend only" in row_2021 and "trend only" not in row_2019
    fig = _figure(html, "combined-fig")
    only = _traces(fig, "usage trend only")
    assert len(only) == 1 and only[0]["x"] == ["2020", "2021", "2022", "2023", "2024"]
    assert "department ggs's sequencing not included" in only[0]["name"]
    assert _traces(fig, "usage trend (median)")[0]["x"] == []  # no year has both
    assert [s["x0"] for s in fig["layout"]["shapes"]] == [2019.5]  # the plan's end, marked where the bars drop
    assert "plan covers 2013–2019" in fig["layout"]["annotations"][0]["text"]
    # a plan that covers every year of the trend: no warning, no hatched bars
    alone = client.get(f"/forecasts/combined/?plan={plan.pk}&fit={trend.pk}&mode=plan").content.decode()
    assert "are outside it" not in alone and not _traces(_figure(alone, "combined-fig"), "usage trend only")


@pytest.fixture
def overlapping(departments: dict[str, Any]) -> dict[str, Any]:
    """Usage from 2016 (inside the Minerva plan's years); the plan is department ggs's sequencing."""
    usage_history(departments, months=36, start=date(2016, 1, 1))
    plan, _ = plan_import_file(MINERVA, department="ggs")
    ggs = forecast_fit_create(spec_from_names(metric="core_hours", cluster="minerva", department="ggs"),
                              horizon_months=12)
    scb = forecast_fit_create(spec_from_names(metric="core_hours", cluster="minerva", department="scb"),
                              horizon_months=12)
    everyone = forecast_fit_create(SeriesSpec("core_hours"), horizon_months=12)
    return {"plan": plan, "ggs": ggs, "scb": scb, "everyone": everyone}


def test_a_plan_far_larger_than_the_department_s_usage_starts_hidden_so_the_series_stays_readable(
        client: Client, overlapping: dict[str, Any], planner_user: Any) -> None:
    login(client, planner_user)
    html = client.get(f"/forecasts/fits/{overlapping['ggs'].pk}/").content.decode()
    plan = _traces(_figure(html, "fan-fig"), "sequencer plan")
    assert plan and all(t["visible"] == "legendonly" and t["stackgroup"] == "plan" for t in plan)
    caption = html.split('id="plan-caption">', 1)[1].split("</span>", 1)[0]
    assert "start hidden" in caption and "not added onto this series" in caption


def test_a_plan_is_not_drawn_by_default_on_another_department_s_series(
        client: Client, overlapping: dict[str, Any], planner_user: Any) -> None:
    login(client, planner_user)
    html = client.get(f"/forecasts/fits/{overlapping['scb'].pk}/").content.decode()
    assert not _traces(_figure(html, "fan-fig"), "sequencer plan") and 'id="plan-caption"' not in html
    # asked for, it is drawn, and the caption says whose sequencing it is
    asked = client.get(f"/forecasts/fits/{overlapping['scb'].pk}/?plan={overlapping['plan'].pk}").content.decode()
    assert _traces(_figure(asked, "fan-fig"), "sequencer plan")
    assert "department ggs's sequencing, which this series may not hold" in asked
    # the whole site's series holds ggs: the plan is its default
    whole = client.get(f"/forecasts/fits/{overlapping['everyone'].pk}/").content.decode()
    assert _traces(_figure(whole, "fan-fig"), "sequencer plan")


def test_the_caption_names_the_red_capacity_line_only_when_it_is_drawn(
        client: Client, overlapping: dict[str, Any], planner_user: Any) -> None:
    from forecasts.accounting.models import ClusterCapacity

    login(client, planner_user)
    for fit, says in ((overlapping["everyone"], "this series spans every cluster"),
                      (overlapping["ggs"], "capacity (cores) is not recorded")):
        html = client.get(f"/forecasts/fits/{fit.pk}/").content.decode()
        assert "red line" not in html and says in html
        assert not _traces(_figure(html, "fan-fig"), "capacity")
    ClusterCapacity.objects.create(cluster=overlapping["ggs"].cluster, effective_from=date(2015, 1, 1), cores=20_000)
    html = client.get(f"/forecasts/fits/{overlapping['ggs'].pk}/").content.decode()
    line = _traces(_figure(html, "fan-fig"), "capacity")
    assert len(line) == 1 and line[0]["visible"] == "legendonly"  # 14.6 M a month over a ~0.3 M series
    assert "The red line is today's capacity of minerva" in html and "hidden at first" in html


@pytest.mark.parametrize("horizon", ["abc", "-5", "0", "99999", "1.5"])
def test_the_series_picker_refuses_a_horizon_out_of_range_and_names_the_range(
        client: Client, departments: dict[str, Any], planner_user: Any, horizon: str) -> None:
    usage_history(departments, months=24)
    resp = login(client, planner_user).post("/forecasts/", {"cluster": "minerva", "metric": "core_hours",
                                                            "horizon": horizon})
    assert resp.status_code == 200 and not ForecastFit.objects.exists()
    error = resp.content.decode().split('id="picker-error">', 1)[1].split("</p>", 1)[0]
    assert "horizon: expected a whole number of months from 1 to 240, got" in error


def test_a_blank_horizon_is_the_default_and_the_page_says_so(
        client: Client, departments: dict[str, Any], planner_user: Any) -> None:
    usage_history(departments, months=24)
    resp = login(client, planner_user).post("/forecasts/", {"cluster": "minerva", "metric": "core_hours",
                                                            "horizon": ""}, follow=True)
    fit = ForecastFit.objects.get()
    assert fit.options["horizon"] == 36
    assert "No horizon given: the default, 36 months, was used." in resp.content.decode()


def test_a_horizon_with_no_whole_forecast_year_works_and_says_there_is_none_yet(
        client: Client, departments: dict[str, Any], planner_user: Any) -> None:
    usage_history(departments, months=24)  # 2020-2021: one month ahead is January 2022, a part year
    resp = login(client, planner_user).post("/forecasts/", {"cluster": "minerva", "metric": "core_hours",
                                                            "horizon": "1"}, follow=True)
    html = resp.content.decode()
    assert ForecastFit.objects.get().options["horizon"] == 1 and 'id="no-whole-year"' in html
    twelve = forecast_fit_create(spec_from_names(metric="core_hours", cluster="minerva"), horizon_months=12)
    assert 'id="no-whole-year"' not in client.get(f"/forecasts/fits/{twelve.pk}/").content.decode()


@pytest.mark.parametrize("horizon", ["abc", 0, -5, 99999, 241, None])
def test_the_api_refuses_a_horizon_out_of_range_with_the_same_rule(
        client: Client, departments: dict[str, Any], planner_user: Any, horizon: Any) -> None:
    usage_history(departments, months=24)
    resp = login(client, planner_user).post("/api/v1/forecasts/", {"cluster": "minerva", "horizon_months": horizon},
                                            content_type="application/json")
    assert resp.status_code == 400 and not ForecastFit.objects.exists()
    assert resp.json()["horizon_months"] == ["expected a whole number of months from 1 to 240"]


def test_the_trace_lists_the_fit_s_settings_in_words(
        client: Client, departments: dict[str, Any], planner_user: Any) -> None:
    usage_history(departments, months=24)
    fit = forecast_fit_create(spec_from_names(metric="core_hours", cluster="minerva"), horizon_months=12)
    html = login(client, planner_user).get(f"/forecasts/fits/{fit.pk}/").content.decode()
    trace = html.split('id="fit-inputs">', 1)[1].split("</dl>", 1)[0]
    assert "<dt>Horizon</dt><dd>12 months</dd>" in trace and "<dt>Scale</dt><dd>automatic" in trace
    assert "{&#x27;log&#x27;" not in html and "{'log'" not in html


def test_fit_settings_read_as_words_without_a_database() -> None:
    rows = dict(fit_inputs({"horizon": 24, "log": True, "growth_rate": 20.0, "family_override": "ets",
                            "through_requested": "2023-06-01", "extra_knob": 3}, seed=7))
    assert rows == {"Horizon": "24 months", "Model": "pinned to ets", "Scale": "log (forced)",
                    "Growth rate": "20 % per year (a projection at that rate, no statistical fit)",
                    "History through": "2023-06", "Seed": "7", "Extra knob": "3"}

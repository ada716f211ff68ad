"""The series picker after a refusal: a planner who asked for a young cluster's forecast is told the history is
short and to enter a growth rate "above" and press "Fit and forecast" again; the form must still name the series
asked for, or that second press fits another series (found on a QA walk: the picker came back on "all clusters",
"all departments", "Core-hours", and the growth-rate projection was stored for every cluster's history)."""

from __future__ import annotations

import re
from datetime import date
from typing import Any

import pytest
from django.test import Client

from forecasts.models import ForecastFit
from tests.forecasts.forecast_factories import usage_history
from tests.helpers import login

pytestmark = pytest.mark.django_db


def _selected(html: str, name: str) -> str | None:
    select = re.search(rf'<select name="{name}"[^>]*>(.*?)</select>', html, re.S)
    assert select, name
    chosen = re.findall(r'<option value="([^"]*)"[^>]*\bselected\b', select.group(1))
    return chosen[0] if chosen else None


def test_a_refused_fit_keeps_the_series_asked_for_in_the_picker(
        client: Client, departments: dict[str, Any], planner_user: Any) -> None:
    usage_history(departments, months=30)  # minerva: long enough
    usage_history(departments, months=2, cluster="young", start=date(2024, 3, 1))
    resp = login(client, planner_user).post("/forecasts/", {
        "cluster": "young", "department": "not:ggs", "metric": "jobs", "horizon": "24"})
    html = resp.content.decode()
    assert resp.status_code == 200 and not ForecastFit.objects.exists()
    assert "are needed" in html and 'name="growth_rate"' in html
    assert _selected(html, "cluster") == "young"
    assert _selected(html, "department") == "not:ggs"
    assert _selected(html, "metric") == "jobs"
    assert 'name="horizon" value="24"' in html
    options = html.split('id="short-history-options">', 1)[1].split("</p>", 1)[0]
    assert "growth rate" in options and "/forecasts/combined/?mode=plan" in options  # issue 15: rate or plan only


def test_the_growth_rate_retry_fits_the_young_cluster_not_every_cluster(
        client: Client, departments: dict[str, Any], planner_user: Any) -> None:
    usage_history(departments, months=30)
    usage_history(departments, months=2, cluster="young", start=date(2024, 3, 1))
    login(client, planner_user)
    html = client.post("/forecasts/", {"cluster": "young", "metric": "core_hours", "horizon": "12"}).content.decode()
    # a person presses the button again with what the form now holds, plus a growth rate
    form = {name: _selected(html, name) or "" for name in ("cluster", "department", "metric")}
    resp = client.post("/forecasts/", {**form, "horizon": "12", "growth_rate": "20"})
    assert resp.status_code == 302
    fit = ForecastFit.objects.get()
    assert fit.cluster is not None and fit.cluster.name == "young" and fit.family == "growth_rate"


def test_an_unknown_series_in_a_post_does_not_select_anything_odd(
        client: Client, departments: dict[str, Any], planner_user: Any) -> None:
    usage_history(departments, months=30)
    html = login(client, planner_user).post("/forecasts/", {
        "cluster": "nosuch", "metric": "core_hours"}).content.decode()
    assert "unknown cluster" in html
    assert _selected(html, "cluster") is None  # "all clusters", the first option, shows


def test_the_fan_charts_title_names_the_department_as_the_heading_does(
        client: Client, departments: dict[str, Any], planner_user: Any) -> None:
    from forecasts.demand.series import forecast_fit_create, spec_from_names

    usage_history(departments, months=30)
    fit = forecast_fit_create(spec_from_names(metric="core_hours", cluster="minerva", department="ggs"),
                              horizon_months=12)
    html = login(client, planner_user).get(f"/forecasts/fits/{fit.pk}/").content.decode()
    start = html.index('id="fan-fig"')
    figure = html[html.index(">", start) + 1: html.index("</script>", start)]
    assert "minerva / Genetics and Genomic Sciences / core-hours per month: history" in figure
    assert "minerva / ggs /" not in figure  # the PNG a director downloads carries this title

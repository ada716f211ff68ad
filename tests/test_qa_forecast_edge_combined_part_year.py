"""The combined projection's chart drew a part year's bar like a whole year's.

Found on a QA walk: the trend of a cluster fitted with a 24-month horizon ends one month into 2027, and the combined
projection (trend alone) drew 2027 as a bar of 209 k core-hours beside 2.5 M for 2026: a collapse in demand, read off
the chart, where the table beside it said "(part year)". The chart now labels such a bar "part year" and draws it
pale and hatched, and its legend entry says what it is."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client

from tests.forecasts.forecast_factories import usage_history
from tests.helpers import login

pytestmark = pytest.mark.django_db


def _figure(html: str) -> dict[str, Any]:
    start = html.index('id="combined-fig"')
    return json.loads(html[html.index(">", start) + 1: html.index("</script>", start)])  # type: ignore[no-any-return]


def test_a_part_years_bar_is_labelled_and_set_apart(client: Client, departments: dict[str, Any],
                                                    planner_user: Any) -> None:
    usage_history(departments, months=24)  # 2020-2021
    login(client, planner_user)
    fit = client.post("/api/v1/forecasts/", {"metric": "core_hours", "cluster": "minerva", "horizon_months": 13},
                      content_type="application/json").json()["summary"]["fit"]
    html = client.get(f"/forecasts/combined/?fit={fit}&mode=trend").content.decode()
    assert "2023 <span class=\"muted\">(part year)</span>" in html
    bars = [t for t in _figure(html)["data"] if "plan" not in t["name"] and "2023" in t["x"]]
    assert len(bars) == 1 and bars[0]["x"] == ["2023"]
    assert "part year" in bars[0]["name"] and bars[0]["text"] == ["part year"]
    whole = [t for t in _figure(html)["data"] if "plan" not in t["name"] and "2022" in t["x"]]
    assert "2023" not in whole[0]["x"]

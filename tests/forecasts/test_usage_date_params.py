"""The usage page says when its From/To months cannot be read or run backwards, instead of showing 0."""

from __future__ import annotations

import csv
import html
import io
from pathlib import Path
from typing import Any

import pytest
from django.urls import reverse

from tests.forecasts.usage_data import load_usage
from tests.helpers import login

pytestmark = pytest.mark.django_db


@pytest.fixture
def usage(tmp_path: Path, departments: dict[str, Any]) -> Any:
    return load_usage(tmp_path, departments)


def test_an_inverted_range_is_swapped_and_the_page_says_so(client: Any, planner_user: Any, usage: Any) -> None:
    login(client, planner_user)
    everything = client.get(reverse("usage")).context["kpis"]["core_hours"]
    response = client.get(reverse("usage"), {"start": "2025-01", "end": "2014-01"})
    assert response.status_code == 200
    text = response.content.decode()
    assert 'id="date-notices"' in text
    assert "From month 2025-01 is after To month 2014-01: showing 2014-01 to 2025-01 instead." in text
    assert response.context["kpis"]["core_hours"] == pytest.approx(everything) and everything > 0
    assert 'name="start" value="2014-01"' in text and 'name="end" value="2025-01"' in text
    rows = list(csv.DictReader(io.StringIO(
        client.get(reverse("usage-csv"), {"start": "2025-01", "end": "2014-01"}).content.decode())))
    assert rows  # the export covers the same (swapped) range


@pytest.mark.parametrize(("params", "said"), [
    ({"start": "garbage"}, "From month (start='garbage') is not a month and was ignored: use YYYY-MM"),
    ({"end": "2024-13"}, "To month (end='2024-13') is not a month and was ignored: use YYYY-MM"),
])
def test_an_unreadable_month_is_named_with_the_expected_format(client: Any, planner_user: Any, usage: Any,
                                                               params: dict[str, str], said: str) -> None:
    login(client, planner_user)
    response = client.get(reverse("usage"), params)
    assert response.status_code == 200
    assert said in html.unescape(response.content.decode())


def test_readable_months_in_order_raise_no_notice(client: Any, planner_user: Any, usage: Any) -> None:
    login(client, planner_user)
    text = client.get(reverse("usage"), {"start": "2024-01", "end": "2024-02"}).content.decode()
    assert 'id="date-notices"' not in text


@pytest.mark.parametrize(("params", "said"), [
    ({"start": "garbage"}, "From month (start='garbage') is not a month and was ignored: use YYYY-MM"),
    ({"start": "2025-01", "end": "2014-01"},
     "From month 2025-01 is after To month 2014-01: showing 2014-01 to 2025-01"),
])
def test_the_workload_page_reads_months_as_the_usage_page_does(client: Any, planner_user: Any, usage: Any,
                                                               params: dict[str, str], said: str) -> None:
    login(client, planner_user)
    response = client.get(reverse("workload"), params)
    assert response.status_code == 200 and 'id="date-notices"' in response.content.decode()
    assert said in html.unescape(response.content.decode())
    if "end" in params:  # swapped, not an empty range: the same jobs as no filter at all
        assert response.context["t"] == client.get(reverse("workload")).context["t"]

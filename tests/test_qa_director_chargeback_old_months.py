"""The chargeback compute form offers every month with usage, not only the last 36.

Found on a QA walk: a director loaded KTH's 1996-97 trace beside the demo's 2017-2020 logs and could not price
June 1997 from the chargeback page (the month picker listed the last 36 months with usage only); the department
year page's buttons were the only way in."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from tests.forecasts.chargeback_data import ingest_lines, sacct_line, small_site
from tests.helpers import login

pytestmark = pytest.mark.django_db


def test_months_decades_apart_are_all_offered_grouped_by_year(client: Client, planner_user: Any,
                                                              departments: dict[str, Any], tmp_path: Path) -> None:
    small_site(tmp_path)  # March 2024
    # 1996-97 and 2021-23: 60 months, more than the 36 the form used to offer
    months = [f"{year}-{month:02d}" for year in (1996, 1997, 2021, 2022, 2023) for month in range(1, 13)]
    old = [sacct_line(900 + i, user="ola", account="kth", group="phys", start=f"{m}-02T08:00:00",
                      end=f"{m}-02T10:00:00", cluster="kth") for i, m in enumerate(months)]
    ingest_lines(old, tmp_path, cluster="kth", name="kth.txt")
    login(client, planner_user)
    page = client.get("/chargeback/").content.decode()
    form = page.split('name="month"')[1].split("</select>")[0]
    assert '<optgroup label="2024"><option value="2024-03">' in form
    assert 'value="1997-06"' in form and 'value="1996-01"' in form
    assert form.index('label="2024"') < form.index('label="2021"') < form.index('label="1997"') \
        < form.index('label="1996"')  # newest first

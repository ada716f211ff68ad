"""The workload page's Table 1: one number style across a row, and a period that ends where the logs do."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from django.urls import reverse

from forecasts.templatetags.forecast_extras import figs
from tests.forecasts.usage_data import load_usage
from tests.helpers import login


def test_figs_keeps_one_style_across_scales() -> None:
    assert [figs(v) for v in (2502.829, 1300.293, 24576.0, 22.6311, 0.01234, 100.0, None)] == [
        "2,503", "1,300", "24,576", "22.6", "0.0123", "100", "–"]


@pytest.mark.django_db
def test_table1_ends_the_period_where_the_logs_end(client: Any, planner_user: Any, tmp_path: Path,
                                                     departments: dict[str, Any]) -> None:
    load_usage(tmp_path, departments)  # these logs end on 20 February 2024, inside the month
    login(client, planner_user)
    html = client.get(reverse("workload") + "?cluster=minerva").content.decode()
    period = re.search(r'id="table1-period">([^<]*)<', html)
    assert period and period.group(1).endswith("2024-02-20, where the logs end (the last month is partial)")
    assert "(excl.)" not in period.group(1)
    # 10 x 2 h, 8 x 1 h, 64 x 3 h, 4 x 5 h: mean 60, max 192, min 8 core-hours, all in one style
    assert re.search(r"<td class=\"num\">60 / [0-9.,]+ / 192 / 8</td>", html)
    assert re.search(r"Core-hours, total</th><td class=\"num\">240</td>", html)

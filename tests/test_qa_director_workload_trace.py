"""The grant report's workload table traced to the Workload page (QA, session 26). The report's rows "Jobs that
ran under a day but requested a day or more: 576,349 (96%)" and "Share of requested wall time used: 4%" were
on no page (the Workload page gave only the 3-days figure, 465,799 (78%), and the median ratio), and its
"Minimum # of core hours used/job" read 0.000 where the page read 0.0003. The page now states both figures
the report quotes, and the report keeps the minimum's significant figures."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from tests.forecasts.usage_data import load_usage
from tests.helpers import login

pytestmark = pytest.mark.django_db


def test_every_workload_row_of_the_report_is_on_the_workload_page(
        tmp_path: Path, departments: dict[str, Any], planner_user: Any) -> None:
    from forecasts.workload.selectors import workload_report
    from planner.reports.workload_adapter import workload_facts

    load_usage(tmp_path, departments)  # four jobs asking for 2 days, each ran under a day: 11 of 192 h used
    rows = {r["label"]: r["value"] for r in workload_facts(
        report=workload_report(cluster="minerva", start=date(2024, 1, 1), end=date(2024, 2, 1)), refs=[])["rows"]}
    assert rows["Jobs that ran under a day but requested a day or more"] == "4 (100%)"
    assert rows["Share of requested wall time used"] == "6%"
    html = " ".join(login(Client(), planner_user).get(
        "/usage/workload/?cluster=minerva&start=2024-01&end=2024-02").content.decode().split())
    assert "jobs used 6% of the wall time they requested" in html
    assert "4 jobs (100% of the 4 with a wall-time request) asked for a day or more and ran under a day" in html
    assert "0 (0%) for 3 days or more" in html


def test_a_tiny_minimum_keeps_its_significant_figures() -> None:
    from planner.reports.workload_adapter import workload_facts

    t1 = {"jobs": 2, "core_hours": 1.0, "core_hours_per_job": {"max": 1.0, "min": 0.000278, "mean": 0.5,
                                                               "median": 0.5},
          "run_time_hours": {"max": 1.0, "mean": 0.5, "median": 0.5}}
    rows = {r["label"]: r["value"] for r in workload_facts(report={"table1": t1}, refs=[])["rows"]}
    assert rows["Minimum # of core hours used/job"] == "0.000278"
    t1["core_hours_per_job"]["min"] = 0.0
    rows = {r["label"]: r["value"] for r in workload_facts(report={"table1": t1}, refs=[])["rows"]}
    assert rows["Minimum # of core hours used/job"] == "0.000"

"""The workload page's growth chart draws a month with no jobs as zero, not as a ramp between its neighbours
(a cluster whose logs have gaps: the PBS log of XDMoD's tests has jobs in 2017-01 and 2020-04 only)."""

from __future__ import annotations

from forecasts.workload.charts import growth_figure, month_range


def _row(month: str, core_hours: float, department: str = "ggs") -> dict[str, object]:
    return {"month": month, "department": department, "department_name": department.upper(),
            "core_hours": core_hours, "jobs": 1, "users": 1}


def test_months_without_jobs_are_drawn_as_zero_between_the_first_and_the_last() -> None:
    figure = growth_figure([_row("2017-01", 65.4), _row("2017-04", 1555.6)])
    (trace,) = figure["data"]
    assert trace["x"] == ["2017-01", "2017-02", "2017-03", "2017-04"]
    assert trace["y"] == [65.4, 0, 0, 1555.6]


def test_month_range_crosses_year_ends_and_keeps_single_months() -> None:
    assert month_range([_row("2019-11", 1), _row("2020-02", 1)]) == ["2019-11", "2019-12", "2020-01", "2020-02"]
    assert month_range([_row("2020-02", 1)]) == ["2020-02"]
    assert month_range([]) == []


def test_a_partial_last_month_stays_apart_from_the_filled_stack() -> None:
    figure = growth_figure([_row("2019-12", 5.0), _row("2020-03", 7.0), _row("2020-04", 1.0)],
                           partial_month="2020-04")
    stacked = [t for t in figure["data"] if t.get("stackgroup")]
    assert stacked[0]["x"] == ["2019-12", "2020-01", "2020-02", "2020-03"]

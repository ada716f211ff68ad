"""bench_forecast times the engine (pure, no Django): the JSON keeps its figures."""

from __future__ import annotations

from typing import Any

from forecasts.demand import bench


def test_the_benchmark_times_the_engine_with_every_member_and_reports_cpu_seconds(capsys):
    out: Any = bench.main(n_series=2, workers=1)
    assert set(out["single_series_s"]) == {"max", "median"}
    assert out["single_series_cpu_s"]["median"] > 0
    assert out["batch"]["series"] == 2 and out["batch"]["cpu_seconds"] > 0
    settings = out["settings"]
    assert settings["engine"] == "forecasts.demand.engine" and settings["members"] >= 6
    assert settings["backtest_horizon"] == 36  # the backtest runs at the asked horizon
    assert sum(out["chosen_families"].values()) == 2
    assert capsys.readouterr().out.strip().startswith("{")

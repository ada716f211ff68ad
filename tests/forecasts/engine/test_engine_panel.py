"""Panels of series: timestamps in every style round-trip, bad rows name their line, holdout
scoring (pure, no Django)."""

from __future__ import annotations

import csv
import gzip
import io
import json
from pathlib import Path

import numpy as np
import pytest

from forecasts.demand.engine.panel import Options, PanelError, main, read_panel, run_panel, summarise, write_rows
from forecasts.demand.engine.timestamps import Style, format_period, parse_period, series_style

SHARED_M3 = Path(__file__).resolve().parents[4] / "shared" / "data" / "series" / "m3"


@pytest.mark.parametrize(("text", "frequency", "following"), [
    ("1989", "A", "1990"),
    ("1990-Q4", "Q", "1991-Q1"),
    ("1990-12", "M", "1991-01"),
    ("1990-H2", "S", "1991-H1"),
    ("1990-S1", "S", "1990-S2"),
    ("1990-07-01", "M", "1990-08-01"),
    ("1990-10-01", "Q", "1991-01-01"),
])
def test_every_timestamp_style_round_trips_and_the_next_period_keeps_the_style(text, frequency, following):
    style = series_style([text], frequency)
    p = parse_period(text, frequency)
    assert format_period(p, frequency, style) == text
    assert format_period(p + 1, frequency, style) == following


def test_month_end_dates_stay_month_ends():
    texts = ["2020-01-31", "2020-02-29", "2020-03-31"]
    style = series_style(texts, "M")
    assert style == Style("date", month_end=True)
    assert format_period(parse_period(texts[-1], "M") + 1, "M", style) == "2020-04-30"


def test_a_timestamp_that_does_not_fit_the_frequency_is_refused():
    with pytest.raises(ValueError, match="is a quarter but the frequency is A"):
        parse_period("1990-Q1", "A")


def _panel_csv(series: dict[str, list[tuple[str, float]]]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["series_id", "category", "value", "timestamp"])  # the M3 column order
    for sid, pts in series.items():
        for ts, v in pts:
            w.writerow([sid, "X", v, ts])
    return buf.getvalue()


def test_a_gzipped_panel_is_read_by_column_name_and_forecast_in_each_series_own_style(tmp_path):
    rng = np.random.default_rng(0)
    years = [(str(1980 + i), 100 + 5 * i + rng.normal()) for i in range(20)]
    quarters = [(f"{1990 + i // 4}-Q{i % 4 + 1}", 50 * 1.02 ** i) for i in range(20)]
    path = tmp_path / "panel.csv.gz"
    path.write_bytes(gzip.compress(_panel_csv({"Y1": years}).encode()))
    series = read_panel(path, "A")
    assert [s.series_id for s in series] == ["Y1"] and series[0].values.size == 20
    out = run_panel(series, Options("A", 3), jobs=1)
    assert [r["timestamp"] for r in out[0].rows] == ["2000", "2001", "2002"]
    qpath = tmp_path / "q.csv"
    qpath.write_text(_panel_csv({"Q1": quarters}))
    qout = run_panel(read_panel(qpath, "Q"), Options("Q", 2), jobs=1)
    assert [r["timestamp"] for r in qout[0].rows] == ["1995-Q1", "1995-Q2"]
    buf = io.StringIO()
    write_rows(qout, buf, holdout=False)
    assert buf.getvalue().splitlines()[0] == "series_id,timestamp,median,p10,p90,p2_5,p97_5"


def test_a_bad_value_names_the_file_line_and_field(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("series_id,timestamp,value\nA,1990,1\nA,1991,abc\n")
    with pytest.raises(PanelError, match=r"bad.csv line 3: field value: 'abc' is not a number"):
        read_panel(path, "A")
    for broken in ("inf", "-Infinity", "1e400"):  # a blank or NA value is a gap; an infinite one is an error
        path.write_text(f"series_id,timestamp,value\nA,1990,1\nA,1991,{broken}\n")
        with pytest.raises(PanelError, match=r"bad.csv line 3: field value: '.+' is not a finite number"):
            read_panel(path, "A")
    path.write_text("id,timestamp,value\nA,1990,1\n")
    with pytest.raises(PanelError, match="line 1: missing column"):
        read_panel(path, "A")
    path.write_text("series_id,timestamp,value\nA,1990,1\nA,1990,2\n")
    with pytest.raises(PanelError, match="line 3: series 'A' has timestamp '1990' twice"):
        read_panel(path, "A")
    path.write_text("series_id,timestamp,value\nA,1990,1\nB\x00C,1990,2\n")
    with pytest.raises(PanelError, match=r"bad.csv line 3: series_id has a control character \(U\+0000\)"):
        read_panel(path, "A")
    path.write_text(f"series_id,timestamp,value\n{'x' * 201},1990,1\n")
    with pytest.raises(PanelError, match="line 2: series_id is 201 characters; at most 200"):
        read_panel(path, "A")


def test_holdout_scores_the_combination_and_every_member_and_reports_short_series(tmp_path):
    rng = np.random.default_rng(4)
    panel = {f"S{k}": [(str(1970 + i), 100 * np.exp(0.04 * i + 0.03 * rng.normal())) for i in range(26)]
             for k in range(3)}
    panel["short"] = [(str(2000 + i), float(i + 1)) for i in range(9)]
    path = tmp_path / "p.csv"
    path.write_text(_panel_csv(panel))
    opts = Options("A", 6, holdout=6)
    outcomes = run_panel(read_panel(path, "A"), opts, jobs=1)
    summary = summarise(outcomes, opts, 1.0, 1)
    assert summary["forecast"] == 3
    assert "3 years of history; at least 8 are needed" in summary["failed"]["short"]
    scores = summary["scores"]
    assert {"combined", "ets", "theta", "rwd"} <= set(scores)
    for sc in scores.values():
        assert 0 <= sc["smape"] < 30 and 0 <= sc["coverage80"] <= sc["coverage95"] <= 1
    assert len(outcomes[0].rows) == 6 and "actual" in outcomes[0].rows[0]


def test_the_panel_entry_point_writes_the_forecast_file(tmp_path, capsys):
    path = tmp_path / "p.csv"
    path.write_text(_panel_csv({"A": [(f"2020-{m:02d}", 10.0 + m) for m in range(1, 13)]}))
    out = tmp_path / "out.csv"
    assert main([str(path), "--frequency", "M", "--horizon", "2", "--out", str(out), "--jobs", "1"]) == 0
    lines = out.read_text().splitlines()
    assert lines[1].startswith("A,2021-01,") and lines[2].startswith("A,2021-02,")
    assert main([str(tmp_path / "missing.csv"), "--frequency", "M", "--horizon", "2", "--out", str(out)]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_the_panel_command_combines_the_local_members_as_asked_and_says_so(tmp_path, capsys):
    rng = np.random.default_rng(5)
    panel = {f"S{k}": [(str(1970 + i), 100 * np.exp(0.05 * i + 0.1 * rng.normal())) for i in range(24)]
             for k in range(4)}
    path = tmp_path / "p.csv"
    path.write_text(_panel_csv(panel))
    args = [str(path), "--frequency", "A", "--horizon", "6", "--holdout", "6", "--jobs", "1", "--json"]
    got = {}
    for how in ("median", "mean", "trimmed"):
        assert main([*args, "--out", str(tmp_path / f"{how}.csv"), "--combine", how]) == 0
        got[how] = json.loads(capsys.readouterr().out)
    assert "combine" not in got["median"]
    assert got["mean"]["combine"] == "mean" and got["trimmed"]["combine"] == "trimmed"
    combined = {how: s["scores"]["combined"]["smape"] for how, s in got.items()}
    assert len(set(combined.values())) == 3  # three different forecasts of the same members
    assert all(got[h]["scores"]["theta"] == got["median"]["scores"]["theta"] for h in got)  # members untouched
    with pytest.raises(SystemExit):
        main([*args, "--out", str(tmp_path / "x.csv"), "--combine", "mode"])
    assert "invalid choice: 'mode'" in capsys.readouterr().err


@pytest.mark.skipif(not SHARED_M3.is_dir(), reason=f"M3 data not present: {SHARED_M3} is absent")
def test_on_held_back_m3_yearly_points_the_combination_beats_the_competitions_naive2():
    series = read_panel(SHARED_M3 / "M3_yearly_TSTS.csv.gz", "A")[:40]
    opts = Options("A", 6, holdout=6, members=("ets", "ets_damped", "theta", "dotm", "rwd"))
    summary = summarise(run_panel(series, opts, jobs=1), opts, 0.0, 1)
    ours = summary["scores"]["combined"]["smape"]
    # NAIVE2's published forecasts of the same 40 series, from the competition's file
    ids = {s.series_id for s in series}
    test = {}
    for s in series:
        for i, v in enumerate(s.values[-6:]):
            test[(s.series_id, str(s.first_period + s.values.size - 6 + i))] = v
    terms = []
    with gzip.open(SHARED_M3 / "M3_yearly_FTS.csv.gz", "rt") as fh:
        for r in csv.DictReader(fh):
            if r["method_id"] == "NAIVE2" and r["series_id"] in ids:
                a, f = test[(r["series_id"], r["timestamp"])], float(r["forecast"])
                terms.append(200 * abs(a - f) / (abs(a) + abs(f)))
    assert len(terms) == 240
    assert ours < np.mean(terms)


def test_a_panel_says_why_a_series_is_short_without_offering_a_growth_rate_it_has_no_field_for() -> None:
    """'1 year' (not '1 years'), and no 'enter a growth rate' on a panel; a semicolon file is named as such."""
    import io

    from forecasts.demand.engine import ShortHistoryError
    from forecasts.demand.engine.panel_input import PanelError, read_panel

    exc = ShortHistoryError(1, 8, "years")
    assert str(exc) == ("1 year of history; at least 8 are needed for a backtested forecast with calibrated "
                        "intervals. Wait for 7 more.")
    assert exc.message(growth_rate=True).endswith("Wait for 7 more, or enter a growth rate for a projection.")
    with pytest.raises(PanelError, match="separated by ';'; save the file with commas"):
        read_panel(io.StringIO("series_id;timestamp;value\na;1990;1\n"), "A", name="p.csv")


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_long_panel_reports_progress_as_series_finish(tmp_path, capsys, jobs):
    """A 5,000-series panel ran ten minutes without a word; progress is reported as series finish, and the
    command prints it on stderr (every 15 s, and at the end)."""
    path = tmp_path / "p.csv"
    path.write_text(_panel_csv({f"s{i}": [(str(1990 + t), 10.0 + t * (1 + i % 3)) for t in range(12)]
                                for i in range(9)}))
    calls: list[tuple[int, int]] = []
    run_panel(read_panel(path, "A"), Options("A", 2), jobs=jobs, progress=lambda d, n: calls.append((d, n)))
    assert calls[-1] == (9, 9) and [d for d, _ in calls] == sorted(d for d, _ in calls)
    assert main([str(path), "--frequency", "A", "--horizon", "2", "--out", str(tmp_path / "o.csv"),
                 "--jobs", str(jobs)]) == 0
    assert "forecast_panel: 9 of 9 series (100%)" in capsys.readouterr().err

"""Calibration: fitted to the published benchmarks, each figure predicted with itself held back."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest

from planner.hardware.calibration import (
    Fit,
    LooTable,
    apply_values,
    fit,
    get_value,
    leave_one_out,
    predict,
)
from planner.hardware.perf_inputs import (
    BenchmarkSet,
    InputError,
    benchmarks_from_dict,
    load_benchmarks,
    read_yaml,
)

ROOT = Path(__file__).resolve().parents[3]
BENCH = ROOT / "fixtures" / "benchmarks" / "genomics.yaml"


@pytest.fixture(scope="module")
def bset() -> BenchmarkSet:
    return load_benchmarks(BENCH)


@pytest.fixture(scope="module")
def full(bset: BenchmarkSet) -> Fit:
    return fit(bset)


@pytest.fixture(scope="module")
def loo(bset: BenchmarkSet, full: Fit) -> LooTable:
    return leave_one_out(bset, full)


def test_every_observation_names_its_source(bset: BenchmarkSet) -> None:
    for o in bset.observations:
        assert o.source["seed"] in ("000", "001", "002")
        assert o.source.get("where")
    assert all(p.source for p in bset.priors)


def test_fit_reproduces_every_benchmark_within_ten_percent(full: Fit) -> None:
    assert full.success
    worst = max(full.residuals, key=lambda r: abs(r.error))
    assert abs(worst.error) < 0.10, worst


def test_dell_headline_figures_come_out_of_the_fit(full: Fit) -> None:
    """325.4 (F800, 189 samples) and 147 (H600, 192 samples) are fitted, not typed in as results."""
    f800 = next(r for r in full.residuals if r.observation == "f800-189")
    h600 = next(r for r in full.residuals if r.observation == "h600-192")
    assert f800.predicted == pytest.approx(325.4, rel=0.10)
    assert h600.predicted == pytest.approx(147, rel=0.10)


def test_minerva_speedups_come_out_of_the_model(full: Fit) -> None:
    """Node alone 2.51x CPU, storage alone 1.91x wall, both 4.8x (seed 000), from fitted parameters."""
    got = {(r.observation, r.quantity): r.predicted for r in full.residuals}
    node = got[("minerva-amd-flash", "cpu_hours")] / got[("minerva-ivy-flash", "cpu_hours")]
    storage = got[("minerva-amd-disk", "wall_core_hours")] / got[("minerva-amd-flash", "wall_core_hours")]
    both = got[("minerva-amd-disk", "wall_core_hours")] / got[("minerva-ivy-flash", "wall_core_hours")]
    assert node == pytest.approx(2.51, rel=0.10)
    assert storage == pytest.approx(1.91, rel=0.10)
    assert both == pytest.approx(4.8, rel=0.10)


def test_uncertainties_bracket_the_values_and_shrink_where_data_speak(full: Fit) -> None:
    for p in full.parameters:
        assert p.low <= p.value <= p.high
    work = full.parameter("pipelines.gatk-3.1.1-wgs.work_ghz_core_hours")
    assert work.relative_sd < 0.10  # prior sd was a factor of 20
    arch = full.parameter("nodes.amd-interlagos.arch_factor")
    assert arch.value < 0.8 and arch.relative_sd < 0.10  # an Interlagos core does less per GHz


def test_ties_follow_the_fitted_value(full: Fit) -> None:
    f = full.fitted
    assert get_value(f, "storages.flash-gss.fast_kiops") == pytest.approx(
        15 * get_value(f, "storages.ddn-sfa10k.slow_kiops"))


def test_calibration_recovers_known_parameters_from_synthetic_data(bset: BenchmarkSet) -> None:
    """Generate the observations from known parameters, fit from the priors, get them back."""
    truth = {
        "pipelines.gatk-3.1.1-wgs.work_ghz_core_hours": 2000.0,
        "nodes.amd-interlagos.arch_factor": 0.7,
        "pipelines.bwa-gatk-3.6-10x.work_ghz_core_hours": 90.0,
        "pipelines.bwa-gatk-3.6-10x.io_mops": 8.0,
        "storages.isilon-h600.slow_kiops": 6.0,
    }
    base = {p.path: p.value for p in bset.priors}
    true_set = apply_values(bset, base | truth)
    # interval statements become exact synthetic figures too (their published ranges are real data)
    synthetic = [replace(o, measured=predict(true_set, o), ranges={}) for o in bset.observations]
    weak = [replace(p, sd=3.0) if p.path in truth else p for p in bset.priors]
    got = fit(replace(bset, observations=synthetic, priors=weak))
    for path, value in truth.items():
        assert got.values[path] == pytest.approx(value, rel=0.05), path
    assert max(abs(r.error) for r in got.residuals) < 0.01


def test_leave_one_out_median_error_under_ten_percent(loo: LooTable) -> None:
    assert len({r.observation for r in loo.rows}) == 15  # every used observation
    assert len(loo.rows) == 18  # the three Minerva pairs count two figures each
    assert loo.median_abs_error < 0.10


def test_f800_at_189_samples_predicted_without_it(loo: LooTable) -> None:
    assert abs(loo.row("f800-189").error) < 0.10


def test_minerva_pairs_on_flash_predicted_without_them(loo: LooTable) -> None:
    for obs in ("minerva-amd-flash", "minerva-ivy-flash"):
        for q in ("cpu_hours", "wall_core_hours"):
            assert abs(loo.row(obs, q).error) < 0.10, (obs, q)


def test_docs_carry_the_current_leave_one_out_median(loo: LooTable) -> None:
    """docs/performance-model.md states the median the code computes (regenerate it with
    `python -m planner.hardware.report`)."""
    text = (ROOT / "docs" / "performance-model.md").read_text(encoding="utf-8")
    m = re.search(r"median absolute error[^0-9]*([0-9.]+) %", text)
    assert m, "docs/performance-model.md: no median absolute error line"
    assert float(m.group(1)) == pytest.approx(100 * loo.median_abs_error, abs=0.05)


def test_yaml_syntax_error_is_one_line_with_file_line_and_column(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("nodes:\n  a: {cores: 12\n  b: 3\n", encoding="utf-8")
    with pytest.raises(InputError) as exc:
        read_yaml(bad)
    msg = str(exc.value)
    assert "\n" not in msg
    assert re.match(rf"{re.escape(str(bad))}:\d+:\d+: YAML syntax error", msg), msg


@pytest.mark.parametrize(("path", "value", "expected"), [
    (("nodes", "ivy-bridge", "clock_ghz"), -3.5, "nodes.ivy-bridge.clock_ghz: must be > 0, got -3.5"),
    (("nodes", "ivy-bridge", "cores"), 0, "nodes.ivy-bridge.cores: expected a positive whole number, got 0"),
    (("storages", "isilon-h600", "slow_kiops"), 0, "storages.isilon-h600.slow_kiops: must be > 0, got 0"),
])
def test_bad_values_are_rejected_with_their_field_path(path: tuple[str, str, str], value: float,
                                                        expected: str) -> None:
    data = read_yaml(BENCH)
    data[path[0]][path[1]][path[2]] = value
    with pytest.raises(InputError) as exc:
        benchmarks_from_dict(data, "genomics.yaml")
    assert str(exc.value) == f"genomics.yaml: {expected}"


def test_unknown_parameter_path_is_named() -> None:
    data = read_yaml(BENCH)
    data["parameters"][0]["path"] = "nodes.xeon.arch_factor"
    with pytest.raises(InputError, match=r"parameters\[0\]\.path: unknown parameter path 'nodes.xeon"):
        benchmarks_from_dict(data, "genomics.yaml")


RANGE_IDS = {"h600-32-range", "h600-92-range", "h600-116-range", "h600-128-range",
             "f800-126-range", "f800-129-range", "f800-156-range", "f800-180-range"}


def test_interval_statements_enter_the_fit_with_their_quoted_source(bset: BenchmarkSet, full: Fit) -> None:
    """Seed 001 gives some run times only as a range ('between 11 and 13 hours', 'approximately 14
    hour'): they are censored observations, fitted, and each quotes its sentence."""
    ranged = {o.id: o for o in bset.used() if o.ranges}
    assert set(ranged) == RANGE_IDS
    assert all(not o.measured for o in ranged.values())
    assert "between 11 and 13 hours" in ranged["h600-128-range"].cite()
    assert "approximately 14 hour" in ranged["f800-180-range"].cite()
    assert {r.observation for r in full.ranges} == RANGE_IDS
    assert max(abs(r.error) for r in full.ranges) < 0.10


def test_interval_statements_are_held_back_but_the_median_is_over_the_figures(loo: LooTable) -> None:
    assert {r.observation for r in loo.ranges} == RANGE_IDS
    assert not RANGE_IDS & {r.observation for r in loo.rows}
    assert max(abs(r.error) for r in loo.ranges) < 0.10


def test_range_residual_is_zero_inside_and_a_log_distance_outside() -> None:
    import math

    from planner.hardware.calibration import range_residual

    assert range_residual(12.0, 11.0, 13.0) == 0.0
    assert range_residual(10.0, 11.0, 13.0) == pytest.approx(math.log(10 / 11))
    assert range_residual(15.0, 11.0, 13.0) == pytest.approx(math.log(15 / 13))


def test_a_range_with_low_above_high_is_rejected_with_its_field_path() -> None:
    data = read_yaml(BENCH)
    i = next(i for i, o in enumerate(data["observations"]) if o["id"] == "h600-128-range")
    data["observations"][i]["measured_range"]["run_hours"] = [13, 11]
    with pytest.raises(InputError, match=rf"observations\[{i}\]\.measured_range\.run_hours: low 13 is above high 11"):
        benchmarks_from_dict(data, "genomics.yaml")


def test_the_h600_cache_and_disk_priors_name_their_spec_sources(bset: BenchmarkSet) -> None:
    priors = {p.path: p for p in bset.priors}
    assert "256 GB" in priors["storages.isilon-h600.fast_tb"].source
    assert "120 drives" in priors["storages.isilon-h600.slow_kiops"].source
    assert all(s.hit_exponent == 1.0 for s in bset.storages.values())  # Denning's law: k is not tuned

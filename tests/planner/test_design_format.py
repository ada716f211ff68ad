"""planner.templatetags.design_format: the filters the design pages print their numbers with."""

from __future__ import annotations

from planner.templatetags.design_format import any_of, gap_pct, millions, signed_pct


def test_any_of_says_whether_some_row_has_a_figure_for_some_key() -> None:
    compute_only = [{"genomes_per_day_capacity": 0.0, "genomes_per_day_demand": 0.0, "usable_tb": 0.0},
                    {"genomes_per_day_capacity": 0.0, "genomes_per_day_demand": 0.0, "usable_tb": 0.0}]
    assert not any_of(compute_only, "genomes_per_day_capacity,genomes_per_day_demand")
    assert not any_of(compute_only, "flash_days_of_ingest")  # a missing key counts as absent
    assert not any_of([{"flash_days_of_ingest": None}], "flash_days_of_ingest")  # None (no ingest) too
    later = compute_only + [{"genomes_per_day_capacity": 0.0, "genomes_per_day_demand": 3.5}]
    assert any_of(later, "genomes_per_day_capacity, genomes_per_day_demand")  # one year is enough
    assert not any_of([], "usable_tb") and not any_of(None, "usable_tb")


def test_number_formats() -> None:
    assert millions(25_961_252) == "26.0" and gap_pct(0.0048) == "0.48%" and signed_pct(-0.311) == "-31.1%"
    assert gap_pct(None) == "–" and signed_pct("") == "–"


def test_a_chance_below_one_never_reads_100_percent_nor_one_above_zero_0_percent() -> None:
    from planner.templatetags.design_format import chance_pct

    assert chance_pct(0.9) == "90%" and chance_pct(1) == "100%" and chance_pct(0) == "0%"
    assert chance_pct(0.999) == "99.9%" and chance_pct(0.001) == "0.1%"  # one more decimal where it rounds away
    assert chance_pct(0.9996) == "> 99.9%" and chance_pct(0.99999) == "> 99.9%"
    assert chance_pct(0.0004) == "< 0.1%"
    assert chance_pct(0.9999, 1) == "99.99%" and chance_pct(0.99999, 1) == "> 99.99%"
    assert chance_pct(None) == "–" and chance_pct("x") == "–" and chance_pct(float("nan")) == "–"

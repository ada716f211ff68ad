"""What the design pages call things (planner.designs.labels, planner.designs.compare_why): statuses and
constraints in words, and a comparison sentence that only gives a reason that differs. Pure: no database."""

from __future__ import annotations

from typing import Any

import pytest

from planner.designs.compare_why import why_sentence
from planner.designs.labels import compute_capacity_rule, constraint_label, message_gap, run_status, status_label


@pytest.mark.parametrize(("status", "kwargs", "label", "tone"), [
    ("optimal", {}, "Optimal: the cheapest possible plan", "ok"),
    ("gap", {"mip_gap": 0.0046, "requested_gap": 0.005}, "Within 0.46% of the cheapest possible plan", "ok"),
    ("gap", {"mip_gap": 0.0046, "requested_gap": 0.001},
     "Within 0.46% of the cheapest possible plan (stopped at the time limit)", "warn"),
    ("gap", {"message": "HiGHS: Time limit reached; relative gap 0.290%"},
     "Within 0.29% of the cheapest possible plan (stopped at the time limit)", "warn"),
    ("infeasible", {}, "Infeasible: no plan meets every constraint", "error"),
    ("time_limit", {}, "Stopped at the time limit before finding any plan", "error"),
    ("failed", {"message": "catalog: no node type 'x'\nTraceback ..."}, "Failed: catalog: no node type 'x'", "error"),
    ("failed", {}, "Failed: no reason recorded", "error"),
    ("queued", {}, "Queued", "muted"),
])
def test_a_solver_status_reads_as_plain_words_with_a_matching_colour(status: str, kwargs: dict[str, Any],
                                                                     label: str, tone: str) -> None:
    assert status_label(status, **kwargs) == (label, tone)


def test_a_run_within_the_gap_its_scenario_asks_for_is_a_success() -> None:
    asked = {"optimize": {"mip_rel_gap": 0.005}}
    assert run_status("gap", {"mip_gap": 0.0029}, asked) == {
        "label": "Within 0.29% of the cheapest possible plan", "tone": "ok"}
    # the default asked gap is 0.1%: 0.29% means the solver stopped first
    assert run_status("gap", {"mip_gap": 0.0029}, {})["tone"] == "warn"
    assert message_gap("HiGHS: x; relative gap 0.100%") == pytest.approx(0.001) and message_gap("x") is None


def test_constraints_are_named_with_their_units_and_an_unknown_one_in_words() -> None:
    assert [constraint_label(n) for n in ("core_hours", "storage_tb", "genomes_per_day", "flash_tb")] == [
        "Core-hours", "Storage (TB)", "Genomes/day", "Flash (TB)"]
    assert constraint_label("racks_used") == "Racks used"


def _year(**kw: Any) -> dict[str, Any]:
    base = {"year": 2015, "cost_per_genome_usd": 55.0, "genomes_per_day_capacity": 98.0, "cores": 12084,
            "wall_core_hours_per_genome": 615.0, "pipeline_storage": "lustre-dell", "annualised_cost_usd": 1.9e6,
            "genomes_per_day_demand": 80.0, "checks": [{"name": "genomes_per_day", "passed": True}]}
    return base | kw


def test_designs_that_neither_check_nor_ask_for_genomes_get_no_per_genome_sentence() -> None:
    """A cluster's compute-and-storage designs have a genomes/day capacity (their storage tier) but no genomes
    question: the comparison said 'analyses a genome for $51 against $120' under 'No genomics in these designs'."""
    plain = {"genomes_per_day_demand": 0.0, "checks": [{"name": "storage_tb", "passed": True}]}
    assert why_sentence([("D1", [_year(cost_per_genome_usd=120.0) | plain]), ("D2", [_year() | plain])]) is None
    assert why_sentence([("D1", [_year(cost_per_genome_usd=120.0) | plain]), ("D2", [_year()])]) is not None


def test_the_comparison_does_not_claim_fewer_hours_when_both_hold_the_same() -> None:
    win = _year()
    lose = _year(cost_per_genome_usd=137.0, genomes_per_day_capacity=56.0, cores=12672,
                 pipeline_storage="flash-gss", annualised_cost_usd=2.8e6)
    text = why_sentence([("D1", [lose]), ("D2", [win])])
    assert text is not None and "D2 analyses a genome for $55 against $137 for D1 (2.5x cheaper)" in text
    assert "fewer" not in text and "instead of" not in text and "1.0x" not in text
    assert "each genome holds the same 615 wall core-hours (on lustre-dell and on flash-gss)" in text
    assert "$1,900,000 a year (annualised capex + opex) against $2,800,000" in text


def test_the_comparison_says_fewer_or_more_hours_the_right_way_round() -> None:
    lose = _year(cost_per_genome_usd=137.0, wall_core_hours_per_genome=1230.0, pipeline_storage="ddn-sfa10k")
    text = why_sentence([("D1", [lose]), ("D2", [_year()])])
    assert text is not None
    assert ("because each genome holds 615 wall core-hours on lustre-dell instead of 1,230 on ddn-sfa10k "
            "(2.0x fewer)") in text
    lose = _year(cost_per_genome_usd=137.0, wall_core_hours_per_genome=500.0)
    text = why_sentence([("D1", [lose]), ("D2", [_year()])])
    assert text is not None and "even though each genome holds 615" in text and "(1.2x more)" in text
    assert "because" not in text
    lose = _year(cost_per_genome_usd=60.0, wall_core_hours_per_genome=650.0)  # a small difference: in percent
    text = why_sentence([("D1", [lose]), ("D2", [_year()])])
    assert text is not None and "(5% fewer)" in text and "(8% cheaper)" in text


def test_designs_that_cost_the_same_per_genome_get_no_winner_and_no_reason() -> None:
    text = why_sentence([("D1", [_year(wall_core_hours_per_genome=900.0)]), ("D2", [_year()])])
    assert text is not None and "analyse a genome for about the same ($55 against $55)" in text
    assert "cheaper" not in text and "because" not in text and "fewer" not in text


def test_the_compute_rule_says_whose_maintenance_days_and_target_it_uses() -> None:
    """The 9-day default is the Minerva study's convention: a site that did not set its own is told so."""
    default = compute_capacity_rule({})
    assert "9 maintenance days a year (the default: the Minerva study's convention" in default
    assert "set costs.maintenance_days_per_year for your site" in default
    assert "85% utilisation target (the default" in default
    own = compute_capacity_rule({"costs": {"maintenance_days_per_year": 4}, "constraints": {"utilisation_target": 0.8}})
    assert "4 maintenance days a year (this scenario)" in own and "80% utilisation target (this scenario)" in own

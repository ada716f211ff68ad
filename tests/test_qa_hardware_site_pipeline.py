"""QA walk of a site's own pipeline benchmarks (not GATK) on the Benchmarks page: the page says the performance
model does not fit them, checks the cost model's rule by leave-one-out (run by run and node type held back
whole), and refuses to give an error when there are too few runs."""

from __future__ import annotations

from typing import Any

import pytest

from planner.hardware.services import catalog_export_csv, catalog_import_csv, catalog_load_yaml
from tests.helpers import login

pytestmark = pytest.mark.django_db

NODES = [
    "epyc-9554,AMD EPYC 9554,2,128,3.1,3.5,1.3,768,3.8,0,14200,720,1,5,5,2023,16,,quote,assumed,quote,2024",
    "xeon-8480,Intel Xeon 8480+,2,112,2.0,3.0,1.2,512,1.9,0,16800,800,1,5,5,2023,32,,quote,assumed,quote,2024",
]
STORE = "vast-flash,flash,1000,676,850000,9000,60,2000000,0.85,,,,,8,6,2023,,vendor list,assumed,quote,2024"
SAREK = "nf-core/sarek 3.4 30x WGS"
RUNS = [  # node, samples, CPU hours, wall core-hours
    ("epyc-9554", 1, 610, 820), ("epyc-9554", 2, 622, 845), ("epyc-9554", 4, 640, 870),
    ("xeon-8480", 1, 700, 910), ("xeon-8480", 2, 712, 930),
]


def _site(runs: list[tuple[str, int, int, int]]) -> None:
    catalog_load_yaml()
    catalog_import_csv(catalog_export_csv("node_types").splitlines()[0] + "\n" + "\n".join(NODES) + "\n")
    catalog_import_csv(catalog_export_csv("storage_systems").splitlines()[0] + f"\n{STORE}\n")
    header = catalog_export_csv("benchmarks").splitlines()[0]
    rows = [f"{SAREK},30x WGS,{node},vast-flash,site run {i},{samples},1,{samples},{cpu},{wall},,,False,"
            for i, (node, samples, cpu, wall) in enumerate(runs)]
    catalog_import_csv(header + "\n" + "\n".join(rows) + "\n")


def test_a_site_pipeline_is_said_to_be_unfitted_and_its_rule_is_checked(client: Any, planner_user: Any) -> None:
    _site(RUNS)
    page = login(client, planner_user).get("/hardware/benchmarks/").content.decode()
    # Before: the runs were listed under "Measured runs" and nothing said whether or how they were used.
    assert f"Per genome: {SAREK} <span class=\"muted\">(5 runs on epyc-9554, xeon-8480)</span>" in page
    assert "Not fitted: the performance model above is fitted to" in page
    # Run by run: epyc's 610 predicted from its run of 622 (+2.0 %); wall 820 from 845 (+3.0 %) ...
    assert "Leave-one-out of that rule: median absolute error <strong>" in page
    assert "+2.0%" in page and "+3.0%" in page
    # ... and each node type held back whole, scaled from the other by clock x arch factor:
    # epyc 624 (mean) from xeon's 700 x (2.0 x 1.2) / (3.1 x 1.3) = 416.9: -33.2 %;
    # xeon 706 (mean of 700, 712) from epyc's 610 x 1.68 = 1,024: +45.1 %.
    assert "worst error <strong>45.1%</strong>" in page
    assert "-33.2%" in page


def test_too_few_runs_are_refused_an_error(client: Any, planner_user: Any) -> None:
    _site(RUNS[:2])
    page = login(client, planner_user).get("/hardware/benchmarks/").content.decode()
    assert "Too few runs to check:</strong> only 2 runs with CPU hours: a check needs at least 3" in page
    assert "Leave-one-out of that rule" not in page


def test_runs_on_one_node_type_say_the_scaling_is_untested(client: Any, planner_user: Any) -> None:
    _site(RUNS[:3])
    page = login(client, planner_user).get("/hardware/benchmarks/").content.decode()
    assert ("every run is on epyc-9554: the leave-one-out tests only repeat runs on it; the scaling to other node "
            "types (clock x arch factor of the catalog) is untested") in page

"""Peak speed of a small design (QA, session 26: the KTH SP2 plan, 159 single-core 0.5 GHz nodes). The grant
report read "provides 159 cores in 159 nodes, 0 TF peak" and its configuration table "Peak speed (TF) 0", the
design page "memory TB / peak TF 0.2 / 0": rounded to whole teraflops. Below 10 TF two significant figures
are kept now, on the page and in the report alike; above, whole teraflops as before."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from planner.reports.document import fmt_tf
from planner.templatetags.design_format import tf
from tests.helpers import login
from tests.planner.designs_data import load_catalog_and_designs


@pytest.mark.parametrize(("value", "text"), [(0.318, "0.32"), (1.55, "1.6"), (9.96, "10"), (230.5152, "231"),
                                             (1234.4, "1,234"), (0.0, "0"), (None, "–")])
def test_the_page_and_the_report_print_peak_teraflops_alike(value: float | None, text: str) -> None:
    assert fmt_tf(value) == text and tf(value) == text


SCENARIO = """name: 'A small cluster'
horizon: {start_year: 2015, end_year: 2015}
purchases:
- {year: 2015, node_type: haswell, count: 10}
demand:
- {year: 2015, core_hours: 100000}
constraints:
  'off': [storage_tb, genomes_per_day, ingest_tb_per_day, files]
"""


@pytest.mark.django_db
def test_a_small_designs_page_and_report_say_its_peak_speed(planner_user: Any) -> None:
    from planner.designs.services import design_create, design_evaluate
    from planner.reports.gather import gather_facts
    from planner.reports.sections import build_document

    load_catalog_and_designs()
    design = design_create(text=SCENARIO)
    peak = design_evaluate(design=design).result["years"][0]["peak_tf"]
    assert 0.5 < peak < 10
    html = login(Client(), planner_user).get(f"/designs/{design.pk}/").content.decode()
    assert f"/ {fmt_tf(peak)}</td>" in html
    doc = build_document(gather_facts(design=design)).to_dict()
    summary = doc["sections"][0]["blocks"][0]["text"]
    assert f"in 10 nodes, {fmt_tf(peak)} TF peak" in summary and ", 0 TF peak" not in summary
    config = next(b for s in doc["sections"] for b in s["blocks"] if b.get("key") == "configuration" and
                  b["type"] == "table")
    assert ["Peak speed (TF)", fmt_tf(peak)] in config["rows"]

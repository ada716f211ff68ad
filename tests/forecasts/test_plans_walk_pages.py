"""The plan pages and their neighbours, as a planner walked them: the comparison names its rows in words with
units and formats each row one way; genomes per day show their figures; node types read as the hardware catalog
names them and assays in words; the notes do not point at a file the page does not have; the chart's storage
axis is in TB while the plan holds under a PB; the overview names metrics and departments in words; an unknown
export format is a 404; the combined page keeps its shell command in a collapsed detail."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from forecasts.demand.charts import plan_chart
from forecasts.demand.plans import plan_import_file
from forecasts.demand.series import forecast_fit_create, spec_from_names
from forecasts.demand.views_plans import notes_for_page, row_format
from forecasts.models import SequencerPlan
from tests.forecasts.forecast_factories import usage_history
from tests.helpers import login

ROOT = Path(__file__).resolve().parents[2]
MINERVA = ROOT / "fixtures" / "minerva_sequencer_plan.yaml"


@pytest.fixture
def plan(db: Any) -> SequencerPlan:
    row, _ = plan_import_file(MINERVA)
    return row


def _text(page: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", " ", page))


def test_each_comparison_row_reads_in_one_format() -> None:
    assert [row_format([9697, 10432])(v) for v in (9697, 10432)] == ["9,697", "10,432"]
    assert [row_format([12, 10.5])(v) for v in (12, 10.5)] == ["12.0", "10.5"]
    assert [row_format([0.0422, 0.0351])(v) for v in (0.0422, 0.0351)] == ["0.0422", "0.0351"]
    assert [row_format([48.0e6, 950e3])(v) for v in (48.0e6, 950e3)] == ["48.0 M", "0.9 M"]
    assert row_format([0.0, 0.0])(0.0) == "0"


@pytest.mark.django_db
def test_the_comparison_names_its_metrics_in_words_with_units(client: Client, planner_user: Any,
                                                              plan: SequencerPlan) -> None:
    login(client, planner_user)
    edit = client.get(f"/forecasts/plans/{plan.pk}/edit/")
    assert edit.status_code == 200
    client.post(f"/forecasts/plans/{plan.pk}/edit/", {"rpw-0": "1.5"})
    v2 = SequencerPlan.objects.get(version=2)
    page = client.get(f"/forecasts/plans/compare/?a={plan.pk}&b={v2.pk}").content.decode()
    rows = dict(re.findall(r'<tr data-metric="(\w+)"><td>([^<]+)</td>', page))
    assert rows["instruments_end"] == "Instruments at year end"
    assert rows["daily_ingest_tb_peak"] == "Daily ingest at peak, TB/day"
    assert rows["core_hours_ref"] == "Core-hours on the reference core"
    assert not re.search(r"<td>\w+_\w+</td>", page)  # no internal key shows as a row's name
    samples = re.search(r'<tr data-metric="samples_total">(.*?)</tr>', page).group(1)
    assert " k" not in samples and re.findall(r"\d[\d,]* → \d[\d,]*", samples)  # whole numbers throughout
    genomes = re.search(r'<tr data-metric="genomes_per_day_peak">(.*?)</tr>', page).group(1)
    decimals = {len(n.split(".")[1]) for n in re.findall(r"\d+\.\d+", genomes)}
    assert len(decimals) == 1  # one number of decimals along the row


@pytest.mark.django_db
def test_the_plan_page_names_node_types_as_the_catalog_and_assays_in_words(
        client: Client, planner_user: Any, plan: SequencerPlan) -> None:
    page = login(client, planner_user).get(f"/forecasts/plans/{plan.pk}/").content.decode()
    text = _text(page)
    assert "core-hours on ivy-bridge" in text and "core-hours on amd-interlagos (reference)" in text
    assert "reference core amd-interlagos (2.3 GHz" in text
    assert "amd_interlagos" not in page and "ivy_bridge" not in page
    assert "whole genome 30x" in text and "RNA-seq" in text
    assert "wgs_30x" not in text and "rna_seq" not in text
    assert "this file" not in text and "Figures reproduce SC15 section 5." in text
    fig = json.loads(re.search(r'<script id="plan-fig" type="application/json">(.*?)</script>', page, re.S).group(1))
    assert {t["name"] for t in fig["data"]} >= {"whole genome 30x", "exome 100x", "RNA-seq"}
    assert "amd-interlagos" in fig["layout"]["yaxis"]["title"]["text"]


@pytest.mark.django_db
def test_genomes_per_day_show_their_significant_figures(client: Client, planner_user: Any,
                                                         plan: SequencerPlan) -> None:
    page = login(client, planner_user).get(f"/forecasts/plans/{plan.pk}/").content.decode()
    row = re.search(r"<tr><td>2013</td>(.*?)</tr>", page, re.S).group(1)
    cells = re.findall(r'<td class="num">([^<]*)</td>', row)
    genomes = cells[3]  # instruments, samples, re-analysed, genomes/day
    assert re.fullmatch(r"\d\.\d\d", genomes), genomes  # 3 significant figures, not one decimal


def test_notes_drop_what_points_at_the_yaml_file() -> None:
    assert notes_for_page("Figures reproduce SC15 section 5; see the comments at the top of this file for "
                          "assumptions.") == "Figures reproduce SC15 section 5."
    assert notes_for_page("Sized to its usage on nexus (see the comments at the top of this file).") == \
        "Sized to its usage on nexus."
    assert notes_for_page("Plain notes.") == "Plain notes."
    assert notes_for_page("") == ""


def test_the_storage_axis_is_in_tb_while_the_plan_holds_under_a_pb() -> None:
    small = plan_chart(["2020-01-01", "2020-02-01", "2020-03-01"], {"exome": [1.0, 2.0, 3.0]},
                       [0.01115, 0.0223, 0.03344], "amd-interlagos")
    held = small["data"][-1]
    assert held["name"] == "TB held (right axis)" and held["y"] == pytest.approx([11.15, 22.3, 33.44])
    assert small["layout"]["yaxis2"]["title"]["text"] == "TB held (decimal)"
    big = plan_chart(["2020-01-01"], {"exome": [1.0]}, [5.6], "amd-interlagos")
    assert big["data"][-1]["y"] == [5.6] and big["layout"]["yaxis2"]["title"]["text"] == "PB held (decimal)"


@pytest.mark.django_db
def test_an_unknown_export_format_is_not_found(client: Client, planner_user: Any, plan: SequencerPlan) -> None:
    login(client, planner_user)
    assert client.get(f"/forecasts/plans/{plan.pk}/export.pdf").status_code == 404
    for fmt in ("yaml", "counts", "csv"):
        assert client.get(f"/forecasts/plans/{plan.pk}/export.{fmt}").status_code == 200


@pytest.mark.django_db
def test_the_overview_names_metrics_and_departments_in_words(client: Client, planner_user: Any,
                                                             departments: dict[str, Any]) -> None:
    usage_history(departments, months=36)
    forecast_fit_create(spec_from_names(metric="core_hours", cluster="minerva", exclude_department="ggs"),
                        horizon_months=12)
    page = login(client, planner_user).get("/forecasts/").content.decode()
    options = dict(re.findall(r'<option value="(\w+)">([^<]+)</option>',
                              re.search(r'<select name="metric">(.*?)</select>', page).group(1)))
    assert options == {"core_hours": "Core-hours", "storage_pb": "Storage (PB)", "jobs": "Jobs",
                       "active_users": "Active users"}
    fits = re.search(r'<table class="data" id="fits-table">(.*?)</table>', page, re.S).group(1)
    assert "all but Genetics and Genomic Sciences" in fits and "all but ggs" not in fits


@pytest.mark.django_db
def test_the_combined_page_keeps_the_command_in_a_collapsed_detail(
        client: Client, planner_user: Any, departments: dict[str, Any]) -> None:
    row, _ = plan_import_file(MINERVA, department="ggs")
    page = login(client, planner_user).get(f"/forecasts/combined/?plan={row.pk}").content.decode()
    convention = re.search(r'<p class="convention">(.*?)</p>', page, re.S).group(1)
    assert "manage.py" not in convention and "all but Genetics and Genomic Sciences" in html.unescape(convention)
    detail = re.search(r'<details[^>]*id="combined-command"><summary>(.*?)</summary>(.*?)</details>', page, re.S)
    assert detail and detail.group(1) == "To reproduce from the command line"
    assert "python manage.py forecast --exclude-department ggs" in detail.group(2)

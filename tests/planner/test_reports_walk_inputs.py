"""QA walk of the reports: a report speaks of the forecast and plan its design links, refuses a period with
no usage, writes human labels and decimal sizes (the walk found another cluster's forecast in the Minerva
report, a report on 2030-2031 marked ready, `amd_interlagos` in the text and MiB labelled MB)."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from typing import Any

import pytest
import yaml
from django.core.management import call_command

from tests.helpers import login
from tests.planner.reports_data import report_inputs

RAW_KEYS = ("core_hours", "flash_tb", "genomes_per_day", "storage_tb", "amd_interlagos")


def _design_on(fit: Any, years: tuple[int, int]) -> Any:
    from planner.designs.services_paths import design_from_forecast

    return design_from_forecast(fit=fit, start_year=years[0], end_year=years[1])


def _paragraph(doc: Any, key: str) -> str:
    return next(p.text for p in doc.paragraphs() if p.key == key)


def test_a_design_that_links_no_forecast_gets_none_though_its_cluster_has_one(tmp_path: Path,
                                                                             departments: dict[str, Any]) -> None:
    from planner.reports.gather import gather_facts
    from planner.reports.projections import NO_PROJECTIONS
    from planner.reports.sections import build_document

    data = report_inputs(tmp_path, departments)
    assert data["fit"] is not None  # the cluster has a core-hours fit and a plan is stored ...
    facts = gather_facts(design=data["narrow"], cluster=data["cluster"])
    assert facts["forecast"] is None and facts["sequencer_plan"] is None  # ... but the design links neither
    doc = build_document(facts)
    assert _paragraph(doc, "projections") == NO_PROJECTIONS
    assert not any(r.key.startswith(("fit-", "plan-")) for r in doc.references)


def test_a_design_that_links_a_forecast_gets_it_quoted_inside_its_own_years(tmp_path: Path,
                                                                            departments: dict[str, Any]) -> None:
    from forecasts.demand.series import SeriesSpec, forecast_fit_create
    from planner.designs.services_paths import whole_future_years
    from planner.reports.gather import gather_facts
    from planner.reports.sections import build_document

    data = report_inputs(tmp_path, departments, with_forecast=False)
    fit = forecast_fit_create(SeriesSpec("core_hours", cluster=data["cluster"]), horizon_months=40,
                              backtest_origins=4)
    first, last = whole_future_years(fit)[0], whole_future_years(fit)[-1]
    assert last > first
    design = _design_on(fit, (first, first))
    facts = gather_facts(design=design, cluster=data["cluster"])
    assert facts["forecast"]["id"] == fit.pk and facts["forecast"]["role"] == "design"
    assert facts["sequencer_plan"] is None  # a plan is stored, the design links none
    text = _paragraph(build_document(facts), "projections")
    median = next(y["median"] for y in fit.yearly if y["year"] == first)
    assert text.startswith("The design's demand comes from this forecast, which its scenario links.")
    assert f"By {first}, within the design's years ({first}-{first}), the median projection is " \
           f"{median / 1e6:,.1f} M" in text
    assert f"The forecast runs on to {last}, past the design's last year." in text
    assert f"By {last} " not in text


def test_a_forecast_and_plan_chosen_by_hand_are_kept_and_labelled_context(tmp_path: Path,
                                                                          departments: dict[str, Any]) -> None:
    from planner.reports.gather import gather_facts
    from planner.reports.sections import build_document

    data = report_inputs(tmp_path, departments)
    facts = gather_facts(design=data["narrow"], cluster=data["cluster"], forecast=data["fit"], plan=data["plan"])
    assert facts["forecast"]["role"] == facts["sequencer_plan"]["role"] == "context"
    doc = build_document(facts)
    text = _paragraph(doc, "projections")
    assert text.startswith("Shown as context, not part of this design's demand: the design does not link this "
                           "forecast")
    assert "starts after the design's last year (2014-2019), so it gives no demand figure" in text
    assert _paragraph(doc, "sequencer_plan").startswith("Shown as context, not part of this design's demand")
    captions = [b.caption for b in doc.tables() + doc.figures() if b.key in ("forecast", "sequencer_plan",
                                                                              "sequencer_storage")]
    assert len(captions) == 4 and all(c.endswith("(context, not part of this design's demand)") for c in captions)


def test_the_form_and_the_api_refuse_a_period_without_usage_naming_the_months_that_have_some(
        client: Any, planner_user: Any, tmp_path: Path, departments: dict[str, Any]) -> None:
    from forecasts.models import UsageMonthly
    from planner.reports.models import GrantReport
    from planner.reports.services import report_create

    data = report_inputs(tmp_path, departments, with_forecast=False)
    months = UsageMonthly.objects.filter(cluster=data["cluster"]).order_by("month").values_list("month", flat=True)
    expected = (f"No usage of minerva in 2030-01 to 2031-01: its usage covers {months.first():%Y-%m} to "
                f"{months.last():%Y-%m}.")
    login(client, planner_user)
    page = client.post("/reports/new/", {"design": data["narrow"].pk, "cluster": data["cluster"].pk,
                                         "start": "2030-01", "end": "2031-01"})
    assert page.status_code == 200 and expected in page.content.decode()
    api = client.post("/api/v1/reports/", {"design": data["narrow"].pk, "cluster": "minerva",
                                           "start": "2030-01-01", "end": "2031-01-01"})
    assert api.status_code == 400 and expected in json.dumps(api.json())
    with pytest.raises(ValueError, match="No usage of minerva in 2030-01 to 2031-01"):
        report_create(design=data["narrow"], cluster=data["cluster"], start=date(2030, 1, 1),
                      end=date(2031, 1, 1), enqueue=False)
    assert not GrantReport.objects.exists()
    ok = client.post("/reports/new/", {"design": data["narrow"].pk, "cluster": data["cluster"].pk,
                                       "start": "2021-01", "end": "2021-06"})
    assert ok.status_code == 302 and GrantReport.objects.count() == 1  # a period with usage still goes through


def test_the_html_report_shows_no_raw_key_and_sizes_in_decimal_units(tmp_path: Path, capsys: Any,
                                                                      departments: dict[str, Any]) -> None:
    from planner.designs.demo_paths import UNCERTAINTY
    from planner.designs.services import design_create, design_evaluate
    from planner.reports.services import report_create, report_generate

    data = report_inputs(tmp_path, departments)
    base = data["narrow"]
    on_paths = design_create(text=yaml.safe_dump(dict(base.scenario) | {"uncertainty": UNCERTAINTY},
                                                 sort_keys=False), parent=base)
    design_evaluate(design=on_paths)
    scan = tmp_path / "scan.tsv"  # three files of 500,000,000 bytes each: 500.0 MB decimal (476.8 MiB)
    scan.write_text("".join(f"500000000\tgina\tggs\t1650000000\tf\t/a/f{i}\n" for i in range(3)))
    call_command("ingest_storage_scan", "--filesystem", "proj", "--format", "tsv", "--date", "2022-06-01", str(scan))
    capsys.readouterr()
    report = report_generate(report_create(design=on_paths, cluster=data["cluster"], plan=data["plan"],
                                           enqueue=False).pk)
    rows = dict((r["label"], r["value"]) for r in report.facts["storage"]["rows"])
    assert rows["Average file size"] == "500.0 MB" and rows["Total storage used (TB)"] == "0.0"
    html = report.file_path("html").read_text()
    assert 'id="table-chance"' in html and "Storage (TB)" in html and "Genomes/day" in html
    assert "AMD Opteron 6276 (Interlagos) at 2.3 GHz" in html
    assert [k for k in RAW_KEYS if k in html] == []


def test_a_design_that_asks_no_genomics_question_gets_no_per_genome_benchmarks_or_derivations(
        tmp_path: Path, departments: dict[str, Any]) -> None:
    """A design made from a core-hours forecast (no genomes demand, no genomes check) had the pipeline's
    benchmark tables and the genomics model's derivations (arch factors, tiers) in its grant report."""
    from planner.designs.services_paths import whole_future_years
    from planner.reports.gather import gather_facts
    from planner.reports.sections import build_document

    data = report_inputs(tmp_path, departments)
    first = whole_future_years(data["fit"])[0]
    facts = gather_facts(design=_design_on(data["fit"], (first, first)), cluster=data["cluster"])
    assert facts["benchmarks"]["applies"] is False and facts["benchmarks"]["rows"] == []
    assert facts["design"]["derivations"] == {}
    doc = build_document(facts)
    assert _paragraph(doc, "benchmarks").startswith("The design asks no genomics question")
    assert not {"benchmarks", "speedups", "derivations"} & {t.key for t in doc.tables()}
    # a genomics design keeps both
    genomics = gather_facts(design=data["narrow"], cluster=data["cluster"])
    assert genomics["benchmarks"]["applies"] is True and genomics["benchmarks"]["rows"]
    assert genomics["design"]["derivations"]

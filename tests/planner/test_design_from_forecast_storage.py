"""A design started from a core-hours forecast can take its storage from a PB-stored forecast too (issue 17: "the
forecast fit N (core-hours, PB, and the sequencer plan)"), from the form and the API: its storage demand is the
storage fit's year-end medians in TB, its paths the fit's own (a storage row in the chance table), and the
storage check is on. A storage trend holds every department's data, so a plan's TB go on top only when the planner
says the plan's data is new; the design starts owning no storage and its comment says what the file systems
record."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest
import yaml

from planner.designs.models import Design
from planner.designs.services import design_evaluate
from planner.designs.services_paths import design_chance
from tests.helpers import login

pytestmark = pytest.mark.django_db


@pytest.fixture
def site(departments: dict[str, Any]) -> dict[str, Any]:
    """Core-hours 2020-2023 of every department and monthly scans of two file systems over the same years (work
    grows 5 TB a month from 100 TB, scratch 2 TB from 400 TB; 1,000 TB usable recorded), each fitted 36 months."""
    from forecasts.demand.series import SeriesSpec, forecast_fit_create
    from forecasts.storage.models import FileSystem, StorageSnapshot
    from planner.hardware.services import catalog_load_yaml
    from tests.forecasts.forecast_factories import usage_history

    catalog_load_yaml()
    usage_history(departments, months=48)
    work = FileSystem.objects.create(name="work", capacity_tb=600)
    scratch = FileSystem.objects.create(name="scratch", capacity_tb=400)
    for i in range(48):
        day = date(2020 + i // 12, i % 12 + 1, 28)
        for fs, base, step in ((work, 100, 5), (scratch, 400, 2)):
            StorageSnapshot.objects.create(filesystem=fs, taken_on=day, format="tsv", status="completed",
                                           bytes_total=(base + step * i) * 10**12, scan_name=f"{fs.name}{i}")
    return {"core": forecast_fit_create(SeriesSpec("core_hours"), horizon_months=36),
            "storage": forecast_fit_create(SeriesSpec("storage_pb"), horizon_months=36)}


def _medians_tb(fit: Any) -> dict[int, float]:
    return {int(y["year"]): round(float(y["median"]) * 1000, 3) for y in fit.yearly}


def test_the_form_starts_a_design_whose_storage_is_the_storage_forecast_s(client: Any, planner_user: Any,
                                                                          site: dict[str, Any]) -> None:
    core, storage = site["core"], site["storage"]
    login(client, planner_user)
    form = client.get(f"/designs/from-forecast/{core.pk}/").content.decode()
    assert 'name="storage_fit"' in form and f'<option value="{storage.pk}"' in form
    assert "2024–2026" in form.split('id="storage-fit"')[1].split("</select>")[0]  # its whole future years
    assert f'<option value="{storage.pk}" data-first="2024" data-last="2026" >' in form  # not chosen unasked...
    picked = client.get(f"/designs/from-forecast/{core.pk}/?storage_fit={storage.pk}").content.decode()
    assert f'<option value="{storage.pk}" data-first="2024" data-last="2026" selected>' in picked  # ...or asked
    resp = client.post(f"/designs/from-forecast/{core.pk}/", {"storage_fit": storage.pk, "end_year": 2026})
    design = Design.objects.latest("pk")
    assert resp.status_code == 302 and resp["Location"] == f"/designs/{design.pk}/edit/"
    sc = design.scenario
    assert sc["uncertainty"]["forecast"] == {"core_fit": core.pk, "storage_fit": storage.pk}
    assert "storage_tb" not in sc["constraints"]["off"]  # the check is on
    medians = _medians_tb(storage)
    assert {d["year"]: d["storage_tb"] for d in sc["demand"]} == {y: medians[y] for y in (2024, 2025, 2026)}
    # 829 TB at the end of 2023 growing 7 TB a month: the medians are the file systems' own growth, in TB
    assert 880 < medians[2024] < 950 and medians[2026] - medians[2024] == pytest.approx(168, rel=0.25)
    assert f"Storage from the PB-stored forecast #{storage.pk}" in sc["description"]
    assert ("# existing: no storage owned (1,000 TB usable recorded on 2 file system(s): scratch 400 TB, "
            "work 600 TB)") in design.scenario_yaml
    # judged on the storage fit's paths: the chance table has a storage row from the storage forecast
    ev = design_evaluate(design=design)
    chance = design_chance(design, ev)
    assert chance is not None and "report" in chance, chance
    rows = {c["constraint"] for y in chance["report"]["years"] for c in y["constraints"]}
    assert any("storage" in r.lower() or "TB" in r for r in rows), rows
    html = client.get(f"/designs/{design.pk}/").content.decode()
    assert 'id="chance-table"' in html and "storage forecast" in html


def test_a_plan_s_data_goes_on_top_of_the_storage_trend_only_when_the_planner_says_it_is_new(
        client: Any, planner_user: Any, site: dict[str, Any]) -> None:
    from tests.planner.test_design_from_forecast_plan_department import _plan

    plan = _plan("Minerva from 2024", None)  # the Minerva plan moved to 2024-2030, no department named
    core, storage = site["core"], site["storage"]
    login(client, planner_user)
    before = Design.objects.count()
    refused = client.post(f"/designs/from-forecast/{core.pk}/", {"storage_fit": storage.pk, "plan": plan.pk,
                                                                 "plan_on_top": "1"}, follow=True)
    assert Design.objects.count() == before
    assert refused.redirect_chain[-1][0].endswith(f"?plan={plan.pk}&storage_fit={storage.pk}")  # choices kept
    text = refused.content.decode()
    assert f'<option value="{storage.pk}" data-first="2024" data-last="2026" selected>' in text
    assert f"storage forecast #{storage.pk} holds every department" in text and "new to these file systems" in text
    client.post(f"/designs/from-forecast/{core.pk}/", {"storage_fit": storage.pk, "plan": plan.pk, "plan_on_top": "1",
                                                       "plan_storage_on_top": "1", "end_year": 2026})
    design = Design.objects.latest("pk")
    assert Design.objects.count() == before + 1
    from forecasts.demand.plans import plan_of
    from planner.designs.forecast_links import whole_plan_years

    plan_tb = {p.year: p.storage_tb for p in whole_plan_years(plan_of(plan))}
    assert plan_tb[2025] > 0
    medians = _medians_tb(storage)
    got = {d["year"]: d["storage_tb"] for d in design.scenario["demand"]}
    assert got == {y: round(medians[y] + plan_tb[y], 3) for y in (2024, 2025, 2026)}
    assert "its data new to these file systems" in design.scenario["description"]


def test_the_api_takes_a_storage_forecast_and_refuses_what_is_not_one(client: Any, planner_user: Any,
                                                                     site: dict[str, Any]) -> None:
    core, storage = site["core"], site["storage"]
    login(client, planner_user)
    url = f"/api/v1/designs/from-forecast/{core.pk}/"
    made = client.post(url, {"storage_fit": storage.pk}, content_type="application/json")
    assert made.status_code == 201, made.content
    design = Design.objects.get(pk=made.json()["design"])
    assert design.scenario["uncertainty"]["forecast"]["storage_fit"] == storage.pk
    assert "existing" not in design.scenario  # no storage system named: nothing owned
    made = client.post(url, {"storage_fit": storage.pk, "storage_system": "ddn-sfa10k"},
                       content_type="application/json")
    assert made.status_code == 201 and [e["count"] for e in made.json()["existing"]] == [1, 1]
    for bad in (core.pk, 10**8):  # a core-hours fit is no storage forecast; nor is an id of nothing
        resp = client.post(url, {"storage_fit": bad}, content_type="application/json")
        assert resp.status_code == 400 and resp.json() == {"detail": f"no storage forecast #{bad}"}
    # the form says the same in a message, never a 500
    page = client.post(f"/designs/from-forecast/{core.pk}/", {"storage_fit": "abc"}, follow=True)
    assert page.status_code == 200 and "no storage forecast #abc" in page.content.decode()


def test_without_a_storage_forecast_the_form_says_how_to_make_one(client: Any, planner_user: Any,
                                                                  site: dict[str, Any]) -> None:
    site["storage"].delete()
    login(client, planner_user)
    form = client.get(f"/designs/from-forecast/{site['core'].pk}/").content.decode()
    assert 'id="no-storage-fit"' in form and "Metric: PB stored" in form and 'name="storage_fit"' not in form
    client.post(f"/designs/from-forecast/{site['core'].pk}/", {})
    sc = Design.objects.latest("pk").scenario
    assert "storage_tb" in sc["constraints"]["off"] and "storage_fit" not in sc["uncertainty"]["forecast"]
    assert yaml.safe_dump(sc)  # a plain scenario, as before


def test_the_file_systems_can_be_owned_as_a_catalog_storage_system_and_then_storage_holds(
        client: Any, planner_user: Any, site: dict[str, Any]) -> None:
    from forecasts.storage.models import FileSystem

    core, storage = site["core"], site["storage"]
    login(client, planner_user)
    form = client.get(f"/designs/from-forecast/{core.pk}/").content.decode()
    assert 'id="storage-system"' in form and "scratch 400 TB, work 600 TB usable recorded" in form
    client.post(f"/designs/from-forecast/{core.pk}/", {"storage_fit": storage.pk, "storage_system": "ddn-sfa10k",
                                                       "end_year": 2026})
    design = Design.objects.latest("pk")
    # 750 TB usable a unit: work 600 TB and scratch 400 TB are one unit each, bought when first scanned (2020)
    assert [(e["storage_system"], e["count"], e["purchase_year"]) for e in design.scenario["existing"]] == [
        ("ddn-sfa10k", 1, 2020), ("ddn-sfa10k", 1, 2020)]
    assert "owns the file systems' recorded capacity as 2 ddn-sfa10k units" in design.scenario["description"]
    assert "# not whole ddn-sfa10k units (rounded): scratch: 400 TB = 0.53 units" in design.scenario_yaml
    # 1,500 TB usable at the 80 % fullness limit is 1,200 TB plannable, above every year's ~0.9-1.1 PB median
    ev = design_evaluate(design=design)
    chance = design_chance(design, ev)
    assert chance is not None and "report" in chance, chance
    held = {y["year"]: next(c for c in y["constraints"] if c["constraint"] == "storage_tb")["probability"]
            for y in chance["report"]["years"]}
    assert held[2024] > 0.9, held
    # first scanned in 2020, the catalog's 5-year life ends with 2024: the description says when they retire
    assert held[2025] == 0.0 and "They retire at the end of 2024 (the catalog's 5-year life" in \
        design.scenario["description"]
    # the storage tier gives the design a genomes/day capacity, but nobody asked for genomes: the page shows none of
    # it (it read "25 genomes/day in 2024 (demand 0)" and a cost per genome), the compute figures instead
    html = client.get(f"/designs/{design.pk}/").content.decode()
    table = html.split('id="year-table"', 1)[1].split("</table>", 1)[0]
    assert "plannable TB / usable TB" in table
    for absent in ("genomes/day capacity", "wall core-hours per genome", "cost per genome"):
        assert absent not in table
    assert 'id="kpi-core-hours"' in html and "genomes/day in 2024" not in html
    # named without a storage forecast, or unknown to the catalog: refused with the reason, nothing made
    before = Design.objects.count()
    for post, why in (({"storage_system": "ddn-sfa10k"}, "only with a storage forecast"),
                      ({"storage_fit": storage.pk, "storage_system": "tape-9000"}, "no storage system 'tape-9000'")):
        page = client.post(f"/designs/from-forecast/{core.pk}/", post, follow=True).content.decode()
        assert why in page.replace("&#x27;", "'"), why
    assert Design.objects.count() == before
    # without any recorded capacity the form says so instead of offering a system
    FileSystem.objects.update(capacity_tb=None)
    form = client.get(f"/designs/from-forecast/{core.pk}/").content.decode()
    assert 'id="no-file-system-capacity"' in form and 'id="storage-system"' not in form

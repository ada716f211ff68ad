"""A sequencer plan names the department whose sequencing it is: checked against the departments where
it comes in (upload, editor, API, command), kept from version to version, shown on its page and in the
API, and used by the combined projection to choose the trend without it."""

from __future__ import annotations

import copy
import json
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
import yaml
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.db.models import ProtectedError

from forecasts.demand.plans import (
    PlanError,
    plan_from_document,
    plan_import_counts_csv,
    plan_parse,
    plan_save,
)
from forecasts.demand.series import SeriesSpec, forecast_fit_create
from forecasts.models import SequencerPlan
from tests.forecasts.forecast_factories import usage_history
from tests.helpers import login

ROOT = Path(__file__).resolve().parents[2]
MINERVA = ROOT / "fixtures" / "minerva_sequencer_plan.yaml"
DOC = yaml.safe_load(MINERVA.read_text())

pytestmark = pytest.mark.django_db


def _doc(**change: Any) -> dict[str, Any]:
    return copy.deepcopy(DOC) | change


def _store(**change: Any) -> SequencerPlan:
    row, _ = plan_save(plan_from_document(_doc(**change)), source="test")
    return row


def test_a_plan_naming_a_department_stores_it_as_a_row(departments: dict[str, Any]) -> None:
    row = _store(department="ggs")
    assert row.department == departments["genomics"] and row.document["department"] == "ggs"


def test_an_unknown_department_is_refused_in_one_line_naming_the_code_and_the_codes_there_are(
        departments: dict[str, Any]) -> None:
    with pytest.raises(PlanError) as caught:
        plan_from_document(_doc(department="genomix"), name="plan.yaml")
    assert str(caught.value) == "plan.yaml: unknown department 'genomix': the department codes are ggs, scb"
    assert not SequencerPlan.objects.exists()


def test_without_departments_the_refusal_says_none_are_recorded() -> None:
    with pytest.raises(PlanError, match=r"^the plan: unknown department 'ggs': no departments are recorded yet$"):
        plan_from_document(_doc(department="ggs"))


def test_a_plan_without_a_department_is_stored_as_before() -> None:
    row = _store()
    assert row.department is None and "department" not in row.document
    again, created = plan_save(plan_parse(MINERVA.read_text()), source="test")
    assert (again.pk, created) == (row.pk, False)  # the same document: recognised, no new version


def test_a_new_version_keeps_the_department_unless_it_says_otherwise(departments: dict[str, Any]) -> None:
    v1 = _store(department="ggs")
    # a counts CSV onto the plan
    v2, _ = plan_import_counts_csv("model,date,count\nIllumina HiSeq 2500,2013-01-01,6\n", base=v1.name)
    # a document without the key (an old YAML file uploaded again, with a change)
    changed = _doc(notes="one more note")
    v3, _ = plan_save(plan_from_document(changed), source="test")
    assert [v.department for v in (v2, v3)] == [departments["genomics"]] * 2 and v3.version == 3
    # another department, then none (null)
    v4, _ = plan_save(plan_from_document(changed | {"department": "scb"}), source="test")
    v5, _ = plan_save(plan_from_document(changed | {"department": None}), source="test")
    assert v4.department == departments["chemistry"] and v5.department is None
    assert "department" not in v5.document
    v6, _ = plan_save(plan_from_document(_doc(notes="after none")), source="test")
    assert v6.department is None  # none is kept as well


def test_a_department_named_by_a_plan_cannot_be_deleted_from_under_it(departments: dict[str, Any]) -> None:
    _store(department="ggs")
    with pytest.raises(ProtectedError):
        departments["genomics"].delete()


def test_the_upload_refuses_an_unknown_department_on_the_page_and_the_plan_page_shows_a_known_one(
        client: Any, planner_user: Any, departments: dict[str, Any]) -> None:
    login(client, planner_user)
    bad = yaml.safe_dump(_doc(department="nope")).encode()
    line = bad.decode().splitlines().index("department: nope") + 1
    resp = client.post("/forecasts/plans/", {"file": SimpleUploadedFile("p.yaml", bad)})
    assert resp.status_code == 200
    assert f"p.yaml line {line}: unknown department &#x27;nope&#x27;" in resp.content.decode()
    good = yaml.safe_dump(_doc(department="ggs")).encode()
    resp = client.post("/forecasts/plans/", {"file": SimpleUploadedFile("p.yaml", good)})
    row = SequencerPlan.objects.get()
    assert resp["Location"] == f"/forecasts/plans/{row.pk}/" and row.department == departments["genomics"]
    page = client.get(resp["Location"]).content.decode()
    assert "Sequencing of department <strong>ggs</strong> (Genetics and Genomic Sciences)" in page
    assert "department: ggs" in client.get(f"/forecasts/plans/{row.pk}/export.yaml").content.decode()
    plain = _store(name="No department")
    assert "does not say whose sequencing it is" in client.get(f"/forecasts/plans/{plain.pk}/").content.decode()


def test_the_editor_keeps_the_department_changes_it_and_refuses_an_unknown_one(
        client: Any, planner_user: Any, departments: dict[str, Any]) -> None:
    v1 = _store(department="ggs")
    login(client, planner_user)
    form = client.get(f"/forecasts/plans/{v1.pk}/edit/").content.decode()
    assert '<option value="ggs" selected>' in form
    # an edit that does not touch the select (a client without it) keeps the department
    client.post(f"/forecasts/plans/{v1.pk}/edit/", {"rpw-0": "2"})
    v2 = SequencerPlan.objects.get(version=2)
    assert v2.department == departments["genomics"] and v2.document["instruments"][0]["runs_per_week"] == 2
    client.post(f"/forecasts/plans/{v2.pk}/edit/", {"rpw-0": "2", "department": "scb"})
    assert SequencerPlan.objects.get(version=3).department == departments["chemistry"]
    client.post(f"/forecasts/plans/{v2.pk}/edit/", {"rpw-0": "3", "department": ""})
    assert SequencerPlan.objects.get(version=4).department is None
    resp = client.post(f"/forecasts/plans/{v2.pk}/edit/", {"rpw-0": "4", "department": "nope"})
    assert resp.status_code == 200 and "unknown department &#x27;nope&#x27;" in resp.content.decode()
    assert SequencerPlan.objects.count() == 4
    derive = client.post(f"/forecasts/plans/{v2.pk}/derive.json", {"department": "nope"})
    assert derive.status_code == 400 and "unknown department 'nope'" in derive.json()["error"]


def test_the_api_takes_shows_keeps_and_clears_the_department(client: Any, planner_user: Any,
                                                             departments: dict[str, Any]) -> None:
    login(client, planner_user)
    bad = client.post("/api/v1/sequencer-plans/", {"document": _doc(department="nope")},
                      content_type="application/json")
    assert bad.status_code == 400
    assert bad.json() == {"document": "the plan: unknown department 'nope': the department codes are ggs, scb"}
    created = client.post("/api/v1/sequencer-plans/", {"document": _doc(department="ggs")},
                          content_type="application/json")
    assert created.status_code == 201 and created.json()["department"] == "ggs"
    pk = created.json()["id"]
    assert client.get(f"/api/v1/sequencer-plans/{pk}/").json()["department"] == "ggs"
    # PUT of a document without the key: a new version, still ggs's; PATCH keeps it too
    put = client.put(f"/api/v1/sequencer-plans/{pk}/", {"document": _doc(notes="v2")},
                     content_type="application/json")
    assert put.status_code == 201 and (put.json()["version"], put.json()["department"]) == (2, "ggs")
    patch = client.patch(f"/api/v1/sequencer-plans/{put.json()['id']}/", {"document": {"notes": "v3"}},
                         content_type="application/json")
    assert (patch.json()["version"], patch.json()["department"]) == (3, "ggs")
    cleared = client.patch(f"/api/v1/sequencer-plans/{patch.json()['id']}/", {"document": {"department": None}},
                           content_type="application/json")
    assert (cleared.json()["version"], cleared.json()["department"]) == (4, None)
    versions = client.get(f"/api/v1/sequencer-plans/{pk}/versions/").json()
    assert [(v["version"], v["department"]) for v in versions] == [(4, None), (3, "ggs"), (2, "ggs"), (1, "ggs")]
    plain = client.post("/api/v1/sequencer-plans/", {"document": _doc(name="Plain")},
                        content_type="application/json")
    assert plain.status_code == 201 and plain.json()["department"] is None


def test_the_import_command_takes_the_department_and_names_an_unknown_one(
        tmp_path: Path, departments: dict[str, Any], capsys: Any) -> None:
    path = tmp_path / "plan.yaml"
    path.write_text(yaml.safe_dump(_doc(department="ggs")))
    out = StringIO()
    call_command("import_sequencer_plan", str(path), stdout=out)
    assert json.loads(out.getvalue().splitlines()[-1])["version"] == 1
    assert "stored as version 1, department ggs's sequencing" in capsys.readouterr().err
    assert SequencerPlan.objects.get().department == departments["genomics"]
    path.write_text(yaml.safe_dump(_doc(department="xyz")))
    with pytest.raises(CommandError, match=r"^plan.yaml line \d+: unknown department 'xyz': the department codes are "
                                           "ggs, scb$"):
        call_command("import_sequencer_plan", str(path), stdout=StringIO(), stderr=StringIO())


@pytest.fixture
def trends(departments: dict[str, Any]) -> dict[str, Any]:
    usage_history(departments, months=36)
    but_ggs = forecast_fit_create(SeriesSpec("core_hours", exclude_department=departments["genomics"]),
                                  horizon_months=24)
    everyone = forecast_fit_create(SeriesSpec("core_hours"), horizon_months=24)
    but_scb = forecast_fit_create(SeriesSpec("core_hours", exclude_department=departments["chemistry"]),
                                  horizon_months=24)  # the newest "all but" fit, and the wrong one for ggs
    return {"but_ggs": but_ggs, "everyone": everyone, "but_scb": but_scb}


def test_the_combined_projection_starts_from_the_trend_without_the_plan_s_department(
        client: Any, planner_user: Any, trends: dict[str, Any]) -> None:
    plan = _store(department="ggs")
    login(client, planner_user)
    html = client.get(f"/forecasts/combined/?plan={plan.pk}").content.decode()
    assert f'<option value="{trends["but_ggs"].pk}" selected>' in html and 'id="combined-overlap"' not in html
    assert "everything except Genetics and Genomic Sciences, whose sequencing the plan describes" in html
    # a trend that holds ggs's core-hours: the page says so and offers the one without ggs
    for fit in (trends["everyone"], trends["but_scb"]):
        html = client.get(f"/forecasts/combined/?plan={plan.pk}&fit={fit.pk}").content.decode()
        warning = html.split('id="combined-overlap">', 1)[1].split("</p>", 1)[0]
        assert f"trend #{fit.pk}" in warning and "department ggs&#x27;s sequencing" in warning
        assert f"choose #{trends['but_ggs'].pk} (all clusters / all but ggs" in warning
    # the trend alone, or the plan alone: nothing is counted twice
    html = client.get(f"/forecasts/combined/?plan={plan.pk}&fit={trends['everyone'].pk}&mode=trend").content.decode()
    assert 'id="combined-overlap"' not in html


def test_the_combined_projection_of_a_plan_without_a_department_is_as_before(
        client: Any, planner_user: Any, trends: dict[str, Any]) -> None:
    plan = _store()
    html = login(client, planner_user).get(f"/forecasts/combined/?plan={plan.pk}").content.decode()
    assert f'<option value="{trends["but_scb"].pk}" selected>' in html  # the newest "all but" fit, as before
    assert 'id="combined-overlap"' not in html and "the genomics department" in html


def test_the_demo_plan_is_the_genomics_department_s_sequencing(departments: dict[str, Any]) -> None:
    from forecasts.demand.demo import load_forecasts

    load_forecasts(lambda _: None)
    load_forecasts(lambda _: None)
    own, study = SequencerPlan.objects.order_by("name")  # one version each: the second run recognises them
    assert own.name.startswith("Genomics core") and own.department == departments["genomics"] and own.source == "demo"
    assert study.name.startswith("Minerva") and study.department is None  # the SC15 study's fleet, not the demo's


def test_an_edit_the_plan_refuses_shows_the_reason_and_the_figures_as_saved(
        client: Any, planner_user: Any) -> None:
    row = _store()
    resp = login(client, planner_user).post(f"/forecasts/plans/{row.pk}/edit/", {"count-0-0": "-5",
                                                                                  "date-0-0": "2013-01-01"})
    assert resp.status_code == 200 and ("Illumina HiSeq 2500, from 2013-01-01: instruments: between 0 and 1,000, got -5"
                                         in resp.content.decode())
    assert SequencerPlan.objects.count() == 1

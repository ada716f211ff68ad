"""The plan editor, as a planner walked it: a number out of its field's range (a percent typed as a share, a
slip of the exponent, a sign) is refused in one line naming the row and the field as the form labels it, in the
editor, the upload and the API alike; after a refusal every typed value and the note are still there; the save
button names the version it creates."""

from __future__ import annotations

import copy
import html
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from forecasts.demand.plans import plan_from_document, plan_import_file, plan_save
from forecasts.models import SequencerPlan
from tests.helpers import login

ROOT = Path(__file__).resolve().parents[2]
MINERVA = ROOT / "fixtures" / "minerva_sequencer_plan.yaml"

pytestmark = pytest.mark.django_db


@pytest.fixture
def plan() -> SequencerPlan:
    row, _ = plan_import_file(MINERVA)
    return row


def editor_form(client: Client, row: SequencerPlan) -> dict[str, str]:
    """Every field of the editor with the value the page shows, as a browser would post it."""
    page = client.get(f"/forecasts/plans/{row.pk}/edit/").content.decode()
    fields = dict(re.findall(r'<input[^>]*name="([a-z]+-[^"]+)" value="([^"]*)"', page))
    return {k: html.unescape(v) for k, v in fields.items()}


def refusal(resp: Any) -> str:
    found = re.search(r'<p class="error" role="alert" id="plan-edit-error">(.*?)</p>', resp.content.decode(), re.S)
    assert found, "the page shows no refusal"
    return html.unescape(found.group(1))


@pytest.mark.parametrize(("field", "typed", "message"), [
    ("re-wgs_30x", "25",
     "assay whole genome 30x: re-analysed share per year: between 0 and 1 (0.25 for 25 %), got 25"),
    ("ch-wgs_30x", "1e30", "assay whole genome 30x: core-hours per sample: between 0 and 1,000,000, got 1e+30"),
    ("ch-exome", "nan", "assay exome 100x: core-hours per sample: between 0 and 1,000,000, got nan"),
    ("rpw-0", "-1", "Illumina HiSeq 2500: runs per week per instrument: between 0 and 50, got -1"),
    ("count-0-1", "abc", "Illumina HiSeq 2500, from 2015-01-01: instruments: enter a number, got 'abc'"),
    ("rpw-0", "", "Illumina HiSeq 2500: runs per week per instrument: enter a number"),
    ("mix-0-2", "x", "Illumina HiSeq 2500, RNA-seq: samples per run: enter a number, got 'x'"),
])
def test_an_edit_out_of_range_or_not_a_number_is_refused_in_words_and_nothing_is_saved(
        client: Client, planner_user: Any, plan: SequencerPlan, field: str, typed: str, message: str) -> None:
    login(client, planner_user)
    form = editor_form(client, plan) | {field: typed}
    resp = client.post(f"/forecasts/plans/{plan.pk}/edit/", {**form, "note": "the director's figures"})
    assert resp.status_code == 200 and refusal(resp) == message
    assert SequencerPlan.objects.count() == 1
    derive = client.post(f"/forecasts/plans/{plan.pk}/derive.json", form)
    assert derive.status_code == 400 and derive.json()["error"] == message


def test_after_a_refusal_every_typed_value_and_the_note_are_shown_again(
        client: Client, planner_user: Any, plan: SequencerPlan) -> None:
    login(client, planner_user)
    typed = {"count-0-1": "abc", "rpw-0": "2", "ch-exome": "900", "re-rna_seq": "0.5",
             "date-0-3": "2020-01-01", "count-0-3": "14", "note": "two more sequencers in 2018"}
    resp = client.post(f"/forecasts/plans/{plan.pk}/edit/", editor_form(client, plan) | typed)
    page = resp.content.decode()
    for name, value in typed.items():
        assert f'name="{name}" value="{value}"' in page, name


def test_a_date_without_a_count_is_refused_and_a_cleared_row_is_removed(
        client: Client, planner_user: Any, plan: SequencerPlan) -> None:
    login(client, planner_user)
    form = editor_form(client, plan)
    resp = client.post(f"/forecasts/plans/{plan.pk}/edit/", form | {"date-0-3": "2020-01-01"})
    assert refusal(resp) == "Illumina HiSeq 2500, from 2020-01-01: instruments: enter a number"
    resp = client.post(f"/forecasts/plans/{plan.pk}/edit/", form | {"date-0-2": "", "count-0-2": ""})
    v2 = SequencerPlan.objects.get(version=2)
    assert resp.status_code == 302 and [c["date"] for c in v2.document["instruments"][0]["counts"]] == [
        "2013-01-01", "2015-01-01"]


def test_an_unchanged_form_saves_nothing_new(client: Client, planner_user: Any, plan: SequencerPlan) -> None:
    """The values the editor shows are the stored ones exactly (no rounding for display)."""
    login(client, planner_user)
    resp = client.post(f"/forecasts/plans/{plan.pk}/edit/", editor_form(client, plan))
    assert resp.status_code == 302 and SequencerPlan.objects.count() == 1


def test_the_save_button_names_the_version_a_save_creates(
        client: Client, planner_user: Any, plan: SequencerPlan) -> None:
    login(client, planner_user)
    form = editor_form(client, plan)
    for count in ("10", "11"):  # v2 and v3
        client.post(f"/forecasts/plans/{plan.pk}/edit/", form | {"count-0-2": count})
    v2 = SequencerPlan.objects.get(version=2)
    page = client.get(f"/forecasts/plans/{v2.pk}/edit/").content.decode()
    assert "Save as v4" in page and "Save as v3" not in page
    client.post(f"/forecasts/plans/{v2.pk}/edit/", editor_form(client, v2) | {"count-0-2": "13"})
    assert SequencerPlan.objects.order_by("-version").first().version == 4


def _doc(**assay_change: Any) -> dict[str, Any]:
    doc = copy.deepcopy(yaml.safe_load(MINERVA.read_text()))
    doc["assays"]["wgs_30x"].update(assay_change)
    return doc


def test_the_same_ranges_hold_for_an_uploaded_plan_and_the_api(
        client: Client, planner_user: Any, plan: SequencerPlan) -> None:
    login(client, planner_user)
    text = yaml.safe_dump(_doc(reanalysis_rate=25), sort_keys=False)
    line = text.splitlines().index("    reanalysis_rate: 25") + 1  # the file's line names the field
    upload = SimpleUploadedFile("plan.yaml", text.encode())
    page = client.post("/forecasts/plans/", {"file": upload}).content.decode()
    assert (f"plan.yaml line {line}: assay whole genome 30x: re-analysed share per year: between 0 and 1 "
            "(0.25 for 25 %), got 25") in html.unescape(page)
    resp = client.post("/api/v1/sequencer-plans/", {"document": _doc(core_hours_per_sample=1e30)},
                       content_type="application/json")
    assert resp.status_code == 400 and "core-hours per sample: between 0 and 1,000,000, got 1e+30" in str(resp.json())
    assert SequencerPlan.objects.count() == 1


def test_a_version_stored_before_the_ranges_still_opens(client: Client, planner_user: Any) -> None:
    row, _ = plan_save(plan_from_document(_doc()), source="test")
    document = copy.deepcopy(row.document)
    document["assays"]["wgs_30x"]["reanalysis_rate"] = 25.0
    SequencerPlan.objects.filter(pk=row.pk).update(document=document)
    page = login(client, planner_user).get(f"/forecasts/plans/{row.pk}/")
    assert page.status_code == 200 and "2500%" in page.content.decode()

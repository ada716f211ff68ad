"""A sequencer plan refused on import names the file, the LINE of the field and the reason, on the command and the
upload page (the errors named the instrument and field only, so a planner searched a 100-line file by hand), and a
plan whose node_types or assays is a list instead of a mapping is refused in one line (was a 500: AttributeError)."""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command

from forecasts.models import SequencerPlan
from tests.helpers import login

pytestmark = pytest.mark.django_db

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "nigm_sequencer_plan.yaml"


def _text() -> str:
    return FIXTURE.read_text().replace("department: ggs\n", "")


def _line_of(text: str, needle: str, nth: int = 0) -> int:
    """The 1-based line of the nth line holding ``needle``."""
    return [i for i, line in enumerate(text.splitlines(), start=1) if needle in line][nth]


# (what is changed: old, new), the text the broken line holds, what the message says after "line N: "
CASES = [
    (("runs_per_week: 0.2", "runs_per_week: 60"), "runs_per_week: 60",
     "Illumina HiSeq 2500: runs per week per instrument: between 0 and 50, got 60"),
    (("samples_per_run: 8", "samples_per_run: 8-4"), "samples_per_run: 8-4",
     "instrument 1 (Illumina HiSeq 2500), run_mix: samples_per_run must be a single number, not '8-4'"),
    (("runs_per_week: 0.2", "runs_per_weak: 0.2"), "runs_per_weak",
     "instrument 1 (Illumina HiSeq 2500): unknown key 'runs_per_weak' (an instrument takes"),
    (("date: '2019-01-01'", "date: '2019-13-01'"), "2019-13-01",
     "instrument 1 (Illumina HiSeq 2500), counts: expected a date such as 2015-01-01, got '2019-13-01'"),
    (("date: '2019-01-01'", "date: '2012-01-01'"), "2012-01-01",
     "instrument 1 (Illumina HiSeq 2500), counts: 2012-01-01 comes after 2014-01-01; give the dates in order"),
    (("clock_ghz: 2.3", "clock_ghz: fast"), "clock_ghz: fast",
     "node type amd_interlagos: clock_ghz must be a single number, not 'fast'"),
    (("assay: exome", "assay: exom"), "assay: exom", "instrument Illumina HiSeq 2500: unknown assay 'exom'"),
    (("retention_months: 3", "retention_months: 2.5"), "retention_months: 2.5",
     "assay wgs_30x, stage raw: retention_months must be a whole number of months, got 2.5"),
    (("node_types:\n  amd_interlagos:", "node_types:\n- amd_interlagos:"), "node_types:",
     "node_types: expected a mapping of node types by name, got a list"),
]


def _broken(old: str, new: str) -> str:
    text = _text()
    assert old in text, old
    return text.replace(old, new, 1)


@pytest.mark.parametrize(("change", "holds", "reason"), CASES, ids=[c[1] for c in CASES])
def test_the_import_command_names_the_line_of_the_refused_field(
        tmp_path: Path, change: tuple[str, str], holds: str, reason: str) -> None:
    text = _broken(*change)
    path = tmp_path / "plan.yaml"
    path.write_text(text)
    with pytest.raises(CommandError) as err:
        call_command("import_sequencer_plan", str(path))
    message = str(err.value)
    assert message.startswith(f"plan.yaml line {_line_of(text, holds)}: {reason}"), message
    assert "\n" not in message and "Traceback" not in message
    assert not SequencerPlan.objects.exists()


@pytest.mark.parametrize(("change", "holds", "reason"), CASES, ids=[c[1] for c in CASES])
def test_the_upload_page_names_the_line_of_the_refused_field(
        client: Any, planner_user: Any, change: tuple[str, str], holds: str, reason: str) -> None:
    text = _broken(*change)
    login(client, planner_user)
    resp = client.post("/forecasts/plans/", {"file": SimpleUploadedFile("plan.yaml", text.encode())})
    assert resp.status_code == 200
    shown = html.unescape(resp.content.decode())
    assert f"plan.yaml line {_line_of(text, holds)}: {reason}" in shown
    assert not SequencerPlan.objects.exists()


def test_a_missing_field_is_named_at_the_line_its_item_starts(tmp_path: Path) -> None:
    text = _text().replace("  runs_per_week: 0.2\n", "", 1)
    path = tmp_path / "plan.yaml"
    path.write_text(text)
    with pytest.raises(CommandError, match=re.escape(
            f"plan.yaml line {_line_of(text, '- model: Illumina HiSeq 2500')}: instrument 1 (Illumina HiSeq 2500): "
            "missing field 'runs_per_week'")):
        call_command("import_sequencer_plan", str(path))


def test_assays_given_as_a_list_is_refused_in_one_line_by_the_api_too(client: Any, planner_user: Any) -> None:
    """The API takes a JSON document (no lines): the same refusal, with the field's name, as a 400."""
    import yaml

    doc = yaml.safe_load(_text())
    doc["assays"] = list(doc["assays"].values())
    login(client, planner_user)
    resp = client.post("/api/v1/sequencer-plans/", {"document": doc}, content_type="application/json")
    assert resp.status_code == 400
    assert "assays: expected a mapping of assays by name, got a list" in str(resp.json())
    assert not SequencerPlan.objects.exists()

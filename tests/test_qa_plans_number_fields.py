"""A sequencer plan whose number field holds a range ("8-4"), a mapping, or nothing: one line naming the
instrument and the field, and nothing stored (was Python's "could not convert string to float" or
"float() argument must be ... not 'dict'", and "missing field 'runs_per_week'" without the instrument)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from django.core.management import CommandError, call_command

from forecasts.models import SequencerPlan

pytestmark = pytest.mark.django_db

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "nigm_sequencer_plan.yaml"


def _broken(tmp_path: Path, change) -> Path:  # type: ignore[no-untyped-def]
    doc = yaml.safe_load(FIXTURE.read_text())
    doc.pop("department", None)
    doc["name"] = "QA number fields"
    change(doc["instruments"][0])
    path = tmp_path / "plan.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    return path


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (lambda i: i["run_mix"][1].update(samples_per_run="8-4"),
         "instrument 1 (Illumina HiSeq 2500), run_mix: samples_per_run must be a single number, not '8-4'"),
        (lambda i: i["run_mix"][1].update(samples_per_run={"low": 8, "high": 4}),
         "instrument 1 (Illumina HiSeq 2500), run_mix: samples_per_run must be a single number"),
        (lambda i: i.pop("runs_per_week"), "instrument 1 (Illumina HiSeq 2500): missing field 'runs_per_week'"),
        (lambda i: i["counts"][0].update(count="two"),
         "instrument 1 (Illumina HiSeq 2500), counts: count must be a single number, not 'two'"),
    ],
)
def test_a_number_field_that_is_no_number_is_named_with_its_instrument(tmp_path: Path, change, expected) -> None:  # type: ignore[no-untyped-def]
    path = _broken(tmp_path, change)
    with pytest.raises(CommandError) as err:
        call_command("import_sequencer_plan", str(path))
    message = str(err.value)
    assert "plan.yaml" in message and expected in message, message
    assert "\n" not in message and "float()" not in message and "could not convert" not in message
    assert not SequencerPlan.objects.filter(name="QA number fields").exists()

"""A sequencer plan whose instrument count dates are out of order (a typed year: 2062 for 2026) or give one
date twice (two counts, which holds?): refused in one line naming the file, the instrument and the dates, and
nothing stored.  Before, both were stored: the dates were sorted silently and of two counts on one date the
later in the file won."""

from __future__ import annotations

from io import StringIO
from pathlib import Path

import pytest
import yaml
from django.core.management import CommandError, call_command

from forecasts.models import SequencerPlan

pytestmark = pytest.mark.django_db

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "nigm_sequencer_plan.yaml"


def _plan(tmp_path: Path, counts: list[dict[str, object]]) -> Path:
    doc = yaml.safe_load(FIXTURE.read_text())
    doc.pop("department", None)
    doc["name"] = "QA count dates"
    doc["instruments"][0]["counts"] = counts
    path = tmp_path / "plan.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    return path


@pytest.mark.parametrize(
    ("counts", "expected"),
    [
        ([{"date": "2014-01-01", "count": 1}, {"date": "2022-01-01", "count": 5}, {"date": "2019-01-01", "count": 3}],
         "instrument 1 (Illumina HiSeq 2500), counts: 2019-01-01 comes after 2022-01-01; give the dates in order"),
        ([{"date": "2014-01-01", "count": 1}, {"date": "2014-01-01", "count": 3}],
         "instrument 1 (Illumina HiSeq 2500), counts: 2014-01-01 is given twice (1 and 3 instruments)"),
    ],
)
def test_count_dates_out_of_order_or_twice_are_refused(tmp_path: Path, counts: list[dict[str, object]],
                                                       expected: str) -> None:
    with pytest.raises(CommandError) as err:
        call_command("import_sequencer_plan", str(_plan(tmp_path, counts)), stdout=StringIO())
    message = str(err.value)
    assert "plan.yaml" in message and expected in message and "\n" not in message, message
    assert not SequencerPlan.objects.filter(name="QA count dates").exists()


def test_dates_in_order_are_stored(tmp_path: Path) -> None:
    counts = [{"date": "2014-01-01", "count": 1}, {"date": "2019-01-01", "count": 3}]
    call_command("import_sequencer_plan", str(_plan(tmp_path, counts)), stdout=StringIO())
    assert SequencerPlan.objects.filter(name="QA count dates").count() == 1

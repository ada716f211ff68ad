"""A sequencer plan fed the nastiest values (QA, session 27). A plan ending in 9999 was accepted and its figures
computed month by month: the import (command, upload page or API) held its process for hours. NaN and infinities,
a NUL byte, text that is not UTF-8, a byte-order mark and CRLF line ends: each is stored or refused in one line
naming the file, the line and the reason (the command said "the text is not UTF-8 (UnicodeDecodeError: ...)" and,
for a NUL, "not valid YAML: unacceptable character #x0000" without a line)."""

from __future__ import annotations

import html
import time
from pathlib import Path
from typing import Any

import pytest
import yaml
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command

from forecasts.models import SequencerPlan
from tests.helpers import login

pytestmark = pytest.mark.django_db

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "nigm_sequencer_plan.yaml"
TEXT = FIXTURE.read_text().replace("department: ggs\n", "")


def _line(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), start=1) if needle in line)


def _refused(tmp_path: Path, data: bytes) -> str:
    path = tmp_path / "plan.yaml"
    path.write_bytes(data)
    started = time.monotonic()
    with pytest.raises(CommandError) as err:
        call_command("import_sequencer_plan", str(path))
    assert time.monotonic() - started < 10
    assert not SequencerPlan.objects.exists()
    return str(err.value)


@pytest.mark.parametrize(("old", "new", "holds", "reason"), [
    ("end: '2022-12-31'", "end: '9999-12-31'", "9999-12-31",
     "end: 9999-12-31 is outside the years a plan can cover (1970-2199)"),
    ("start: '2014-01-01'", "start: '1900-01-01'", "1900-01-01",
     "start: 1900-01-01 is outside the years a plan can cover (1970-2199)"),
    ("end: '2022-12-31'", "end: '2199-12-31'", "2199-12-31",
     "end: 2199-12-31 is 185 years after the start; a plan covers at most 100 years"),
    ("runs_per_week: 0.2", "runs_per_week: .nan", ".nan", "runs per week per instrument: between 0 and 50, got nan"),
    ("count: 3.5", "count: -.inf", "-.inf", "instruments: between 0 and 1,000, got -inf"),
])
def test_a_value_out_of_reach_is_refused_at_once_with_its_line(
        tmp_path: Path, old: str, new: str, holds: str, reason: str) -> None:
    text = TEXT.replace(old, new, 1)
    message = _refused(tmp_path, text.encode())
    assert message.startswith(f"plan.yaml line {_line(text, holds)}: ") and reason in message, message


def test_a_nul_byte_and_text_that_is_not_utf8_are_refused_with_their_line(tmp_path: Path) -> None:
    text = TEXT.replace("name: Genomics", "name: Geno\x00mics")
    assert _refused(tmp_path, text.encode()) == f"plan.yaml line {_line(text, 'Geno')}: a NUL byte (a binary or " \
                                                "damaged file)"
    latin = TEXT.replace("name: Genomics", "name: Génomics").encode("latin-1")
    assert _refused(tmp_path, latin).startswith(f"plan.yaml line {_line(TEXT, 'name: Genomics')}: not UTF-8 text")


def test_a_byte_order_mark_and_crlf_line_ends_are_read(tmp_path: Path) -> None:
    path = tmp_path / "plan.yaml"
    path.write_bytes(b"\xef\xbb\xbf" + TEXT.replace("\n", "\r\n").encode())
    call_command("import_sequencer_plan", str(path))
    assert SequencerPlan.objects.get().name == "Genomics core sequencing plan (NIGM demo)"


def test_the_upload_page_and_the_api_refuse_a_plan_ending_in_9999_at_once(client: Any, planner_user: Any) -> None:
    text = TEXT.replace("end: '2022-12-31'", "end: '9999-12-31'")
    login(client, planner_user)
    started = time.monotonic()
    page = client.post("/forecasts/plans/", {"file": SimpleUploadedFile("plan.yaml", text.encode())})
    assert page.status_code == 200
    assert (f"plan.yaml line {_line(text, '9999')}: end: 9999-12-31 is outside the years a plan can cover"
            in page.content.decode())
    resp = client.post("/api/v1/sequencer-plans/", {"document": yaml.safe_load(text)},
                       content_type="application/json")
    assert resp.status_code == 400 and "end: 9999-12-31 is outside the years" in str(resp.json())
    assert time.monotonic() - started < 20
    assert not SequencerPlan.objects.exists()


@pytest.mark.parametrize(("row", "reason"), [
    ("Illumina HiSeq 2500,2016-01-01,1e309", "count '1e309' for Illumina HiSeq 2500 must be a number >= 0"),
    ("Illumina HiSeq 2500,2016-01-01,99999999999999999999",
     "Illumina HiSeq 2500, from 2016-01-01: instruments: between 0 and 1,000, got 1e+20"),
    ("Illumina HiSeq 2500,2016-0", "date: expected a date such as 2015-01-01, got '2016-0'"),
])
def test_a_counts_csv_names_the_line_of_a_bad_count_on_the_command_and_the_page(
        tmp_path: Path, client: Any, planner_user: Any, row: str, reason: str) -> None:
    """Was "counts.csv: expected columns model,date,count: line 3: ..." (the columns were right), and a count out
    of the plan's range was named without its line."""
    plan = tmp_path / "plan.yaml"
    plan.write_text(TEXT)
    call_command("import_sequencer_plan", str(plan))
    name = SequencerPlan.objects.get().name
    data = "\ufeffmodel,date,count\r\nIllumina HiSeq 2500,2014-01-01,1\r\n" + row
    path = tmp_path / "counts.csv"
    path.write_text(data, newline="")
    with pytest.raises(CommandError) as err:
        call_command("import_sequencer_plan", str(path), "--plan", name)
    assert str(err.value) == f"counts.csv line 3: {reason}"
    login(client, planner_user)
    page = client.post("/forecasts/plans/", {"file": SimpleUploadedFile("counts.csv", data.encode()), "base": name})
    assert f"counts.csv line 3: {reason}" in html.unescape(page.content.decode())
    assert SequencerPlan.objects.count() == 1

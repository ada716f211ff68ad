"""A job that ends in the hour a DST change repeats, in a log written in local time (APEL's sacct layout, or
any sacct run without TZ=UTC), read with ``--timezone``.

On 25 October 2020 Europe/London clocks went from 01:59:59 BST back to 01:00:00 GMT.  A job that started at
01:50 BST and ran 20 minutes ended at 01:10 GMT: both stamps read "01:..", and the End, taken in the first
pass (BST), fell before the Start, so the job was rejected ("End is before Start") and its core-hours lost.
The End is now read in the repeated hour's second pass when the first would put it before the Start.
Golden values worked out by hand: 01:50 BST = 00:50 UTC, 01:10 GMT = 01:10 UTC, 20 minutes x 4 cores.

A job that started before the repeated hour and ended in its second pass (00:30 BST to 01:30 GMT, Elapsed
02:00:00) was stored with one hour: the End's first reading is after the Start, so nothing looked wrong.
Where the log has Elapsed, the reading of an End in the repeated hour that agrees with it is taken.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command

pytestmark = pytest.mark.django_db

LINES = [  # XDMoD's 26-field sacct layout, local (Europe/London) times
    "700001|700001|c|p|normal|acct|grp|1|usr|1|2020-10-25T01:40:00|2020-10-25T01:40:00|2020-10-25T01:50:00|"
    "2020-10-25T01:10:00|00:20:00|0:0|COMPLETED|1|4|4|0n|cpu=4|cpu=4,node=1|01:00:00|n1|across-fall-back",
    "700002|700002|c|p|normal|acct|grp|1|usr|1|2020-10-24T10:00:00|2020-10-24T10:00:00|2020-10-24T12:00:00|"
    "2020-10-24T11:00:00|00:00:00|0:0|COMPLETED|1|4|4|0n|cpu=4|cpu=4,node=1|01:00:00|n1|really-backwards",
]


def test_an_end_in_the_repeated_hour_is_read_in_the_pass_its_elapsed_time_says(tmp_path: Path) -> None:
    from forecasts.models import Job

    log = tmp_path / "local.log"
    log.write_text(
        "700003|700003|c|p|normal|acct|grp|1|usr|1|2020-10-25T00:20:00|2020-10-25T00:20:00|2020-10-25T00:30:00|"
        "2020-10-25T01:30:00|02:00:00|0:0|COMPLETED|1|8|8|0n|cpu=8|cpu=8,node=1|03:00:00|n1|two-hours\n"
        "700004|700004|c|p|normal|acct|grp|1|usr|1|2020-10-25T00:20:00|2020-10-25T00:20:00|2020-10-25T00:30:00|"
        "2020-10-25T01:30:00|01:00:00|0:0|COMPLETED|1|8|8|0n|cpu=8|cpu=8,node=1|03:00:00|n1|one-hour\n")
    call_command("ingest_accounting", "--format", "slurm", "--cluster", "london", "--timezone", "Europe/London",
                 str(log), stdout=io.StringIO(), stderr=io.StringIO())
    two, one = Job.objects.get(job_id="700003"), Job.objects.get(job_id="700004")
    assert (two.start.isoformat(), two.end.isoformat()) == ("2020-10-24T23:30:00+00:00", "2020-10-25T01:30:00+00:00")
    assert two.wall_s == 7200 and two.core_hours == 16
    assert one.end.isoformat() == "2020-10-25T00:30:00+00:00" and one.core_hours == 8  # first pass: 1 h


def test_a_job_ending_in_the_repeated_hour_is_stored_with_its_real_wall_time(tmp_path: Path) -> None:
    from forecasts.models import Job

    log = tmp_path / "local.log"
    log.write_text("\n".join(LINES) + "\n")
    out = io.StringIO()
    call_command("ingest_accounting", "--format", "slurm", "--cluster", "london", "--timezone", "Europe/London",
                 str(log), stdout=out, stderr=io.StringIO())
    summary: dict[str, Any] = json.loads(out.getvalue().strip().splitlines()[-1])
    assert (summary["records_read"], summary["jobs_ingested"], summary["rejected"]) == (2, 1, 1)
    job = Job.objects.get(job_id="700001")
    assert job.start.isoformat() == "2020-10-25T00:50:00+00:00"
    assert job.end.isoformat() == "2020-10-25T01:10:00+00:00"
    assert job.wall_s == 1200 and job.core_hours == pytest.approx(4 * 1200 / 3600)
    assert summary["core_hours"] == pytest.approx(1.3333, abs=1e-4)

"""Accounting text fields of any length (QA, session 27). A job name of 1 MB (a script pasted into --job-name) was
stored whole: a row of megabytes per job. A queue or user name wider than its column (120 characters) failed the
whole run with "database error: value too long for type character varying(120)", losing every good line of the
file. Now a name over 1,024 characters is cut to 1,024 (marked "… [N more characters not kept]"), the job stored
and the run counting it (names_cut); a record with a field wider than its column is rejected with its line and the
field named; every other line loads; read = stored + duplicates + skipped + rejected."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.urls import reverse

from forecasts.accounting.models import IngestRun, Job
from forecasts.accounting.parsers.records import NAME_MAX_CHARS
from tests.helpers import login, wait_for_job

HEAD = ("JobID|State|User|Group|Account|Partition|QOS|Submit|Start|End|NCPUS|NNodes|ReqMem|AllocTRES|Timelimit|"
        "NodeList|MaxRSS|TotalCPU|ExitCode|JobName\n")
ROW = ("{id}|COMPLETED|{user}|astro|astro|{part}|normal|2024-03-31T00:30:00|2024-03-31T00:45:00|2024-03-31T03:15:00|"
       "48|1|180G|billing=48,cpu=48,mem=180G,node=1|1-00:00:00|node[001]|1.40G|2-00:00:00|0:0|{name}\n")
HUGE = "x" * 1_000_000


def _log() -> bytes:
    rows = [ROW.format(id=1, user="dave", part="compute", name="ok"),
            ROW.format(id=2, user="dave", part="compute", name=HUGE),           # line 3: name cut, stored
            ROW.format(id=3, user="dave", part="p" * 500, name="q"),          # line 4: queue too wide, rejected
            ROW.format(id=4, user="u" * 121, part="compute", name="q"),       # line 5: user too wide, rejected
            ROW.format(id=5, user="dave", part="compute", name="y" * NAME_MAX_CHARS)]  # line 6: exactly the cap
    return (HEAD + "".join(rows)).encode()


def _check(run: IngestRun) -> None:
    assert (run.records_read, run.jobs_ingested, run.rejected, run.skipped, run.duplicates) == (5, 3, 2, 0, 0)
    assert run.names_cut == 1
    names = dict(Job.objects.filter(cluster=run.cluster).values_list("job_id", "name"))
    assert set(names) == {"1", "2", "5"}
    assert len(names["2"]) == NAME_MAX_CHARS and names["2"].startswith("x" * 900)
    kept = NAME_MAX_CHARS - len(names["2"].split("…")[1]) - 1
    assert names["2"].endswith(f"… [{len(HUGE) - kept:,} more characters not kept]")
    assert names["5"] == "y" * NAME_MAX_CHARS
    reasons = dict(run.rejections.values_list("line", "reason"))
    assert reasons[4].startswith("queue is 500 characters long (at most 120): 'pppp")
    assert reasons[5].startswith("user is 121 characters long (at most 120): 'uuuu")


@pytest.mark.django_db
def test_the_command_cuts_a_huge_name_and_rejects_a_too_wide_field_alone(tmp_path: Path, departments: Any) -> None:
    path = tmp_path / "sacct.txt"
    path.write_bytes(_log())
    out = io.StringIO()
    call_command("ingest_accounting", "--format", "slurm", "--cluster", "wide", str(path), stdout=out,
                 stderr=io.StringIO())
    summary = json.loads(out.getvalue().splitlines()[-1])
    assert summary["status"] == "completed" and summary["names_cut"] == 1 and summary["rejected"] == 2
    _check(IngestRun.objects.get())


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_the_upload_page_says_how_many_names_were_cut_and_lists_the_rejected_lines(
        client: Any, planner_user: Any, live_worker: Any, settings: Any, tmp_path: Path, departments: Any) -> None:
    settings.UPLOAD_DIR = tmp_path / "uploads"
    login(client, planner_user)
    form = {"format": "slurm", "cluster": "__new__", "new_cluster": "wide", "timezone": ""}
    response = client.post(reverse("ingest-new"), {**form, "file": SimpleUploadedFile("sacct.txt", _log())})
    assert response.status_code == 302
    run = IngestRun.objects.get()
    job = wait_for_job(run.background_job_id)
    assert job.status == "succeeded", job.message
    run.refresh_from_db()
    _check(run)
    page = client.get(reverse("ingest-run", args=[run.pk]))
    text = page.content.decode()
    assert page.status_code == 200 and "5 read =" in text and "adds up" in text
    assert "1 job name longer than 1,024 characters was cut to 1,024" in text
    assert len(page.content) < 200_000  # the page never carries the megabyte
    rejections = b"".join(client.get(reverse("ingest-rejections-csv", args=[run.pk])).streaming_content).decode()
    rows = list(csv.reader(io.StringIO(rejections)))[1:]
    assert [(r[1], r[2], r[3].split(" (")[0]) for r in rows] == [
        ("sacct.txt", "4", "queue is 500 characters long"), ("sacct.txt", "5", "user is 121 characters long")]
    assert [r[4][:2] for r in rows] == ["3\t", "4\t"]  # the record's values
    api = client.get(f"/api/v1/ingestions/{run.pk}/").json()
    assert api["names_cut"] == 1 and api["rejected"] == 2

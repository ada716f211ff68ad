"""The demo's re-sent extract (forecasts.accounting.demo): duplicates and rejections that add up, on PostgreSQL."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from forecasts.accounting import demo
from forecasts.accounting.load import ingest_run_create, ingest_run_execute
from forecasts.accounting.parsers.synth import slurm_lines
from forecasts.models import IngestRejection, IngestRun, Job

pytestmark = pytest.mark.django_db


def test_damaged_lines_are_three_ways_a_line_breaks() -> None:
    line = next(slurm_lines(1, start=datetime(2019, 12, 30, tzinfo=UTC), end=datetime(2019, 12, 31, tzinfo=UTC)))
    cut, bad_end, bad_cpus = demo.damaged(line)
    assert cut == line[:70] + "\n"
    assert bad_end.split("|")[13] == "2019-13-45T99:00:00" and bad_end.count("|") == line.count("|")
    assert bad_cpus.split("|")[18] == "x32" and bad_cpus.count("|") == line.count("|")


def test_resent_extract_stores_nothing_twice_and_rejects_the_damaged_lines(settings, tmp_path: Path) -> None:
    settings.DATA_DIR = tmp_path
    source = tmp_path / f"demo_{demo.CLUSTER}_{demo.START:%Y}-{demo.END:%Y}_sacct.txt"
    source.write_text("".join(slurm_lines(400, start=datetime(2019, 12, 20, tzinfo=UTC),
                                          end=datetime(2020, 1, 1, tzinfo=UTC), cluster=demo.CLUSTER)))
    first = ingest_run_execute(ingest_run_create(cluster_name=demo.CLUSTER, fmt="slurm", paths=[source]).pk)
    jobs_before = Job.objects.count()
    resent_lines = sum(1 for line in source.open() if line.split("|")[10] >= demo.RESENT_FROM)
    assert first.jobs_ingested == 400 and resent_lines > 41

    messages: list[str] = []
    demo.load_resent_extract(messages.append)
    run = IngestRun.objects.get(source="demo-resent")
    assert run.status == IngestRun.Status.COMPLETED
    # every record of the re-sent days, plus the three damaged copies of one of them
    assert run.records_read == resent_lines + 3
    assert (run.jobs_ingested, run.duplicates, run.skipped, run.rejected) == (0, resent_lines, 0, 3)
    assert run.records_read == run.jobs_ingested + run.duplicates + run.skipped + run.rejected
    assert Job.objects.count() == jobs_before  # nothing stored twice
    rejected = list(IngestRejection.objects.filter(run=run).order_by("line"))
    assert [r.line for r in rejected] == [42, 43, 44]
    assert "not a time" in rejected[1].reason and "not an integer" in rejected[2].reason
    assert messages == [f"  {demo.CLUSTER}: re-sent extract, {resent_lines + 3:,} records read, 0 stored, "
                        f"{resent_lines:,} duplicates, 3 rejected"]

    demo.load_resent_extract(messages.append)  # the demo can be loaded again: no second copy
    assert IngestRun.objects.filter(source="demo-resent").count() == 1 and len(messages) == 1

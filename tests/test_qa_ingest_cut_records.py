"""A PBS log cut in the middle of an E record counted that record as a job that 'never started': it is
refused as cut short instead, and the records before it are kept."""

from __future__ import annotations

from forecasts.accounting.parsers import pbs
from forecasts.accounting.parsers.records import JobRecord, Rejected, Skipped
from tests.shared import SHARED_DATA, requires_shared

PBS_LOG = SHARED_DATA / "pbs" / "xdmod_input_accounting-logs.log"


@requires_shared
def test_a_pbs_log_cut_inside_an_e_record_rejects_that_record_and_keeps_the_ones_before() -> None:
    data = PBS_LOG.read_bytes()
    cut = data[:3000]  # inside the fifth E record, after qtime=, before start=
    items = list(pbs.parse(cut.splitlines(keepends=True), cluster="c"))
    assert [type(i) for i in items] == [JobRecord] * 4 + [Rejected]
    assert "cut short" in items[-1].reason
    assert items[-1].line == 5


def test_a_pbs_e_record_of_a_job_that_never_ran_is_still_skipped() -> None:
    line = (b"04/01/2020 10:00:00;E;77.srv;user=u group=g queue=q ctime=1585735000 qtime=1585735000 "
            b"end=1585735200 Exit_status=271\n")
    (item,) = pbs.parse([line], cluster="c")
    assert isinstance(item, Skipped) and item.reason.startswith("never started")


def test_a_pbs_log_cut_after_end_is_refused_not_stored_with_a_cut_value() -> None:
    """Cut inside end= (1585735200 -> 158573520) the record parsed as whole; every line PBS writes ends with a line
    break, so the last one without it is refused, and the same record with its line break is a job."""
    head = b"04/01/2020 10:00:00;E;76.srv;user=u group=g queue=q ctime=1585735000 start=1585735100 "
    whole = head + b"end=1585735200 exec_host=n1/0 Exit_status=0 resources_used.walltime=00:01:40\n"
    first, last = whole, head + b"end=158573520"
    items = list(pbs.parse([first, last], cluster="c"))
    assert isinstance(items[0], JobRecord) and isinstance(items[1], Rejected)
    assert items[1].line == 2 and "no line break" in items[1].reason and "end the file with a line break" in \
        items[1].reason
    (job,) = pbs.parse([whole], cluster="c")
    assert isinstance(job, JobRecord)
    (cut,) = pbs.parse([whole.rstrip(b"\n")], cluster="c")  # whole-looking too: refused, the reason says how
    assert isinstance(cut, Rejected)

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

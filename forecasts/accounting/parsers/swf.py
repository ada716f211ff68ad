"""Streaming parser for the Standard Workload Format (pure core, no Django).

SWF (Parallel Workloads Archive, README §3.5): ``;`` header/comment lines, then
18 whitespace-separated numeric fields per job; ``-1`` means unknown; some
values are fractional.

Times.  ``; UnixStartTime: N`` is a true epoch (verified on both archive traces:
NASA's 749458803 is ``Fri Oct 01 00:00:03 PDT 1993`` as its StartTime header
says), so submit = UnixStartTime + field 2, start = submit + wait, end = start +
run, all UTC.  ``; TimeZoneString:`` (an Olson name, read with zoneinfo) is the
site's local zone; it does not move instants, it tells a consumer how to show
local wall-clock time (``SwfHeader.tz``).  Only when UnixStartTime is missing is
the ``; StartTime:`` string used, read in TimeZoneString (or the ``tz`` argument).
Without either, offsets count from the Unix epoch.

What a planner needs, field by field:
* job_id = field 1; user/group = ``u<id>``/``g<id>`` ("" when -1); account = "".
* queue = field 15, named from ``; Queue: N name`` headers when present.
* wait -1 (NASA: "submit times are actually start times") -> start = submit, so
  core-hours survive; eligible is None (SWF has no eligible time).
* run -1 -> ``Skipped("run time unknown")``: a job that held nothing measurable.
* cores = allocated processors (field 5), else requested (field 8), else 0:
  a job of unknown width, stored (it ran) with 0 core-hours; the workload
  report counts it apart (``shape.unknown_width``), not as a 1-core job.
* nodes: SWF counts processors, not nodes; when the header says MaxNodes ==
  MaxProcs (one processor per node, as on both archive traces) nodes = cores,
  otherwise 0 (unknown).
* cpu_time_s = average CPU time per processor (field 6) x cores.
* used_mem_mb = field 7 (KB per processor) x cores; req_mem_mb = field 10 (KB
  per processor) x requested processors; req_walltime_s = field 9.
* status 1 COMPLETED, 0 FAILED, 5 CANCELLED, -1 UNKNOWN (still a job: NASA has
  only -1).  Status 2/3/4 are partial executions of a checkpointed job whose
  summary line is also in the file -> ``Skipped("partial execution ...")`` to
  avoid counting the same work twice.
* name = ``app<N>`` from field 14 (the executable number), "" when -1.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, timezone, tzinfo
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from forecasts.accounting.parsers.records import NO_ARRAY_INDEX, JobRecord, ParsedItem, Rejected, Skipped

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
N_FIELDS = 18
FIELD_NAMES = (
    "job number", "submit time", "wait time", "run time", "allocated processors", "average CPU time",
    "used memory", "requested processors", "requested time", "requested memory", "status", "user id",
    "group id", "executable number", "queue number", "partition number", "preceding job",
    "think time",
)  # fmt: skip
STATUS = {1: "COMPLETED", 0: "FAILED", 5: "CANCELLED", -1: "UNKNOWN"}
PARTIAL = {2: "partial execution (status 2)", 3: "partial execution (status 3)",
           4: "partial execution (status 4)"}  # fmt: skip
SKIP_RUN_UNKNOWN = "run time unknown"
_HEADER_RE = re.compile(r"^;\s*([A-Za-z][A-Za-z ]*?)\s*:\s*(.*?)\s*$")


@dataclass(slots=True)
class SwfHeader:
    """What the ``;`` header says (read as the parse goes; complete once data starts)."""

    unix_start: int | None = None
    tz: tzinfo | None = None  # the site's zone (TimeZoneString, else TimeZone offset)
    tz_name: str = ""
    start_time: str = ""
    max_nodes: int | None = None
    max_procs: int | None = None
    queues: dict[int, str] = field(default_factory=dict)
    partitions: dict[int, str] = field(default_factory=dict)
    other: dict[str, str] = field(default_factory=dict)

    def read(self, line: str) -> None:
        m = _HEADER_RE.match(line)
        if m is None:
            return
        key, value = m.group(1).strip(), m.group(2)
        low = key.lower()
        try:
            if low == "unixstarttime":
                self.unix_start = int(float(value))
            elif low == "timezonestring":
                self.tz_name = value
                self.tz = ZoneInfo(value)
            elif low == "timezone" and self.tz is None:
                self.tz = timezone(timedelta(seconds=int(float(value))))
            elif low == "starttime":
                self.start_time = value
            elif low == "maxnodes":
                self.max_nodes = int(float(value))
            elif low == "maxprocs":
                self.max_procs = int(float(value))
            elif low in ("queue", "partition"):
                num, _, name = value.partition(" ")
                target = self.queues if low == "queue" else self.partitions
                target[int(num)] = name.strip() or num
            else:
                self.other[key] = value
        except (ValueError, ZoneInfoNotFoundError, OverflowError):
            self.other[key] = value  # a header we cannot use is not a reason to stop

    def base(self, fallback_tz: tzinfo) -> datetime:
        """The instant that submit offsets count from."""
        if self.unix_start is not None:
            try:
                return EPOCH + timedelta(seconds=self.unix_start)
            except OverflowError:
                return EPOCH
        if self.start_time:
            parts = self.start_time.split()
            if len(parts) >= 5:  # "Fri Oct 01 00:00:03 PDT 1993": zone abbreviation dropped
                text = " ".join(parts[:4] + parts[-1:])
                try:
                    local = datetime.strptime(text, "%a %b %d %H:%M:%S %Y")
                    return local.replace(tzinfo=self.tz or fallback_tz).astimezone(UTC)
                except ValueError:
                    pass
        return EPOCH

    @property
    def one_proc_per_node(self) -> bool:
        return self.max_nodes is not None and self.max_nodes == self.max_procs


def _num(text: str) -> float:
    value = float(text)
    if value != value or value in (float("inf"), float("-inf")):
        raise ValueError(text)
    return value


def parse(
    lines: Iterable[bytes],
    *,
    cluster: str,
    tz: tzinfo = UTC,
    header: SwfHeader | None = None,
) -> Iterator[ParsedItem]:
    """Parse SWF lines into JobRecord / Skipped / Rejected items.

    Pass a ``SwfHeader`` to read the header values (zone, queue names) afterwards.
    """
    hdr = header if header is not None else SwfHeader()
    base: datetime | None = None
    lineno = 0
    for raw in lines:
        lineno += 1
        try:
            text = raw.decode("utf-8", "replace")
        except AttributeError:
            text = str(raw)
        s = text.strip()
        if not s:
            continue
        if s[0] == ";":
            hdr.read(s)
            base = None  # a header after data (concatenated traces) applies from here on
            continue
        parts = s.split()
        if len(parts) != N_FIELDS:
            yield Rejected(lineno, f"expected {N_FIELDS} whitespace-separated fields, got {len(parts)}", s)
            continue
        if base is None:
            base = hdr.base(tz)
        vals: list[float] = []
        bad = -1
        for i, p in enumerate(parts):
            try:
                vals.append(_num(p))
            except ValueError:
                bad = i
                break
        if bad >= 0:
            yield Rejected(lineno, f"field {bad + 1} ({FIELD_NAMES[bad]}): {parts[bad]!r} is not a number", s)
            continue
        job_n, submit_s, wait_s, run_s, alloc, avg_cpu, used_kb, req_procs, req_time, req_kb, status = vals[:11]
        uid, gid, app, queue_n = vals[11], vals[12], vals[13], vals[14]
        status_i = int(status)
        if status_i in PARTIAL:
            yield Skipped(lineno, PARTIAL[status_i])
            continue
        if job_n < 0:
            yield Rejected(lineno, f"field 1 ({FIELD_NAMES[0]}): {parts[0]!r} is negative", s)
            continue
        if run_s < 0:
            yield Skipped(lineno, SKIP_RUN_UNKNOWN)
            continue
        if submit_s < 0:
            yield Rejected(lineno, f"field 2 ({FIELD_NAMES[1]}): {parts[1]!r} is unknown or negative", s)
            continue
        field = 1  # which of submit (field 2), wait (3) and run time (4) takes the date past year 9999
        try:
            submit = base + timedelta(seconds=submit_s)
            field = 2
            start = submit + timedelta(seconds=wait_s) if wait_s >= 0 else submit
            field = 3
            end = start + timedelta(seconds=run_s)
        except OverflowError:
            yield Rejected(lineno, f"field {field + 1} ({FIELD_NAMES[field]}): {parts[field]!r} takes the job's "
                                   "times past the year 9999", s)
            continue
        cores = int(alloc) if alloc >= 0 else (int(req_procs) if req_procs >= 0 else 0)
        procs_req = int(req_procs) if req_procs >= 0 else cores
        nodes = cores if hdr.one_proc_per_node else 0
        queue = ""
        if queue_n >= 0:
            qn = int(queue_n)
            queue = hdr.queues.get(qn, str(qn))
        yield JobRecord(
            cluster,
            str(int(job_n)),
            NO_ARRAY_INDEX,
            f"u{int(uid)}" if uid >= 0 else "",
            f"g{int(gid)}" if gid >= 0 else "",
            "",
            queue,
            "",
            submit,
            None,
            start,
            end,
            cores,
            nodes,
            0,
            req_kb * procs_req / 1024.0 if req_kb >= 0 and procs_req else None,
            used_kb * cores / 1024.0 if used_kb >= 0 and cores else None,
            int(req_time) if req_time >= 0 else None,
            avg_cpu * cores if avg_cpu >= 0 else None,
            None,
            STATUS.get(status_i, f"STATUS_{status_i}"),
            "",
            f"app{int(app)}" if app >= 0 else "",
            lineno,
        )

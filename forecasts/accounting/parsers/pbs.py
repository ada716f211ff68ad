"""Streaming parser for PBS Pro / OpenPBS / TORQUE accounting logs.

Pure core: imports nothing from Django.

Format (README §3.2): ``MM/DD/YYYY HH:MM:SS;<type>;<job id>;<key=value ...>``.
The line stamp is the server's local time (``tz``); ``ctime qtime etime start
end`` are epoch seconds.  Values may be quoted (``'...'`` or ``"..."``) and then
may hold spaces.  Only ``E`` (job ended) records are jobs; every other record
type is :class:`Skipped` with its type named.

Which field is authoritative (first present, usable value wins):

* cores: ``resources_used.ncpus`` (PBS Pro: what the job actually held) ->
  ``total_execution_slots`` (TORQUE >= 5) -> sum of ``ncpus=`` in ``exec_vnode``
  (PBS Pro) -> slots in ``exec_host`` (``h/7+h/6`` one each, ``h/0*13`` 13,
  ``h/0-3`` 4, ``h/0-3,8`` 5) -> ``Resource_List.ncpus`` -> ``select``
  (``2:ncpus=8+1:ncpus=4`` = 20) -> ``Resource_List.nodes`` (``4:ppn=8`` = 32)
  -> 1.  Allocation (what was held) beats request: TORQUE fills
  ``Resource_List.ncpus=1`` by default even for a ``nodes=1:ppn=4`` job that
  holds 4 slots (XDMoD "TORQUE 5.0.1" case), so exec_host ranks above it.
* nodes: ``unique_node_count`` -> distinct hosts in ``exec_host`` ->
  ``Resource_List.nodect`` (leading integer) -> select chunk count ->
  ``Resource_List.nodes`` -> 1.
* gpus: ``Resource_List.ngpus`` -> ``ngpus`` summed over ``select`` chunks ->
  ``gpus=N``/``gpu=N`` in ``Resource_List.nodes`` (times the node count of each
  ``+`` part) -> the same in ``Resource_List.nodect`` (seen in the wild) -> 0.
  ``Resource_List.gpu=N`` on its own and ``neednodes`` are *not* counted:
  XDMoD's regression case "Job with Resource_List.gpu" expects 0 for exactly
  that record (README §2 lists GPU counts as trustworthy).
* used_mem_mb: ``resources_used.mem`` (units b, w, kb, mb, gb, tb and the
  one-letter K/M/G/T forms such as ``12.27M``; no unit = bytes).
* req_mem_mb: ``Resource_List.mem`` -> ``mem`` summed over select chunks ->
  ``Resource_List.pmem`` x cores.
* req_walltime_s: ``Resource_List.walltime`` (``HH:MM:SS``, plain seconds,
  ``D:HH:MM:SS``, or truncated ``19:23:4``).
* cpu_time_s: ``resources_used.cput``.
* end: ``end`` epoch; when absent, the line stamp interpreted in ``tz``.
* job id: server suffix dropped (``6.edge.ccr.buffalo.edu`` -> ``6``); array
  sub-jobs ``123[4].srv`` -> id ``123``, index 4.  A PBS Pro array *parent*
  (``123[]``) summarises its sub-jobs, which have their own E records, and is
  Skipped so it is not counted twice.
* account: ``account`` (TORQUE) or ``project`` (PBS Pro), kept as written,
  including PBS Pro's ``_pbs_project_default``.
* state: ``COMPLETED`` when Exit_status is 0, else ``FAILED`` (PBS encodes
  "killed by signal N" as 256+N, e.g. 271 = SIGTERM, and scheduler-side
  failures as negative values; exit_status keeps the raw number).
* jobs with no ``start`` (or ``start=0``) never ran -> Skipped.

Wall time for statistics is ``end - start``; ``resources_used.walltime`` is
the MOM's own figure and can disagree in hand-edited or requeued records.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime, tzinfo

from .pbs_fields import (
    _int_value,
    _select_sum,
    _spec_parts,
    _vnode_ncpus,
    exec_host_slots,
    gpus_from_nodes_spec,
    parse_attributes,
    parse_duration,
    parse_memory_mb,
)
from .records import NO_ARRAY_INDEX, JobRecord, Rejected, Skipped

__all__ = [
    "parse",
    "parse_attributes",
    "parse_duration",
    "parse_memory_mb",
    "exec_host_slots",
    "gpus_from_nodes_spec",
]

_RECORD_TYPES = {
    "Q": "queued",
    "S": "started",
    "L": "licence",
    "A": "aborted",
    "D": "deleted",
    "R": "rerun",
    "C": "checkpointed",
    "T": "restarted from checkpoint",
    "U": "unconfirmed reservation",
    "Y": "confirmed reservation",
    "B": "reservation begins",
    "F": "reservation finished",
    "K": "reservation removed",
    "k": "reservation removed",
    "M": "moved",
    "P": "provisioning",
    "a": "attributes altered",
    "s": "sub-job started",
    "e": "sub-job ended",
    "c": "next cycle",
}

_STAMP = re.compile(r"(\d{1,2})/(\d{1,2})/(\d{4}) (\d{1,2}):(\d{2}):(\d{2})\s*$")
_JOB_ID = re.compile(r"^(\d+)(?:\[(\d*)\])?(?:\.\S*)?$")

_MAX_EPOCH = 253402300799


class _Bad(Exception):
    """A field that cannot be read; message is the human-readable reason."""


def _split_job_id(raw: str) -> tuple[str, int] | None:
    """``6.edge.ccr.buffalo.edu`` -> ("6", -1); ``123[4].srv`` -> ("123", 4); ``123[]`` -> ("123", -2)."""
    match = _JOB_ID.match(raw.strip())
    if match:
        index = match.group(2)
        if index is None:
            return match.group(1), NO_ARRAY_INDEX
        return match.group(1), int(index) if index else -2
    base = raw.strip().split(".", 1)[0]
    if not base or any(c in base for c in " \t;="):
        return None
    return base, NO_ARRAY_INDEX  # non-numeric but usable id (kept as written)


def _epoch(attrs: dict[str, str], key: str) -> int | None:
    raw = attrs.get(key)
    if raw is None or raw == "":
        return None
    try:
        value = int(raw)
    except ValueError:
        try:
            as_float = float(raw)
        except ValueError:
            raise _Bad(f"{key}: {raw[:40]!r} is not an epoch time") from None
        if as_float != as_float or abs(as_float) == float("inf"):
            raise _Bad(f"{key}: {raw[:40]!r} is not an epoch time") from None
        value = int(as_float)
    if value < 0 or value > _MAX_EPOCH:
        raise _Bad(f"{key}: {raw[:40]!r} is not an epoch time")
    return value


def _utc(seconds: int) -> datetime:
    return datetime.fromtimestamp(seconds, UTC)


def _stamp(text: str, tz: tzinfo) -> datetime | None:
    match = _STAMP.search(text)
    if not match:
        return None
    month, day, year, hour, minute, second = (int(g) for g in match.groups())
    try:
        local = datetime(year, month, day, hour, minute, second)
    except ValueError:
        return None
    localize = getattr(tz, "localize", None)  # pytz zones need localize(), not replace()
    local = localize(local) if localize is not None else local.replace(tzinfo=tz)
    return local.astimezone(UTC)


def _cores(attrs: dict[str, str], exec_slots: int) -> int:
    for key in ("resources_used.ncpus", "total_execution_slots"):
        value = _int_value(attrs.get(key))
        if value:
            return value
    vnode = attrs.get("exec_vnode")
    if vnode:
        total = _vnode_ncpus(vnode)
        if total:
            return total
    if exec_slots:
        return exec_slots
    value = _int_value(attrs.get("Resource_List.ncpus"))
    if value:
        return value
    select = attrs.get("Resource_List.select")
    if select:
        total_sel = _select_sum(select, "ncpus")
        if total_sel:
            return total_sel
    nodes = attrs.get("Resource_List.nodes")
    if nodes:
        total_nodes = 0
        for count, resources in _spec_parts(nodes):
            total_nodes += count * (_int_value(resources.get("ppn")) or 1)
        if total_nodes:
            return total_nodes
    return 1


def _nodes(attrs: dict[str, str], exec_hosts: list[str]) -> int:
    value = _int_value(attrs.get("unique_node_count"))
    if value:
        return value
    if exec_hosts:
        return len(exec_hosts)
    nodect = attrs.get("Resource_List.nodect")
    if nodect:
        head = nodect.split(":", 1)[0]
        value = _int_value(head)
        if value:
            return value
    select = attrs.get("Resource_List.select")
    if select:
        chunks = sum(count for count, _ in _spec_parts(select))
        if chunks:
            return chunks
    nodes = attrs.get("Resource_List.nodes")
    if nodes:
        count_nodes = sum(count for count, _ in _spec_parts(nodes))
        if count_nodes:
            return count_nodes
    return 1


def _gpus(attrs: dict[str, str]) -> int:
    value = _int_value(attrs.get("Resource_List.ngpus"))
    if value is not None:
        return value
    select = attrs.get("Resource_List.select")
    if select:
        total = _select_sum(select, "ngpus")
        if total is not None:
            return total
    for key in ("Resource_List.nodes", "Resource_List.nodect"):
        spec = attrs.get(key)
        if spec:
            gpus = gpus_from_nodes_spec(spec)
            if gpus:
                return gpus
    return 0


def _req_mem(attrs: dict[str, str], cores: int) -> float | None:
    mem = attrs.get("Resource_List.mem")
    if mem:
        value = parse_memory_mb(mem)
        if value is not None:
            return value
    select = attrs.get("Resource_List.select")
    if select:
        total = 0.0
        found = False
        for count, resources in _spec_parts(select):
            chunk_mem = resources.get("mem")
            if chunk_mem:
                parsed = parse_memory_mb(chunk_mem)
                if parsed is not None:
                    total += count * parsed
                    found = True
        if found:
            return total
    pmem = attrs.get("Resource_List.pmem")
    if pmem:
        value = parse_memory_mb(pmem)
        if value is not None:
            return value * max(cores, 1)
    return None


def _duration(attrs: dict[str, str], key: str) -> float | None:
    raw = attrs.get(key)
    if raw is None or raw == "":
        return None
    return parse_duration(raw)


def _ended(
    stamp_text: str, raw_id: str, body: str, cluster: str, tz: tzinfo, line_no: int
) -> JobRecord | Skipped:
    ids = _split_job_id(raw_id)
    if ids is None:
        raise _Bad(f"job id {raw_id[:40]!r} is not a PBS job id")
    job_id, array_index = ids
    if array_index == -2:
        return Skipped(line_no, "PBS array parent record (its sub-jobs have their own E records)")
    attrs = parse_attributes(body)
    start_s = _epoch(attrs, "start")
    if not start_s:
        if "end" not in attrs and "Exit_status" not in attrs:
            # every E record, a never-started job's too, ends with end= and Exit_status=: this one was cut
            # short (a log copied while written, a truncated file), so it is refused rather than counted as
            # a job that never ran
            raise _Bad("E record cut short: no start=, end= or Exit_status= (is the line truncated?)")
        return Skipped(line_no, "never started (no start time in the E record)")
    end_s = _epoch(attrs, "end")
    if end_s:
        end = _utc(end_s)
    else:
        stamp = _stamp(stamp_text, tz)
        if stamp is None:
            raise _Bad("no end time: neither an end= value nor a readable line time stamp")
        end = stamp
    ctime = _epoch(attrs, "ctime") or _epoch(attrs, "qtime")
    etime = _epoch(attrs, "etime")

    exec_slots, exec_hosts = exec_host_slots(attrs.get("exec_host", ""))
    cores = _cores(attrs, exec_slots)
    nodes = _nodes(attrs, exec_hosts)

    used_mem = attrs.get("resources_used.mem")
    exit_raw = attrs.get("Exit_status")
    exit_status: int | None = None
    if exit_raw is not None and exit_raw != "":
        try:
            exit_status = int(exit_raw)
        except ValueError:
            raise _Bad(f"Exit_status: {exit_raw[:40]!r} is not an integer") from None
    walltime = _duration(attrs, "Resource_List.walltime")
    account = attrs.get("account") or attrs.get("project", "")
    return JobRecord(
        cluster=cluster,
        job_id=job_id,
        array_index=array_index,
        user=attrs.get("user", ""),
        group=attrs.get("group", ""),
        account=account,
        queue=attrs.get("queue", ""),
        qos="",
        submit=_utc(ctime) if ctime else None,
        eligible=_utc(etime) if etime else None,
        start=_utc(start_s),
        end=end,
        cores=cores,
        nodes=nodes,
        gpus=_gpus(attrs),
        req_mem_mb=_req_mem(attrs, cores),
        used_mem_mb=parse_memory_mb(used_mem) if used_mem else None,
        req_walltime_s=int(walltime) if walltime is not None else None,
        cpu_time_s=_duration(attrs, "resources_used.cput"),
        exit_status=exit_status,
        state="COMPLETED" if exit_status == 0 else ("FAILED" if exit_status is not None else ""),
        node_list=",".join(exec_hosts),
        name=attrs.get("jobname", ""),
        line=line_no,
    )


# An E record's attributes come in no fixed set or order, so one cut off by the file's end (a log copied while the
# server wrote it) can look whole: 'end=158573520' for 1585735200, 'resources_used.walltime=01:0'. Every line the
# server writes ends with a line break, so the last line of a file without one is refused, never stored.
CUT_AT_END = ("E record with no line break after it at the end of the file: cut short while the log was being "
              "written? Refused, as a cut value (end=, resources_used.walltime=) would be stored as if whole; if "
              "the record is whole, end the file with a line break and load it again")


def parse(
    lines: Iterable[bytes], *, cluster: str, tz: tzinfo = UTC
) -> Iterator[JobRecord | Skipped | Rejected]:
    """Parse PBS/TORQUE accounting lines; one JobRecord, Skipped or Rejected per record."""
    line_no = 0
    for raw in lines:
        line_no += 1
        text = raw.decode("utf-8", errors="replace") if isinstance(raw, (bytes, bytearray)) else str(raw)
        text = text.strip()
        if not text or text[0] == "#":
            continue
        parts = text.split(";", 3)
        if len(parts) < 3:
            yield Rejected(line_no, "not a PBS accounting record: expected 'time;type;job id;...'", text)
            continue
        kind = parts[1].strip()
        if kind != "E":
            if len(kind) == 1 and kind.isalpha():
                what = _RECORD_TYPES.get(kind, "unknown type")
                yield Skipped(line_no, f"PBS {kind} record ({what}), only E records are jobs")
            else:
                yield Rejected(line_no, f"record type {kind[:20]!r} is not a PBS record type", text)
            continue
        if not _STAMP.search(parts[0]):
            yield Rejected(line_no, f"time stamp {parts[0][:30]!r} is not MM/DD/YYYY HH:MM:SS", text)
            continue
        if not raw.endswith(b"\n" if isinstance(raw, (bytes, bytearray)) else "\n"):
            yield Rejected(line_no, CUT_AT_END, text)
            continue
        try:
            yield _ended(parts[0], parts[2], parts[3] if len(parts) > 3 else "", cluster, tz, line_no)
        except _Bad as exc:
            yield Rejected(line_no, str(exc), text)
        except (ValueError, OverflowError, OSError) as exc:  # pragma: no cover - safety net
            yield Rejected(line_no, f"unreadable E record: {exc}", text)

"""Streaming parser for (Sun/Son of/Univa/Altair) Grid Engine ``accounting`` files.

Pure core: imports nothing from Django.

Format (README §3.3): one colon-separated record per line, ``#`` header lines
allowed.  SGE 6.0 writes 43 fields (ending at maxvmem), SGE 6.1+ 45 (arid,
ar_submission_time), some builds 46 (one trailing field); Univa GE >= 8.2
writes submission/start/end in **milliseconds** and appends job_class,
qdel_info, maxrss, maxpss, submit_host, cwd, submit_cmd (52 fields) and, in
later releases, wallclock, ioops and ~20 vendor fields (74+).

The category (field 40, the job's submit options) may contain colons, e.g.
``-l h_rt=24:00:00``, which breaks a naive ``split(':')``.  We split on every
colon, read the 39 fixed fields from the left (none of them can hold a colon:
SGE forbids ``:`` in job names) and then find where the category ends: the
first split point after which the fields read ``iow`` (a decimal number with a
point, as SGE and UGE always print it), ``pe_taskid`` (non-empty), ``maxvmem``
(a number) and, when present, ``arid`` (an integer).  Everything in between is
the category, re-joined with colons.  The UGE trailer also contains free text
(submit_cmd, granted resources) with possible colons; we only read fields up
to maxrss, which precede it.

Mapping to :class:`JobRecord`:

* times: epoch seconds, or milliseconds when ``millis=True`` or when any of the
  three times exceeds 1e11 (auto-detected per line, so plain "sge" on a UGE
  file works); milliseconds are kept in the datetimes.
* ``cores`` = ``slots``.
* ``nodes`` = 1.  An accounting line is written by one execution host and does
  not list the hosts of a parallel job; the PE name alone does not say how the
  slots were spread.  A site that knows its PEs' fixed allocation rule can
  pass ``pe_slots_per_node={"mpi16": 16}``: nodes = ceil(slots / n) for jobs in
  that PE.
* Records with ``pe_taskid`` other than ``NONE`` are the per-task records of a
  tightly integrated parallel job (``accounting_summary FALSE``); the job
  itself is the master record, so these are Skipped, not counted twice.
* ``cpu_time_s`` = ``cpu`` (field 37).
* ``used_mem_mb``: UGE ``maxrss`` (bytes) when present and positive, else
  ``ru_maxrss`` (KB) when positive, else ``maxvmem`` (bytes) as an upper bound
  (old SGE leaves ru_maxrss at 0).  The ``mem`` column is an integral in
  GB x CPU-seconds, not a size, and is not used.
* ``req_walltime_s`` = ``h_rt`` from the category (seconds or ``h:m:s``).
* ``req_mem_mb`` = the first of ``m_mem_free``, ``mem_free``, ``h_vmem``,
  ``s_vmem``, ``virtual_free``, ``h_rss`` in the category, x slots (Grid
  Engine consumables are per slot); suffixes k=10^3, K=2^10, m=10^6, M=2^20,
  g=10^9, G=2^30, t=10^12, T=2^40.
* ``gpus`` = ``gpu=``/``gpus=``/``ngpus=`` from the category, not multiplied by
  slots (GPU complexes are usually per-job consumables; XDMoD also reports 1
  for ``-l gpu=1 -pe threads 16``).
* ``array_index`` = task_number unless it is 0 or ``undefined`` (-1).
* ``account`` = ``project`` (``-P``) unless ``NONE``, else ``account`` (``-A``,
  default ``sge``).
* ``state``: ``FAILED`` when ``failed`` != 0 (Grid Engine could not run or
  finish the job normally, e.g. 37 = killed at h_rt, 100 = killed by a
  signal) or when exit_status != 0, else ``COMPLETED``.  A failed job that
  did start is still a finished job and is yielded as a JobRecord; one that
  never started (start_time 0) is Skipped.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Iterator, Mapping
from datetime import UTC, datetime, timedelta, tzinfo

from .records import NO_ARRAY_INDEX, JobRecord, Rejected, Skipped

__all__ = ["parse", "split_record", "category_resources", "parse_sge_memory_mb"]

MIN_FIELDS = 43
_FIXED = 39  # qname .. io: fields 1..39, category is field 40 (index 39)

_NAMES = [
    "qname", "hostname", "group", "owner", "job_name", "job_number", "account", "priority",
    "submission_time", "start_time", "end_time", "failed", "exit_status", "ru_wallclock",
    "ru_utime", "ru_stime", "ru_maxrss", "ru_ixrss", "ru_ismrss", "ru_idrss", "ru_isrss",
    "ru_minflt", "ru_majflt", "ru_nswap", "ru_inblock", "ru_oublock", "ru_msgsnd", "ru_msgrcv",
    "ru_nsignals", "ru_nvcsw", "ru_nivcsw", "project", "department", "granted_pe", "slots",
    "task_number", "cpu", "mem", "io", "category", "iow", "pe_taskid", "maxvmem", "arid",
    "ar_submission_time", "job_class", "qdel_info", "maxrss", "maxpss", "submit_host", "cwd",
    "submit_cmd",
]

_IOW = re.compile(r"^\d+\.\d*$")
_NUMBER = re.compile(r"^-?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?$")
_INT = re.compile(r"^-?\d+$")
_RESOURCE = re.compile(r"(?:^|[\s,])([A-Za-z_][A-Za-z0-9_]*)=([^,\s]+)")
_MEMORY = re.compile(r"^(\d+(?:\.\d*)?|\.\d+)([kKmMgGtT]?)$")
_MEM_FACTORS_MB = {
    "": 1.0 / 1048576,
    "k": 1000.0 / 1048576,
    "K": 1.0 / 1024,
    "m": 1e6 / 1048576,
    "M": 1.0,
    "g": 1e9 / 1048576,
    "G": 1024.0,
    "t": 1e12 / 1048576,
    "T": 1048576.0,
}
_MEM_KEYS = ("m_mem_free", "mem_free", "h_vmem", "s_vmem", "virtual_free", "h_rss")
_GPU_KEYS = ("gpu", "gpus", "ngpus")
_MILLIS_THRESHOLD = 1e11
_MAX_SECONDS = 253402300799
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


class _Bad(Exception):
    """A field that cannot be read; message is the human-readable reason."""


def _tail_ok(fields: list[str], at: int) -> bool:
    """Do fields[at:] start like ``iow:pe_taskid:maxvmem[:arid]``?"""
    n = len(fields)
    if at + 3 > n:
        return False
    if not _IOW.match(fields[at]) or not fields[at + 1] or not _NUMBER.match(fields[at + 2]):
        return False
    return at + 3 == n or bool(_INT.match(fields[at + 3]))


def split_record(text: str) -> list[str] | None:
    """Split an accounting line into fields with the category re-joined.

    Returns the fields (index 39 = category, 40 = iow, ...) or None when no
    split point gives a plausible iow/pe_taskid/maxvmem tail.
    """
    fields = text.split(":")
    if len(fields) < MIN_FIELDS:
        return None
    if _tail_ok(fields, _FIXED + 1):
        return fields
    for end in range(_FIXED + 1, len(fields) - 3):
        if _tail_ok(fields, end + 1):
            return fields[:_FIXED] + [":".join(fields[_FIXED:end + 1])] + fields[end + 1:]
    return None


def category_resources(category: str) -> dict[str, str]:
    """``-l h_rt=36000,mem_free=1G -pe mpi 9`` -> {"h_rt": "36000", "mem_free": "1G"}.

    Only ``name=value`` pairs are taken (the first occurrence of each name).
    """
    out: dict[str, str] = {}
    for match in _RESOURCE.finditer(category):
        out.setdefault(match.group(1), match.group(2))
    return out


def parse_sge_memory_mb(value: str) -> float | None:
    """Grid Engine memory value (``1.000T``, ``1.024t``, ``1124M``, ``2G``, ``4096``) -> MB."""
    match = _MEMORY.match(value.strip())
    if not match:
        return None
    return float(match.group(1)) * _MEM_FACTORS_MB[match.group(2)]


def _duration(value: str) -> int | None:
    parts = value.strip().split(":")
    if len(parts) > 4 or not parts[-1] and len(parts) == 1:
        return None
    total = 0.0
    for part, factor in zip(reversed(parts), (1, 60, 3600, 86400), strict=False):
        try:
            number = float(part) if part else 0.0
        except ValueError:
            return None  # INFINITY and the like: no limit
        if not number >= 0 or number == float("inf"):
            return None
        total += number * factor
    return int(total)


def _number(fields: list[str], index: int) -> float:
    raw = fields[index]
    try:
        value = float(raw)
    except ValueError:
        value = float("nan")
    if value != value or abs(value) == float("inf"):
        raise _Bad(f"field {index + 1} ({_NAMES[index]}): {raw[:40]!r} is not a number")
    return value


def _int(fields: list[str], index: int) -> int:
    raw = fields[index]
    try:
        return int(raw)
    except ValueError:
        raise _Bad(f"field {index + 1} ({_NAMES[index]}): {raw[:40]!r} is not an integer") from None


def _epoch_raw(fields: list[str], index: int) -> int:
    raw = fields[index]
    try:
        value = int(raw)
    except ValueError:
        try:
            as_float = float(raw)
        except ValueError:
            as_float = float("nan")
        if as_float != as_float or abs(as_float) == float("inf"):
            raise _Bad(f"field {index + 1} ({_NAMES[index]}): {raw[:40]!r} is not an epoch time") from None
        value = int(as_float)
    if value < 0:
        raise _Bad(f"field {index + 1} ({_NAMES[index]}): {raw[:40]!r} is not an epoch time")
    return value


def _to_dt(value: int, millis: bool, index: int) -> datetime:
    seconds = value / 1000 if millis else value
    if seconds > _MAX_SECONDS:
        raise _Bad(f"field {index + 1} ({_NAMES[index]}): {value} is not an epoch time")
    if millis:
        return _EPOCH + timedelta(milliseconds=value)
    return _EPOCH + timedelta(seconds=value)


def _record(
    fields: list[str],
    cluster: str,
    millis: bool,
    line_no: int,
    pe_slots_per_node: Mapping[str, int] | None,
) -> JobRecord | Skipped:
    pe_taskid = fields[41]
    if pe_taskid != "NONE":
        return Skipped(
            line_no, "SGE parallel task record (pe_taskid set); the job's master record is the job"
        )
    job_number = fields[5]
    if not job_number.isdigit():
        raise _Bad(f"field 6 (job_number): {job_number[:40]!r} is not a job number")
    submit_raw = _epoch_raw(fields, 8)
    start_raw = _epoch_raw(fields, 9)
    end_raw = _epoch_raw(fields, 10)
    if not millis and max(submit_raw, start_raw, end_raw) > _MILLIS_THRESHOLD:
        millis = True
        # one time in milliseconds, another in seconds: a damaged record, not a UGE one (an end in 9999 read the
        # whole job as milliseconds: submitted 1970-01-20, run for 8 years)
        times = ((8, submit_raw), (9, start_raw), (10, end_raw))
        seconds = [(i, raw) for i, raw in times if 0 < raw <= _MILLIS_THRESHOLD]
        if seconds:
            i, raw = seconds[0]
            raise _Bad(f"field {i + 1} ({_NAMES[i]}): {raw} is in seconds while another time of the record is "
                       "in milliseconds")
    if start_raw == 0:
        return Skipped(line_no, "never started (start_time 0)")
    if end_raw == 0:
        raise _Bad("field 11 (end_time): 0, the job has a start time but no end time")
    failed = _int(fields, 11) if _INT.match(fields[11]) else int(_number(fields, 11))
    exit_status = _int(fields, 12) if _INT.match(fields[12]) else int(_number(fields, 12))
    slots = int(_number(fields, 34))
    task = fields[35]
    if task in ("undefined", "0", ""):
        array_index = NO_ARRAY_INDEX
    else:
        array_index = _int(fields, 35)
        if array_index <= 0:
            array_index = NO_ARRAY_INDEX
    cpu = _number(fields, 36)
    category = fields[39]
    resources = category_resources(category) if "=" in category else {}

    used_mem: float | None = None
    n = len(fields)
    if n >= 48 and _INT.match(fields[47]) and int(fields[47]) > 0:
        used_mem = int(fields[47]) / 1048576.0
    else:
        maxrss_kb = _number(fields, 16)
        if maxrss_kb > 0:
            used_mem = maxrss_kb / 1024.0
        else:
            maxvmem = _number(fields, 42)
            if maxvmem > 0:
                used_mem = maxvmem / 1048576.0

    req_mem: float | None = None
    for key in _MEM_KEYS:
        value = resources.get(key)
        if value is not None:
            per_slot = parse_sge_memory_mb(value)
            if per_slot is not None:
                req_mem = per_slot * max(slots, 1)
                break
    gpus = 0
    for key in _GPU_KEYS:
        value = resources.get(key)
        if value is not None and value.isdigit():
            gpus = int(value)
            break
    h_rt = resources.get("h_rt")
    pe = fields[33]
    nodes = 1
    if pe_slots_per_node and pe in pe_slots_per_node and pe_slots_per_node[pe] > 0:
        nodes = max(1, math.ceil(slots / pe_slots_per_node[pe]))
    project = fields[31]
    submit = _to_dt(submit_raw, millis, 8) if submit_raw else None
    return JobRecord(
        cluster=cluster,
        job_id=job_number,
        array_index=array_index,
        user=fields[3],
        group=fields[2],
        account=project if project not in ("NONE", "") else fields[6],
        queue=fields[0],
        qos="",
        submit=submit,
        eligible=None,
        start=_to_dt(start_raw, millis, 9),
        end=_to_dt(end_raw, millis, 10),
        cores=max(slots, 0),
        nodes=nodes,
        gpus=gpus,
        req_mem_mb=req_mem,
        used_mem_mb=used_mem,
        req_walltime_s=_duration(h_rt) if h_rt else None,
        cpu_time_s=cpu if cpu >= 0 else None,
        exit_status=exit_status,
        state="FAILED" if failed != 0 or exit_status != 0 else "COMPLETED",
        node_list=fields[1],
        name=fields[4],
        line=line_no,
    )


def parse(
    lines: Iterable[bytes],
    *,
    cluster: str,
    tz: tzinfo = UTC,
    millis: bool = False,
    pe_slots_per_node: Mapping[str, int] | None = None,
) -> Iterator[JobRecord | Skipped | Rejected]:
    """Parse SGE/UGE accounting lines; one JobRecord, Skipped or Rejected per record.

    ``millis=True`` reads the three time fields as milliseconds (UGE >= 8.2);
    without it milliseconds are still detected per line.  ``tz`` is accepted
    for the common signature; the times are epoch values.
    """
    del tz
    line_no = 0
    for raw in lines:
        line_no += 1
        text = raw.decode("utf-8", errors="replace") if isinstance(raw, (bytes, bytearray)) else str(raw)
        text = text.strip()
        if not text or text[0] == "#":
            continue
        count = text.count(":") + 1
        if count < MIN_FIELDS:
            yield Rejected(
                line_no,
                f"{count} colon-separated fields; an SGE accounting record has at least {MIN_FIELDS}",
                text,
            )
            continue
        fields = split_record(text)
        if fields is None:
            yield Rejected(
                line_no,
                "no iow:pe_taskid:maxvmem sequence after the category (field 40); "
                "not an SGE accounting record",
                text,
            )
            continue
        try:
            yield _record(fields, cluster, millis, line_no, pe_slots_per_node)
        except _Bad as exc:
            yield Rejected(line_no, str(exc), text)
        except (ValueError, OverflowError, OSError) as exc:  # pragma: no cover - safety net
            yield Rejected(line_no, f"unreadable accounting record: {exc}", text)

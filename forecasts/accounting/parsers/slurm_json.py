"""Streaming parser for ``sacct --json`` output (pure core, no Django).

The document is ``{"meta": ..., "errors": [...], "jobs": [{...}, ...]}`` (key order
varies by version).  It is read incrementally: top-level values other than
``jobs`` are decoded and dropped, and each element of ``jobs`` is decoded on its
own, so a multi-gigabyte export never has to be held in memory.  A bare JSON
array of job objects is accepted too.

Schemas handled (README §3.1 c, SARC files):
* 21.08 / 22.05 (dbv0.0.37/38): times as plain ints, ``state.current`` a string,
  ``time.limit`` minutes as an int, ``array.task_id`` an int or null.
* 23.02 (v0.0.39): ``{"set": bool, "infinite": bool, "number": n}`` for limits,
  task ids and priorities; times still ints.
* 23.11+ (v0.0.40+): ``state.current`` a list (``["RUNNING"]``), ``exit_code``
  fields as set/number objects; later versions also wrap times.

``line`` in the output is the 1-based record number within ``jobs``.  Steps live
inside their job (``steps``) and are not separate records; they are used only
for CPU time and peak memory when the job itself lacks them.  Arrays: an
element (``array.job_id`` != 0 with a task id) becomes job_id = array job id,
array_index = task id; a not-yet-split range (``array.task`` = ``"1-3,7"``) is
expanded, every element one item.  State handling is the same as the text
parser (``forecasts.accounting.parsers.slurm``): REQUEUED / RUNNING / PENDING... -> Skipped.
"""

from __future__ import annotations

import codecs
import json
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime, tzinfo
from typing import Any

from forecasts.accounting.parsers.records import NO_ARRAY_INDEX, JobRecord, ParsedItem, Rejected, Skipped
from forecasts.accounting.parsers.slurm_fields import (
    SKIP_NEVER_RAN,
    FieldError,
    expand_ranges,
    gpus_from_gres,
    state_kind,
)

_WS = " \t\r\n"
# One job's JSON (its steps included) is far below this; a value that grows past it without ending is a
# damaged file or a decompression bomb, and is refused instead of being held whole in memory.
MAX_VALUE_CHARS = 64 * 1024 * 1024
_BYTES_PER_MB = 1024 * 1024


class _JSONStreamError(ValueError):
    pass


class _Buffer:
    """Text pulled lazily from byte lines, with amortised-linear incremental decoding."""

    def __init__(self, lines: Iterable[bytes]) -> None:
        self._it = iter(lines)
        self._dec = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self.buf = ""
        self.pos = 0
        self.eof = False

    def _more(self) -> bool:
        """Append at least one more line; False at end of input."""
        if self.eof:
            return False
        for raw in self._it:
            is_bytes = isinstance(raw, (bytes, bytearray, memoryview))
            chunk = self._dec.decode(bytes(raw)) if is_bytes else str(raw)
            if chunk:
                if self.pos > 1 << 16:
                    self.buf = self.buf[self.pos :]
                    self.pos = 0
                self.buf += chunk
                return True
        self.buf += self._dec.decode(b"", final=True)
        self.eof = True
        return False

    def peek(self) -> str:
        """The next non-whitespace character ("" at end of input), without consuming it."""
        while True:
            buf = self.buf
            n = len(buf)
            pos = self.pos
            while pos < n and buf[pos] in _WS:
                pos += 1
            self.pos = pos
            if pos < n:
                return buf[pos]
            if not self._more():
                return ""

    def expect(self, chars: str) -> str:
        ch = self.peek()
        if not ch or ch not in chars:
            found = repr(ch) if ch else "end of input"
            raise _JSONStreamError(f"expected one of {chars!r} at character {self.pos}, found {found}")
        self.pos += 1
        return ch

    def value(self, decoder: json.JSONDecoder) -> Any:
        """Decode one JSON value at the current position, reading more input as needed.

        A failed attempt is retried only once the unread text has doubled, so a large
        value spread over many lines is decoded in amortised linear time.
        """
        if not self.peek():
            raise _JSONStreamError("unexpected end of input")
        min_len = 0
        while True:
            remaining = len(self.buf) - self.pos
            if remaining >= min_len or self.eof:
                try:
                    obj, end = decoder.raw_decode(self.buf, self.pos)
                except json.JSONDecodeError as exc:
                    if self.eof:
                        raise _JSONStreamError(f"invalid JSON: {exc.msg} at character {exc.pos}") from None
                    min_len = 2 * remaining + 1
                else:
                    # objects, arrays and strings end themselves; a number or literal that
                    # touches the end of the buffer may continue on the next line
                    if end < len(self.buf) or self.eof or self.buf[self.pos] in "{[\"":
                        self.pos = end
                        return obj
                    min_len = remaining + 1
            if remaining > MAX_VALUE_CHARS:
                raise _JSONStreamError(f"a JSON value at character {self.pos} is longer than "
                                       f"{MAX_VALUE_CHARS // 1024**2} MB without ending")
            self._more()


def parse(lines: Iterable[bytes], *, cluster: str, tz: tzinfo = UTC) -> Iterator[ParsedItem]:
    """Parse a ``sacct --json`` document into JobRecord / Skipped / Rejected items.

    ``tz`` is unused (JSON times are epoch seconds) and accepted for the common signature.
    """
    buf = _Buffer(lines)
    decoder = json.JSONDecoder()
    record = 0
    try:
        first = buf.peek()
        if not first:
            return
        if first == "[":
            buf.pos += 1
            for job, n in _array_items(buf, decoder, record):
                record = n
                yield from _job_items(job, n, cluster)
            return
        buf.expect("{")
        if buf.peek() == "}":
            return
        while True:
            key = buf.value(decoder)
            if not isinstance(key, str):
                raise _JSONStreamError(f"expected an object key at character {buf.pos}")
            buf.expect(":")
            if key == "jobs" and buf.peek() == "[":
                buf.pos += 1
                for job, n in _array_items(buf, decoder, record):
                    record = n
                    yield from _job_items(job, n, cluster)
            else:
                buf.value(decoder)
            if buf.expect(",}") == "}":
                break
    except _JSONStreamError as exc:
        yield Rejected(record + 1, f"{exc}; the rest of the document is not read", "")


def _array_items(buf: _Buffer, decoder: json.JSONDecoder, record: int) -> Iterator[tuple[Any, int]]:
    if buf.peek() == "]":
        buf.pos += 1
        return
    while True:
        record += 1
        yield buf.value(decoder), record
        if buf.expect(",]") == "]":
            return


# ---------------------------------------------------------------------------- one job


def _obj(v: Any) -> dict[str, Any]:
    return v if isinstance(v, dict) else {}


def _list(v: Any) -> list[Any]:
    return v if isinstance(v, list) else []


def _num(v: Any) -> Any:
    """Unwrap ``{"set": .., "infinite": .., "number": n}``; unset / infinite -> None."""
    if isinstance(v, dict):
        if v.get("set") is False or v.get("infinite") is True:
            return None
        return v.get("number")
    return v


def _int(v: Any, what: str) -> int | None:
    v = _num(v)
    if v is None or v == "":
        return None
    if isinstance(v, bool):
        raise FieldError(f"{what}: {v!r} is not a number")
    try:
        return int(v)
    except (TypeError, ValueError, OverflowError):  # OverflowError: an infinity (1e309 in the JSON)
        raise FieldError(f"{what}: {v!r} is not a number") from None


def _time(v: Any, what: str) -> datetime | None:
    n = _int(v, what)
    if not n:  # 0 = unset
        return None
    try:
        return datetime.fromtimestamp(n, UTC)
    except (OverflowError, OSError, ValueError):
        raise FieldError(f"{what}: {n!r} is not a time") from None


def _tres_list(tres: Any, key: str) -> list[dict[str, Any]]:
    if not isinstance(tres, dict):
        return []
    items = tres.get(key)
    return [t for t in items if isinstance(t, dict)] if isinstance(items, list) else []


def _tres_count(items: list[dict[str, Any]], kind: str) -> int | None:
    for t in items:
        if t.get("type") == kind and not t.get("name"):
            return _int(t.get("count"), f"tres {kind}")
    return None


def _tres_gpus(items: list[dict[str, Any]]) -> int:
    generic = None
    typed = 0
    for t in items:
        if t.get("type") != "gres":
            continue
        name = str(t.get("name") or "")
        count = _int(t.get("count"), "tres gres") or 0
        if name == "gpu":
            generic = (generic or 0) + count
        elif name.startswith("gpu:"):
            typed += count
    return generic if generic is not None else typed


def _state(job: dict[str, Any]) -> str:
    st = job.get("state")
    if isinstance(st, dict):
        st = st.get("current")
    if isinstance(st, list):
        st = st[0] if st else ""
    return str(st or "")


def _exit(v: Any) -> int | None:
    if not isinstance(v, dict):
        return _int(v, "exit_code")
    status = v.get("status")
    if isinstance(status, list):
        status = status[0] if status else ""
    sig = v.get("signal")
    if isinstance(sig, dict):
        sig = sig.get("id", sig.get("signal_id"))
    sig_n = _int(sig, "exit_code.signal") if sig is not None else None
    if status == "SIGNALED" and sig_n:
        return 128 + sig_n
    return _int(v.get("return_code"), "exit_code.return_code")


def _cpu_seconds(t: Any) -> float | None:
    """``{"seconds": s, "microseconds": us}`` -> seconds (None when absent)."""
    if not isinstance(t, dict):
        return None
    s = _int(t.get("seconds"), "cpu seconds") or 0
    us = _int(t.get("microseconds"), "cpu microseconds") or 0
    return s + us / 1e6


def record_from_job(job: Any, *, cluster: str, line: int = 0) -> list[JobRecord]:
    """The JobRecord(s) for one job object, whatever its state (arrays expand to several).

    Raises FieldError (a ValueError) with a readable reason for malformed values.
    """
    if not isinstance(job, dict):
        raise FieldError(f"a job must be a JSON object, not {type(job).__name__}")
    jid = _int(job.get("job_id"), "job_id")
    if jid is None:
        raise FieldError("job_id is missing")
    job_id = str(jid)
    indexes: list[int] = [NO_ARRAY_INDEX]
    arr = _obj(job.get("array"))
    arr_job = _int(arr.get("job_id"), "array.job_id") if arr else None
    if arr_job:
        task_id = _int(arr.get("task_id"), "array.task_id")
        task = arr.get("task")
        if task_id is not None:
            job_id, indexes = str(arr_job), [task_id]
        elif isinstance(task, str) and task.strip():
            job_id, indexes = str(arr_job), expand_ranges(task.strip().strip("[]"))
    het = _obj(job.get("het"))
    het_id = _int(het.get("job_id"), "het.job_id") if het else None
    het_off = _int(het.get("job_offset"), "het.job_offset") if het else None
    if het_id and het_off is not None:
        job_id = f"{het_id}+{het_off}"

    t = _obj(job.get("time"))
    submit = _time(t.get("submission"), "time.submission")
    eligible = _time(t.get("eligible"), "time.eligible")
    start = _time(t.get("start"), "time.start")
    end = _time(t.get("end"), "time.end")
    if start is not None and end is not None and end < start:
        raise FieldError(f"time.end {t.get('end')!r} is before time.start {t.get('start')!r}")
    limit_min = _int(t.get("limit"), "time.limit")
    req_wall = limit_min * 60 if limit_min is not None and limit_min >= 0 else None

    tres = job.get("tres")
    alloc = _tres_list(tres, "allocated")
    req = _tres_list(tres, "requested")
    required = _obj(job.get("required"))
    cores = _tres_count(alloc, "cpu")
    if cores is None:
        cores = _int(required.get("CPUs"), "required.CPUs") or 0
    nodes = _tres_count(alloc, "node")
    if nodes is None:
        nodes = _int(job.get("allocation_nodes"), "allocation_nodes") or 0
    gpus = _tres_gpus(alloc)
    if not gpus and isinstance(job.get("used_gres"), str):
        gpus = gpus_from_gres(job["used_gres"])
    req_mem_mb: float | None = None
    mem = _tres_count(req, "mem")
    if mem:
        req_mem_mb = float(mem)  # TRES mem is in MB
    else:
        per_node = _int(required.get("memory_per_node"), "required.memory_per_node")
        per_cpu = _int(required.get("memory_per_cpu"), "required.memory_per_cpu")
        if per_node:
            req_mem_mb = float(per_node * max(nodes, 1))
        elif per_cpu:
            req_mem_mb = float(per_cpu * max(cores, 1))
        elif _int(required.get("memory"), "required.memory"):
            req_mem_mb = float(_int(required.get("memory"), "required.memory") or 0)

    cpu_time_s = _cpu_seconds(t.get("total"))
    used_mem_mb: float | None = None
    steps = _list(job.get("steps"))
    if steps:
        step_cpu = 0.0
        peak = 0
        for step in steps:
            if not isinstance(step, dict):
                continue
            st_time = _obj(step.get("time"))
            step_cpu += _cpu_seconds(st_time.get("total")) or 0.0
            st_tres = _obj(step.get("tres"))
            st_req = _obj(st_tres.get("requested"))
            for item in st_req.get("max", []) if isinstance(st_req.get("max"), list) else []:
                if isinstance(item, dict) and item.get("type") == "mem":
                    peak = max(peak, _int(item.get("count"), "step tres mem") or 0)
        if not cpu_time_s and step_cpu:
            cpu_time_s = step_cpu
        if peak:
            used_mem_mb = peak / _BYTES_PER_MB  # step TRES usage is in bytes
    if not cpu_time_s:
        cpu_time_s = None

    assoc = _obj(job.get("association"))
    state, _kind = state_kind(_state(job))
    cl = cluster or str(job.get("cluster") or assoc.get("cluster") or "")
    user = str(job.get("user") or assoc.get("user") or "")
    common = (
        user,
        str(job.get("group") or ""),
        str(job.get("account") or assoc.get("account") or ""),
        str(job.get("partition") or ""),
        str(job.get("qos") or ""),
    )
    node_list = str(job.get("nodes") or "")
    name = str(job.get("name") or "")
    exit_status = _exit(job.get("exit_code"))
    return [
        JobRecord(
            cl, job_id, idx, *common, submit, eligible, start, end, cores, nodes, gpus, req_mem_mb,
            used_mem_mb, req_wall, cpu_time_s, exit_status, state, node_list, name, line,
        )  # fmt: skip
        for idx in indexes
    ]


def array_size(job: Any) -> int:
    """How many records a job object stands for: the size of an unsplit array range, else 1."""
    try:
        arr = job.get("array") if isinstance(job, dict) else None
        if not isinstance(arr, dict) or not _int(arr.get("job_id"), "array.job_id"):
            return 1
        task = arr.get("task")
        if _int(arr.get("task_id"), "array.task_id") is None and isinstance(task, str) and task.strip():
            return len(expand_ranges(task.strip().strip("[]")))
    except (ValueError, TypeError, AttributeError):
        pass
    return 1


def _job_items(job: Any, record: int, cluster: str) -> list[ParsedItem]:
    """Exactly one item per job (per array element)."""
    try:
        recs = record_from_job(job, cluster=cluster, line=record)
    except (FieldError, ValueError, TypeError, KeyError, AttributeError, OverflowError) as exc:
        raw = json.dumps(job, default=str)[:2000] if isinstance(job, (dict, list)) else repr(job)[:2000]
        return [Rejected(record, f"job {record}: {exc}", raw) for _ in range(array_size(job))]
    state_raw = _state(job)
    state, kind = state_kind(state_raw)
    out: list[ParsedItem] = []
    for rec in recs:
        if kind == "unknown":
            out.append(Skipped(record, f"unknown state: {state or '(none)'}"))
        elif kind == "not_ended" or rec.end is None:
            out.append(Skipped(record, f"not ended: {state or 'no end time'}"))
        elif rec.node_list == "None assigned" or (not rec.node_list and rec.start is None):
            out.append(Skipped(record, SKIP_NEVER_RAN))
        else:
            out.append(rec)
    return out

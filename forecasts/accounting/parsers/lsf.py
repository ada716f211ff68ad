"""Streaming parser for IBM Spectrum LSF ``lsb.acct`` files (JOB_FINISH records).

Pure core: imports nothing from Django.

Format (README §3.4): one record per line, space-separated tokens, strings in
double quotes with ``""`` standing for a literal quote.  The record is
variable-length: ``numAskedHosts`` and ``numExHosts`` are followed by that many
host names, ``submitEXT`` by that many key/value pairs and ``numHostRusage`` by
that many host-usage entries.  Versions 5.1 and 7.06 write shorter records
(5.1 ends at rsvId just after maxRMem/maxRSwap, 7.06 at submitEXT Num), so
every field after ``maxRMem`` is optional.

Mapping to :class:`JobRecord` (decisions, with the reason):

* ``end`` = Event Time (field 3): the time the job finished; the recorded
  ``runTime`` of 9.x records equals ``event_time - startTime``.
* ``cores`` = ``numProcessors`` (falling back to ``maxNumProcessors`` when it is
  not positive); ``nodes`` = number of distinct hosts in ``execHosts`` whether
  the list is written ``16*host1201-ib`` or one entry per slot.
* ``cpu_time_s`` = ``ru_utime + ru_stime`` (negative values, LSF's "unknown",
  count as 0; both negative gives ``None``).
* ``used_mem_mb`` = ``maxRMem`` (KB) / 1024; ``req_mem_mb`` is not recorded in a
  usable form (it lives inside the resReq string) and is left ``None``.
* ``req_walltime_s``: the documented order after the host-usage list is
  options3 / runLimit / avgMem, but both 9.11 samples show the run limit
  *first* (``43200 0 8688640`` for ``#BSUB -W 12:00``, ``-1 0 441780`` for a job
  without -W) and each host-usage entry has 6 tokens, not the documented 5.  We
  therefore read the first of the three integers after the host-usage list as
  the run limit, and only when the host-usage entries line up (every entry
  starts with a non-numeric host name and the three tokens are integers);
  ``-1``/``0`` mean "no limit" -> ``None``.
* ``exit_status``: ``exitStatus`` is a wait(2) status; we report the exit code
  (``status >> 8``) or ``128 + signal`` when the job was killed by a signal.
* ``state``: ``DONE`` when jStatus has the DONE bit (64), ``EXIT`` when it has
  the EXIT bit (32), else ``STATUS_<n>``.
* ``array_index`` = ``idx`` when positive, else -1.
* ``account`` = projectName; ``group`` is not in lsb.acct (``""``).
* ``eligible`` = ``beginTime`` (the ``bsub -b`` time) when set, else submitTime.
* Records with ``startTime`` 0 never ran -> :class:`Skipped`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime, tzinfo

from .records import NO_ARRAY_INDEX, JobRecord, Rejected, Skipped

__all__ = ["parse", "tokenize"]

_NUMERIC = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$")
_INTEGER = re.compile(r"-?\d+$")

# 0-based indices of the fixed head of the record (before the host lists).
_EVENT, _VERSION, _EVENT_TIME, _JOB_ID = 0, 1, 2, 3
_NUM_PROCS, _SUBMIT, _BEGIN, _START = 6, 7, 8, 10
_USER, _QUEUE = 11, 12
_NUM_ASKED = 22

# Offsets from the jStatus token (which follows the execHosts list).
_O_JOB_NAME = 2
_O_UTIME = 4
_O_STIME = 5
_O_PROJECT = 24
_O_EXIT = 25
_O_MAX_PROCS = 26
_O_IDX = 29
_O_MAX_RMEM = 30
_O_SUBMIT_EXT = 53
_MIN_AFTER_STATUS = _O_MAX_RMEM + 1  # a record must reach maxRMem (all versions do)

_MAX_FIELDS_SHOWN = 80


class _Bad(Exception):
    """A field that cannot be read; message is the human-readable reason."""


def tokenize(text: str) -> list[str]:
    """Split one lsb.acct line into tokens (quotes removed, ``""`` -> ``"``).

    Splitting on ``"`` alternates outside / inside segments; outside segments
    are split on whitespace, an empty outside segment between two inside
    segments is a doubled quote inside one string.  A bare token touching a
    quote ends there, so a hand-edited ``0""`` gives ``0`` and ``""``.
    Raises ValueError for an unterminated quoted string.
    """
    parts = text.split('"')
    if not len(parts) & 1:
        raise ValueError("unterminated quoted string (odd number of double quotes)")
    if len(parts) == 1:
        return text.split()
    if "\x00" not in text:
        # Fast path, all in C: mark each quoted string with NUL, split on whitespace,
        # then put the strings back.  A NUL glued to anything means "" inside a
        # string or a bare token touching a quote: use the exact loop below.
        joined = "\x00".join(parts[0::2])
        marked = joined.split()
        if joined.count("\x00") == marked.count("\x00"):
            strings = iter(parts[1::2])
            return [next(strings) if tok == "\x00" else tok for tok in marked]
    tokens: list[str] = []
    append = tokens.append
    last = len(parts) - 1
    pending: str | None = None
    inside = False
    for i, seg in enumerate(parts):
        if inside:
            pending = seg if pending is None else pending + '"' + seg
        elif seg or i == 0 or i == last:
            if pending is not None:
                append(pending)
                pending = None
            if seg:
                tokens.extend(seg.split())
        inside = not inside
    if pending is not None:
        append(pending)
    return tokens


def _field_name(index: int, status_at: int | None) -> str:
    head = [
        "event type", "version", "eventTime", "jobId", "userId", "options", "numProcessors",
        "submitTime", "beginTime", "termTime", "startTime", "userName", "queue", "resReq",
        "dependCond", "preExecCmd", "fromHost", "cwd", "inFile", "outFile", "errFile", "jobFile",
        "numAskedHosts",
    ]
    if index < len(head):
        return head[index]
    if status_at is not None and index >= status_at:
        tail = {
            0: "jStatus", 1: "hostFactor", 2: "jobName", 3: "command", 4: "ru_utime", 5: "ru_stime",
            23: "mailUser", 24: "projectName", 25: "exitStatus", 26: "maxNumProcessors", 29: "idx",
            30: "maxRMem", 31: "maxRSwap", 53: "submitEXT Num",
        }
        return tail.get(index - status_at, "field")
    return "host list"


def _int(tokens: list[str], index: int, status_at: int | None = None) -> int:
    try:
        return int(tokens[index])
    except ValueError:
        try:
            value = float(tokens[index])
        except ValueError:
            value = float("nan")
        if value == value and abs(value) != float("inf") and value == int(value):
            return int(value)
        name = _field_name(index, status_at)
        raise _Bad(f"field {index + 1} ({name}): {tokens[index][:40]!r} is not an integer") from None


def _float(tokens: list[str], index: int, status_at: int | None) -> float:
    try:
        value = float(tokens[index])
    except ValueError:
        value = float("nan")
    if value != value or abs(value) == float("inf"):
        name = _field_name(index, status_at)
        raise _Bad(f"field {index + 1} ({name}): {tokens[index][:40]!r} is not a number")
    return value


_MAX_EPOCH = 253402300799  # 9999-12-31T23:59:59Z


def _epoch(tokens: list[str], index: int) -> int:
    raw = tokens[index]
    try:
        value = int(raw)
    except ValueError:
        name = _field_name(index, None)
        raise _Bad(f"field {index + 1} ({name}): {raw[:40]!r} is not an epoch time") from None
    if value < 0 or value > _MAX_EPOCH:
        name = _field_name(index, None)
        raise _Bad(f"field {index + 1} ({name}): {raw[:40]!r} is not an epoch time")
    return value


def _utc(seconds: int) -> datetime:
    return datetime.fromtimestamp(seconds, UTC)


def _host_name(entry: str) -> str:
    """``16*host1201-ib`` -> ``host1201-ib``; ``host1`` -> ``host1``."""
    star = entry.find("*")
    if star > 0 and entry[:star].isdigit():
        return entry[star + 1:]
    return entry


def _is_number(token: str) -> bool:
    return _NUMERIC.match(token) is not None


def _is_int(token: str) -> bool:
    return _INTEGER.match(token) is not None


def _run_limit(tokens: list[str], status_at: int) -> int | None:
    """The run limit (seconds) from after the host-usage list, where identifiable."""
    pos = status_at + _O_SUBMIT_EXT
    if pos >= len(tokens) or not _is_int(tokens[pos]):
        return None
    n_ext = int(tokens[pos])
    if n_ext < 0:
        return None
    pos += 1 + 2 * n_ext
    if pos >= len(tokens) or not _is_int(tokens[pos]):
        return None
    n_rusage = int(tokens[pos])
    if n_rusage < 0:
        return None
    pos += 1
    for width in (6, 5, 7, 4):  # 6 seen in 9.11 data, 5 documented
        end = pos + n_rusage * width
        if end + 3 > len(tokens):
            continue
        if any(_is_number(tokens[pos + i * width]) for i in range(n_rusage)):
            continue
        if not (_is_int(tokens[end]) and _is_int(tokens[end + 1]) and _is_int(tokens[end + 2])):
            continue
        limit = int(tokens[end])
        return limit if limit > 0 else None
    return None


def _exit_code(status: int) -> int:
    if status < 0:
        return status
    signal = status & 0x7F
    if signal and signal != 0x7F:
        return 128 + signal
    return (status >> 8) & 0xFF if status > 0xFF else status


def _state(j_status: int) -> str:
    if j_status & 64:
        return "DONE"
    if j_status & 32:
        return "EXIT"
    return f"STATUS_{j_status}"


def _event_type(text: str) -> str:
    """The record's event type ("JOB_FINISH", "JOB_RESIZE", ...), or "" when the line does not start
    with one: lsb.acct writes it in double quotes, so an unquoted first word (a line of noise, another
    format) is no LSF event."""
    stripped = text.lstrip()
    if stripped.startswith('"'):
        close = stripped.find('"', 1)
        return stripped[1:close] if close > 0 else ""
    return ""


def _record(tokens: list[str], cluster: str, line_no: int) -> JobRecord | Skipped:
    n = len(tokens)
    if n <= _NUM_ASKED:
        raise _Bad(f"record ends after {n} fields; a JOB_FINISH record has at least {_NUM_ASKED + 40}")
    n_asked = _int(tokens, _NUM_ASKED)
    if n_asked < 0:
        raise _Bad(f"field {_NUM_ASKED + 1} (numAskedHosts): {n_asked} is negative")
    ex_at = _NUM_ASKED + 1 + n_asked
    if ex_at >= n:
        raise _Bad(f"record ends inside the askedHosts list ({n_asked} hosts announced)")
    try:
        n_exec = int(tokens[ex_at])
    except ValueError:
        raise _Bad(f"field {ex_at + 1} (numExHosts): {tokens[ex_at][:40]!r} is not an integer") from None
    if n_exec < 0:
        raise _Bad(f"field {ex_at + 1} (numExHosts): {n_exec} is negative")
    status_at = ex_at + 1 + n_exec
    if status_at + _MIN_AFTER_STATUS > n:
        raise _Bad(
            f"record ends after {n} fields; with {n_asked} asked and {n_exec} execution hosts "
            f"a JOB_FINISH record needs at least {status_at + _MIN_AFTER_STATUS} (through maxRMem)"
        )
    start_s = _epoch(tokens, _START)
    if start_s == 0:
        return Skipped(line_no, "never started (startTime 0)")
    end_s = _epoch(tokens, _EVENT_TIME)
    submit_s = _epoch(tokens, _SUBMIT)
    begin_s = _epoch(tokens, _BEGIN)
    j_status = _int(tokens, status_at, status_at)

    raw_id = tokens[_JOB_ID]
    job_id = raw_id.split("[", 1)[0]
    if not job_id.isdigit():
        raise _Bad(f"field 4 (jobId): {raw_id[:40]!r} is not a job number")

    hosts: list[str] = []
    seen: set[str] = set()
    for entry in tokens[ex_at + 1:status_at]:
        host = _host_name(entry)
        if host not in seen:
            seen.add(host)
            hosts.append(host)

    cores = _int(tokens, _NUM_PROCS)
    if cores <= 0:
        cores = _int(tokens, status_at + _O_MAX_PROCS, status_at)
    cores = max(cores, 0)

    utime = _float(tokens, status_at + _O_UTIME, status_at)
    stime = _float(tokens, status_at + _O_STIME, status_at)
    cpu = None if utime < 0 and stime < 0 else max(utime, 0.0) + max(stime, 0.0)

    max_rmem = _float(tokens, status_at + _O_MAX_RMEM, status_at)
    idx = _int(tokens, status_at + _O_IDX, status_at)

    submit = _utc(submit_s) if submit_s > 0 else None
    return JobRecord(
        cluster=cluster,
        job_id=job_id,
        array_index=idx if idx > 0 else NO_ARRAY_INDEX,
        user=tokens[_USER],
        group="",
        account=tokens[status_at + _O_PROJECT],
        queue=tokens[_QUEUE],
        qos="",
        submit=submit,
        eligible=_utc(begin_s) if begin_s > 0 else submit,
        start=_utc(start_s),
        end=_utc(end_s),
        cores=cores,
        nodes=len(hosts),
        gpus=0,
        req_mem_mb=None,
        used_mem_mb=max_rmem / 1024.0 if max_rmem >= 0 else None,
        req_walltime_s=_run_limit(tokens, status_at),
        cpu_time_s=cpu,
        exit_status=_exit_code(_int(tokens, status_at + _O_EXIT, status_at)),
        state=_state(j_status),
        node_list=",".join(hosts),
        name=tokens[status_at + _O_JOB_NAME],
        line=line_no,
    )


def parse(
    lines: Iterable[bytes], *, cluster: str, tz: tzinfo = UTC
) -> Iterator[JobRecord | Skipped | Rejected]:
    """Parse lsb.acct lines; one JobRecord, Skipped or Rejected per record.

    ``tz`` is accepted for the common parser signature; lsb.acct times are epoch
    seconds, so it is not used.
    """
    del tz
    line_no = 0
    for raw in lines:
        line_no += 1
        text = raw.decode("utf-8", errors="replace") if isinstance(raw, (bytes, bytearray)) else str(raw)
        text = text.strip()
        if not text or text[0] == "#":
            continue
        if not text.startswith('"JOB_FINISH"'):
            event = _event_type(text)
            if len(event) < 3 or not event.replace("_", "").isalnum() or not event.isupper():
                yield Rejected(line_no, f"not an lsb.acct record: starts with {text[:30]!r}", text)
            else:
                yield Skipped(line_no, f"LSF {event} record, only JOB_FINISH records are jobs")
            continue
        try:
            tokens = tokenize(text)
        except ValueError as exc:
            yield Rejected(line_no, str(exc), text)
            continue
        try:
            yield _record(tokens, cluster, line_no)
        except _Bad as exc:
            yield Rejected(line_no, str(exc), text)
        except (ValueError, OverflowError, OSError, IndexError) as exc:  # pragma: no cover - safety net
            yield Rejected(line_no, f"unreadable JOB_FINISH record: {exc}", text)

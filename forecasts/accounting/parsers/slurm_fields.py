"""Sacct column tables and field-value parsers for the ``--parsable2`` reader (pure core, no Django).

The column layouts (XDMoD, APEL, the ``sacct --helpformat`` names a header is recognised by),
the ended / transient state sets, and the functions that turn one field's text into a value:
durations, memory sizes, TRES/GRES GPU counts, compressed host lists, array ranges, exit codes.
The units they assume are described in ``forecasts.accounting.parsers.slurm``'s docstring.
"""

from __future__ import annotations

import re

from forecasts.accounting.parsers.records import NO_ARRAY_INDEX

XDMOD_FIELDS: tuple[str, ...] = (
    "JobID", "JobIDRaw", "Cluster", "Partition", "QOS", "Account", "Group", "GID", "User", "UID",
    "Submit", "Eligible", "Start", "End", "Elapsed", "ExitCode", "State", "NNodes", "NCPUS",
    "ReqCPUS", "ReqMem", "ReqTRES", "AllocTRES", "Timelimit", "NodeList", "JobName",
)  # fmt: skip
APEL_FIELDS: tuple[str, ...] = (
    "JobID", "JobName", "User", "Group", "Start", "End", "Elapsed", "CPUTimeRAW", "Partition",
    "NCPUS", "NNodes", "NodeList", "MaxRSS", "MaxVMSize", "State",
)  # fmt: skip

# sacct --helpformat names (a header is recognised by its first field being one of these).
SACCT_FIELDS: tuple[str, ...] = XDMOD_FIELDS + (
    "Account", "AdminComment", "AllocCPUS", "AllocGRES", "AllocNodes", "AssocID", "AveCPU",
    "AveCPUFreq", "AveDiskRead", "AveDiskWrite", "AvePages", "AveRSS", "AveVMSize", "BlockID",
    "Comment", "Constraints", "ConsumedEnergy", "ConsumedEnergyRaw", "Container", "CPUTime",
    "CPUTimeRAW", "DBIndex", "DerivedExitCode", "ElapsedRaw", "EligibleRaw", "EndRaw", "Extra",
    "FailedNode", "Flags", "GRESUsed", "Layout", "Licenses", "MaxDiskRead", "MaxDiskReadNode",
    "MaxDiskReadTask", "MaxDiskWrite", "MaxDiskWriteNode", "MaxDiskWriteTask", "MaxPages",
    "MaxPagesNode", "MaxPagesTask", "MaxRSS", "MaxRSSNode", "MaxRSSTask", "MaxVMSize",
    "MaxVMSizeNode", "MaxVMSizeTask", "McsLabel", "MinCPU", "MinCPUNode", "MinCPUTask", "NTasks",
    "Planned", "PlannedCPU", "PlannedCPURAW", "Priority", "QOSRAW", "Reason", "ReqCPUFreq",
    "ReqCPUFreqGov", "ReqCPUFreqMax", "ReqCPUFreqMin", "ReqGRES", "ReqNodes", "Reservation",
    "ReservationId", "Reserved", "ResvCPU", "ResvCPURAW", "StartRaw", "SubmitLine", "SubmitRaw",
    "Suspended", "SystemComment", "SystemCPU", "TimelimitRaw", "TotalCPU", "TRESUsageInAve",
    "TRESUsageInMax", "TRESUsageOutAve", "TRESUsageOutMax", "UserCPU", "WCKey", "WCKeyID",
    "WorkDir", "JobIDRaw", "Cluster",
)  # fmt: skip
_CANONICAL = {name.lower(): name for name in SACCT_FIELDS}

ENDED_STATES = frozenset(
    {"BOOT_FAIL", "CANCELLED", "COMPLETED", "DEADLINE", "FAILED", "NODE_FAIL", "OUT_OF_MEMORY",
     "PREEMPTED", "TIMEOUT"}
)  # fmt: skip
# XDMoD's non-ended list (PENDING RUNNING REQUEUED RESIZING SUSPENDED) plus the other
# transient states sacct can print.
NOT_ENDED_STATES = frozenset(
    {"PENDING", "RUNNING", "REQUEUED", "RESIZING", "SUSPENDED", "COMPLETING", "CONFIGURING",
     "STOPPED", "SIGNALING", "STAGE_OUT", "REQUEUE_FED", "REQUEUE_HOLD", "RESV_DEL_HOLD",
     "SPECIAL_EXIT", "POWER_UP_NODE", "UPDATE_DB"}
)  # fmt: skip

SKIP_STEP = "job step"
SKIP_NEVER_RAN = "never ran (no nodes assigned)"
MAX_ARRAY_EXPANSION = 1_000_000
_PER_CPU_FLAG = 2**31  # MEM_PER_CPU bit leaked into old sacct output


class FieldError(ValueError):
    """A field value that cannot be understood; the message is the reason shown."""


# ---------------------------------------------------------------------------- values


def state_kind(raw: str) -> tuple[str, str]:
    """(normalised state, kind) with kind one of "ended", "not_ended", "unknown".

    ``CANCELLED by 380693`` -> CANCELLED; a trailing ``+`` (truncation mark) is dropped.
    """
    state = raw.strip().split(" ", 1)[0].rstrip("+").upper()
    if state in ENDED_STATES:
        return state, "ended"
    if state in NOT_ENDED_STATES:
        return state, "not_ended"
    return state, "unknown"


def parse_duration(text: str) -> float | None:
    """sacct durations ``[D-]HH:MM:SS``, ``MM:SS.mmm``, ``HH:MM:SS.mmm`` -> seconds.

    ``UNLIMITED``, ``Partition_Limit``, ``INVALID``, ``Unknown`` and empty -> None.
    A bare number is seconds.
    """
    s = text.strip()
    if not s or s[0].isalpha():
        if s.upper() in ("", "UNLIMITED", "PARTITION_LIMIT", "INVALID", "UNKNOWN", "NONE", "N/A"):
            return None
        raise FieldError(f"{text!r} is not a duration")
    days = 0
    has_days = "-" in s
    if has_days:
        d, _, s = s.partition("-")
        if not d.isdigit():
            raise FieldError(f"{text!r} is not a duration")
        days = int(d)
    parts = s.split(":")
    try:
        if has_days:  # D-HH, D-HH:MM, D-HH:MM:SS
            if len(parts) > 3:
                raise ValueError
            nums = [float(x) for x in parts] + [0.0] * (3 - len(parts))
            h, m, sec = nums
        elif len(parts) == 3:
            h, m, sec = float(parts[0]), float(parts[1]), float(parts[2])
        elif len(parts) == 2:
            h, m, sec = 0.0, float(parts[0]), float(parts[1])
        elif len(parts) == 1:
            h, m, sec = 0.0, 0.0, float(parts[0])
        else:
            raise ValueError
    except ValueError:
        raise FieldError(f"{text!r} is not a duration") from None
    if not (0 <= h < 1e7 and 0 <= m < 1e7 and 0 <= sec < 1e12):  # also rejects nan and inf
        raise FieldError(f"{text!r} is not a duration")
    return days * 86400 + h * 3600 + m * 60 + sec


_MEM_UNITS = {"": None, "K": 1.0 / 1024, "M": 1.0, "G": 1024.0, "T": 1024.0 * 1024, "P": 1024.0**3}
_MEM_RE = re.compile(r"^\s*([0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\s*([KMGTP]?)B?([nc]?)\s*$", re.IGNORECASE)


def parse_memory(text: str, default_unit: str = "M") -> tuple[float, str] | None:
    """``48000Mn`` -> (48000.0, "n"); ``1.40G`` -> (1433.6, ""); empty -> None.

    Returns MB and the scope suffix: "n" per node, "c" per CPU, "" total / as given.
    """
    s = text.strip()
    if not s or s in ("Unknown", "None", "N/A"):
        return None
    m = _MEM_RE.match(s)
    if m is None:
        raise FieldError(f"{text!r} is not a memory size")
    value = float(m.group(1))
    unit = m.group(2).upper() or default_unit
    scope = m.group(3).lower()
    factor = _MEM_UNITS[unit]
    assert factor is not None
    if scope == "n" and unit == "M" and value >= _PER_CPU_FLAG:
        value -= _PER_CPU_FLAG
        scope = "c"
    return value * factor, scope


_GPU_RE = re.compile(r"(?:^|,)gres/gpu(:[^=,]*)?=(\d+)")


def gpus_from_tres(tres: str) -> int:
    """GPUs in a TRES string (``gres/gpu=2``, ``gres/gpu:volta=2``).

    When both the generic ``gres/gpu=N`` and typed ``gres/gpu:type=N`` appear, the
    generic total is used (Slurm lists both); otherwise the typed counts are summed.
    """
    if "gpu" not in tres:
        return 0
    generic = 0
    typed = 0
    found_generic = False
    for kind, count in _GPU_RE.findall(tres):
        if kind:
            typed += int(count)
        else:
            generic += int(count)
            found_generic = True
    return generic if found_generic else typed


def tres_value(tres: str, key: str) -> str | None:
    for item in tres.split(","):
        k, _, v = item.partition("=")
        if k == key:
            return v
    return None


def gpus_from_gres(gres: str) -> int:
    """Old AllocGRES/ReqGRES strings: ``gpu:2``, ``gpu:tesla:2``, ``gpu:2(IDX:0-1)``."""
    total = 0
    for item in re.split(r",(?![^(]*\))", gres):
        item = item.split("(", 1)[0]
        if item.startswith("gpu"):
            last = item.rsplit(":", 1)[-1]
            if last.isdigit():
                total += int(last)
            elif item == "gpu":
                total += 1
    return total


def count_hosts(node_list: str) -> int:
    """Number of hosts in a compressed hostlist (``cpn-f13-03-[01-02],d13n[03,05,07-08]`` -> 6)."""
    s = node_list.strip()
    if not s or s == "None assigned":
        return 0
    total = 0
    depth = 0
    start = 0
    items: list[str] = []
    for i, ch in enumerate(s):
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        elif ch == "," and depth == 0:
            items.append(s[start:i])
            start = i + 1
    items.append(s[start:])
    for item in items:
        if not item:
            continue
        n = 1
        for group in re.findall(r"\[([^\]]*)\]", item):
            n *= len(expand_ranges(group, limit=MAX_ARRAY_EXPANSION))
        total += n
    return total


def expand_ranges(spec: str, *, limit: int = MAX_ARRAY_EXPANSION) -> list[int]:
    """``1-3,7,9-13:2%4`` -> [1, 2, 3, 7, 9, 11, 13] (``%`` throttle dropped, ``:`` step kept)."""
    out: list[int] = []
    spec = spec.split("%", 1)[0]
    for part in spec.split(","):
        part = part.strip()
        if not part:
            continue
        step = 1
        if ":" in part:
            part, _, step_s = part.partition(":")
            step = int(step_s)
            if step <= 0:
                raise FieldError(f"array step {step_s!r} is not positive")
        if "-" in part:
            a, _, b = part.partition("-")
            lo, hi = int(a), int(b)
            if hi < lo:
                raise FieldError(f"array range {part!r} runs backwards")
            if len(out) + (hi - lo) // step + 1 > limit:
                raise FieldError(f"array range {spec!r} has more than {limit} elements")
            out.extend(range(lo, hi + 1, step))
        else:
            out.append(int(part))
        if len(out) > limit:
            raise FieldError(f"array range {spec!r} has more than {limit} elements")
    if not out:
        raise FieldError(f"array range {spec!r} is empty")
    return out


def split_job_id(jid: str) -> tuple[str, list[int] | int]:
    """``123`` -> ("123", -1); ``123_5`` -> ("123", 5); ``123_[1-3]`` -> ("123", [1, 2, 3])."""
    if "_" not in jid:
        return jid, NO_ARRAY_INDEX
    base, _, idx = jid.partition("_")
    if not base:
        raise FieldError(f"{jid!r} is not a job id")
    if idx.startswith("["):
        inner = idx[1:].split("]", 1)[0]
        try:
            return base, expand_ranges(inner)
        except ValueError as exc:
            raise FieldError(f"{jid!r}: {exc}") from None
    try:
        value = int(idx)
    except ValueError:
        raise FieldError(f"{jid!r} has a non-numeric array index") from None
    if value < 0:
        raise FieldError(f"{jid!r} has a negative array index")
    return base, value


def _limit_seconds(text: str) -> int | None:
    seconds = parse_duration(text)
    return None if seconds is None else int(seconds)


def _exit_status(text: str) -> int | None:
    s = text.strip()
    if not s:
        return None
    code, _, sig = s.partition(":")
    try:
        c = int(code)
        g = int(sig) if sig else 0
    except ValueError:
        raise FieldError(f"{text!r} is not an exit code (code:signal)") from None
    return 128 + g if g else c

"""Streaming parser for Slurm ``sacct --parsable2`` output (pure core, no Django).

Layouts
-------
* With a header line (the first line's first field is a sacct column name such as
  ``JobID``): any order and any subset of sacct columns.  ``JobID`` (or
  ``JobIDRaw``) is required; a ``JobName`` column may contain ``|`` only when it is
  the last column.  A later line starting with ``JobID|`` (concatenated exports) is
  read as a new header.
* Without a header, the 26-column XDMoD layout (``XDMOD_FIELDS``, README §3.1 a).
  JobName is last and may contain ``|`` (split with a limit).
* Without a header, a first line of exactly 15 fields whose fields 4 and 5 are
  times is read in the APEL layout (``APEL_FIELDS``, README §3.1 b).

Field numbers in reasons are 0-based, as in README §3.1 (``field 13 (End)``).

What becomes what
-----------------
* steps (``123.batch``, ``123.0``, ``123.extern``, ``123_4.batch``) -> ``Skipped("job step")``
* array ranges ``123_[1-3,7%2]`` are expanded first; every element is one item.
* PENDING/RUNNING/REQUEUED/RESIZING/SUSPENDED (and the other transient Slurm
  states), or an End of ``Unknown`` -> ``Skipped("not ended: STATE")``.
  Note: with ``--duplicates``, a REQUEUED row is an earlier run that did hold
  resources; like XDMoD we do not count it.
* a state that is neither a known ended nor a known transient state (``FOO``) ->
  ``Skipped("unknown state: FOO")``, as XDMoD does ("Skipping job with unknown state").
* NodeList ``None assigned`` (cancelled before it started) ->
  ``Skipped("never ran (no nodes assigned)")``.  This is what makes the phillips
  reference figures come out (its 239 such rows carry a Start equal to End).
* End before Start, a malformed time/number/memory size -> ``Rejected``.

Units
-----
* ReqMem ``48000Mn`` is per node, ``3000Mc`` per CPU (Slurm < 21.08); a value
  without ``n``/``c`` is the job total.  ``req_mem_mb`` is the job total.  Old
  sacct versions print the per-CPU flag bit (2**31) as part of the number with an
  ``n`` suffix: ``2147486648Mn`` is really ``3000Mc`` (the phillips and mortorq
  ReqTRES confirm it: 8 CPUs x 3000 = ``mem=24000M``), so it is decoded as such.
  ``0`` ("all the memory of the node") is stored as None.
* MaxRSS/MaxVMSize ``438.50M``, ``1567524K``, ``1.40G``; a bare number is KB.
* ``cpu_time_s`` comes from TotalCPU (``[D-]HH:MM:SS``, ``MM:SS.mmm``) or
  UserCPU + SystemCPU.  CPUTimeRAW is allocated time (cores x elapsed), not CPU
  use, so it is validated but not stored, except that a CPUTimeRAW column holding
  ``HH:MM:SS``-style values is TotalCPU put there by the site (APEL layout).
* ``exit_status`` from ExitCode ``code:signal``: the code, or 128 + signal when a
  signal killed the job (shell convention).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from datetime import UTC, datetime, timedelta, timezone, tzinfo
from typing import Any

from forecasts.ingest.records import NO_ARRAY_INDEX, JobRecord, ParsedItem, Rejected, Skipped

UTC = UTC

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
_CACHE_LIMIT = 200_000
_TIME_CACHE_LIMIT = 20_000
_fromiso = datetime.fromisoformat
_PER_CPU_FLAG = 2**31  # MEM_PER_CPU bit leaked into old sacct output
_TIME_NONE = {"": None, "Unknown": None, "None": None, "unknown": None, "N/A": None}


_MISS: Any = object()  # cache-miss sentinel (cached values may be None)


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


class TimeParser:
    """Cached ``str -> UTC datetime | None`` for sacct times written in zone ``tz``.

    ``cache`` is exposed so the row loop can try a plain dict lookup first.  On a
    miss the UTC offset of the local hour is looked up once per hour and the time
    parsed as ``fromisoformat(s + "+00:00") - offset`` (``datetime.replace(tzinfo=)``
    costs ~1.5 us on CPython 3.11; this costs ~0.25 us).  Local times that do not
    exist or are ambiguous (DST changes) resolve as ``replace(tzinfo=tz)`` does (fold=0).
    """

    __slots__ = ("tz", "cache", "_offsets", "_zero", "is_utc")

    def __init__(self, tz: tzinfo) -> None:
        self.tz = tz
        self.cache: dict[str, datetime | None] = dict(_TIME_NONE)
        self._offsets: dict[str, timedelta] = {}
        self._zero = self.is_utc = tz is UTC or tz.utcoffset(None) == timedelta(0) and _is_fixed(tz)

    def __call__(self, s: str) -> datetime | None:
        try:
            return self.cache[s]
        except KeyError:
            return self.miss(s)

    def miss(self, s: str) -> datetime | None:
        """Parse and cache a time not in ``cache`` (raises FieldError when it is not a time)."""
        try:
            dt = _fromiso(s + "+00:00")  # the common naive YYYY-MM-DDTHH:MM:SS
        except ValueError:
            return self._slow(s)
        if not self._zero:
            off = self._offsets.get(s[:13])
            if off is None:
                off = self._offset(s)
            if off:
                dt -= off
        cache = self.cache
        if len(cache) > _TIME_CACHE_LIMIT:
            cache.clear()
            cache.update(_TIME_NONE)
        cache[s] = dt
        return dt

    def _offset(self, s: str) -> timedelta:
        key = s[:13]
        try:
            naive = datetime.fromisoformat(key + ":00:00")
        except ValueError:
            naive = datetime.fromisoformat(s)
        off = self.tz.utcoffset(naive) or timedelta(0)
        if len(self._offsets) > _TIME_CACHE_LIMIT:
            self._offsets.clear()
        self._offsets[key] = off
        return off

    def _slow(self, s: str) -> datetime | None:
        st = s.strip()
        if st in _TIME_NONE:
            return None
        try:
            dt = datetime.fromisoformat(st)
            if dt.tzinfo is None:
                dt = dt.replace(tzinfo=self.tz)
            dt = dt.astimezone(UTC)
        except (ValueError, OverflowError):
            raise FieldError(f"{s!r} is not a time") from None
        self.cache[s] = dt
        return dt


def _is_fixed(tz: tzinfo) -> bool:
    """True for zones without DST (timezone objects, zoneinfo "UTC"/"Etc/UTC")."""
    if isinstance(tz, timezone):
        return True
    return getattr(tz, "key", "") in ("UTC", "Etc/UTC", "Etc/GMT", "GMT", "Etc/Universal", "Zulu")


def _cache_get(cache: dict[str, Any], fn: Callable[[str], Any], s: str) -> Any:
    """Miss path of the per-column caches used in the row loop."""
    value = fn(s)
    if len(cache) > _CACHE_LIMIT:
        cache.clear()
    cache[s] = value
    return value


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


# ---------------------------------------------------------------------------- layout


class Layout:
    """Column positions for one header (or a headerless layout)."""

    __slots__ = ("names", "n", "split_limit", "index", "missing")

    def __init__(self, names: Sequence[str]) -> None:
        self.names = tuple(names)
        self.n = len(self.names)
        # the last column may contain '|' only if it is JobName
        self.split_limit = self.n - 1 if self.names and self.names[-1] == "JobName" else -1
        self.index: dict[str, int] = {}
        for i, name in enumerate(self.names):
            self.index.setdefault(name, i)
        self.missing = self.n  # position of the padding "" appended to every row

    def pos(self, *names: str) -> int:
        for name in names:
            if name in self.index:
                return self.index[name]
        return self.missing

    def has(self, name: str) -> bool:
        return name in self.index


def read_header(text: str) -> list[str] | None:
    """Column names if ``text`` is a sacct header line, else None."""
    fields = text.split("|")
    if fields and fields[-1] == "":
        fields.pop()  # --parsable (not parsable2) ends with '|'
    if not fields or fields[0].strip().lower() not in _CANONICAL:
        return None
    names = []
    for f in fields:
        key = f.strip().lower()
        names.append(_CANONICAL.get(key, f.strip()))
    return names


def _looks_apel(parts: list[str]) -> bool:
    if len(parts) != len(APEL_FIELDS):
        return False
    for s in (parts[4], parts[5]):
        if s in _TIME_NONE:
            continue
        try:
            datetime.fromisoformat(s)
        except ValueError:
            return False
    return True


# ---------------------------------------------------------------------------- parser


def parse(
    lines: Iterable[bytes],
    *,
    cluster: str,
    tz: tzinfo = UTC,
    fields: Sequence[str] | None = None,
) -> Iterator[ParsedItem]:
    """Parse sacct ``--parsable2`` lines into JobRecord / Skipped / Rejected items.

    ``fields`` forces a column layout for header-less input (e.g. ``APEL_FIELDS``);
    a header line at the top of the input still takes precedence.
    """
    ctx = _Context(cluster, TimeParser(tz))
    it = iter(lines)
    # find the first non-blank line to decide the layout
    first_text: str | None = None
    for raw in it:
        ctx.lineno += 1
        text = _decode(raw)
        if text and not text.isspace():
            first_text = text
            break
    if first_text is None:
        return
    names = read_header(first_text)
    pending: str | None
    if names is not None:
        layout = Layout(names)
        ctx.header_text = first_text
        pending = None
    else:
        if fields:
            layout = Layout(fields)
        else:
            layout = Layout(APEL_FIELDS if _looks_apel(first_text.split("|")) else XDMOD_FIELDS)
        pending = first_text
    next_layout: Layout | None = layout
    while next_layout is not None:
        next_layout = yield from _rows(next_layout, it, ctx, pending)
        pending = None


def _decode(raw: bytes | str) -> str:
    try:
        text = raw.decode("utf-8", "replace")  # type: ignore[union-attr]
    except AttributeError:  # already-decoded str lines
        text = str(raw)
    return text.rstrip("\r\n")


class _Context:
    """State shared across layout changes within one parse."""

    __slots__ = ("cluster", "parse_time", "lineno", "header_text", "caches")

    def __init__(self, cluster: str, parse_time: TimeParser) -> None:
        self.cluster = cluster
        self.parse_time = parse_time
        self.lineno = 0
        self.header_text = ""
        self.caches: dict[str, dict[str, Any]] = {
            "state": {}, "mem": {}, "gpus": {}, "limit": {}, "exit": {}, "int": {}, "ended": {}
        }  # fmt: skip


def _int_miss(cache: dict[str, int], s: str) -> int:
    value = int(s)
    if len(cache) > _CACHE_LIMIT:
        cache.clear()
    cache[s] = value
    return value


_HOT_COLUMNS = (
    "Partition", "QOS", "Account", "Group", "User", "Submit", "Eligible", "Start", "End", "ExitCode",
    "State", "NodeList", "JobName", "ReqMem", "AllocTRES", "Timelimit",
)  # fmt: skip
_EXTRA_COLUMNS = ("AllocGRES", "TimelimitRaw", "MaxRSS", "MaxVMSize", "TotalCPU", "UserCPU", "CPUTimeRAW")


def _rows(
    layout: Layout, it: Iterator[bytes], ctx: _Context, pending: str | None
) -> Generator[ParsedItem, None, Layout | None]:
    """Parse rows of one layout; return the next layout when a new header appears, None at EOF.

    Two paths give the same result.  ``row`` (built by ``_row_parser``) is the
    careful one: it handles every case and words every rejection.  The inline fast
    path below handles the common row (plain numeric JobID, ended state, well-formed
    ISO times, known column values) with dict lookups and no per-field bookkeeping;
    anything it does not expect, or any exception, sends the row to ``row``.
    """
    names = layout.names
    n_fields = layout.n
    split_limit = layout.split_limit
    miss = layout.missing
    is_xdmod = names == XDMOD_FIELDS
    cluster_arg = ctx.cluster
    header_text = ctx.header_text
    trailing_pipe = header_text.endswith("|")
    pos = layout.pos
    i_jid = pos("JobID", "JobIDRaw")
    i_cluster = pos("Cluster")
    i_part, i_qos, i_acct = pos("Partition"), pos("QOS"), pos("Account")
    i_group, i_user = pos("Group"), pos("User")
    i_submit, i_elig, i_start, i_end = pos("Submit"), pos("Eligible"), pos("Start"), pos("End")
    i_exit, i_state = pos("ExitCode"), pos("State")
    i_nnodes, i_ncpus = pos("NNodes", "AllocNodes"), pos("NCPUS", "AllocCPUS")
    i_reqmem, i_alloctres, i_limit = pos("ReqMem"), pos("AllocTRES"), pos("Timelimit")
    i_nodelist, i_name = pos("NodeList"), pos("JobName")
    pad = miss in (
        i_jid, i_cluster, i_part, i_qos, i_acct, i_group, i_user, i_submit, i_elig, i_start, i_end,
        i_exit, i_state, i_nnodes, i_ncpus, i_reqmem, i_alloctres, i_limit, i_nodelist, i_name,
    )  # fmt: skip
    fast = (
        i_jid != miss
        and i_nnodes != miss
        and i_ncpus != miss
        and all(layout.has(c) for c in _HOT_COLUMNS)
        and not any(layout.has(c) for c in _EXTRA_COLUMNS)
    )
    if not fast:
        pad = True  # the careful path may read any (missing) column
    row = _row_parser(layout, ctx)

    parse_time = ctx.parse_time
    tcache = parse_time.cache
    tget = tcache.get
    tmiss = parse_time.miss
    utc = parse_time.is_utc
    fromiso = _fromiso
    caches = ctx.caches
    mem_c: dict[str, tuple[float, str] | None] = caches["mem"]
    gpus_c: dict[str, int] = caches["gpus"]
    limit_c: dict[str, int | None] = caches["limit"]
    exit_c: dict[str, int | None] = caches["exit"]
    int_c: dict[str, int] = caches["int"]
    ended_c: dict[str, str] = caches["ended"]  # raw State text -> normalised, ended states only
    no_index = NO_ARRAY_INDEX
    m_ = _MISS
    lineno = ctx.lineno - (1 if pending is not None else 0)
    source: Iterable[bytes | str] = it if pending is None else itertools.chain((pending,), it)

    for raw in source:
        lineno += 1
        try:
            text = raw.decode("utf-8", "replace").rstrip("\r\n")  # type: ignore[union-attr]
        except AttributeError:
            text = str(raw).rstrip("\r\n")
        if trailing_pipe and text.endswith("|"):
            text = text[:-1]
        p = text.split("|", split_limit)
        if len(p) != n_fields:
            if not text or text.isspace():
                continue
            if text[:1] in "Jj" and (text == header_text or text[:6].lower() in ("jobid|", "jobidr")):
                new = read_header(text)
                if new is not None:
                    ctx.lineno = lineno
                    ctx.header_text = text
                    return Layout(new)
            if "|" not in text:
                reason = "no '|' separators: expected sacct --parsable2 output"
            elif is_xdmod:
                reason = f"expected 26 '|'-separated fields (XDMoD layout), got {len(p)}"
            else:
                reason = f"expected {n_fields} '|'-separated fields as in the header, got {len(p)}"
            yield Rejected(lineno, reason, text[:2000])
            continue
        if pad:
            p.append("")
        if not lineno & 0xFFF and len(tcache) > _TIME_CACHE_LIMIT:
            tcache.clear()
            tcache.update(_TIME_NONE)

        if fast:
            try:
                job_id = p[i_jid]
                state = ended_c.get(p[i_state])
                node_list = p[i_nodelist]
                if state is not None and job_id.isdigit() and node_list != "None assigned":
                    s = p[i_submit]
                    submit = tget(s, m_)
                    if submit is m_:
                        submit = fromiso(s + "+00:00") if utc else tmiss(s)
                        tcache[s] = submit
                    s2 = p[i_elig]
                    if s2 == s:
                        eligible = submit
                    else:
                        eligible = tget(s2, m_)
                        if eligible is m_:
                            eligible = fromiso(s2 + "+00:00") if utc else tmiss(s2)
                            tcache[s2] = eligible
                    s3 = p[i_start]
                    if s3 == s:
                        start = submit
                    elif s3 == s2:
                        start = eligible
                    else:
                        start = tget(s3, m_)
                        if start is m_:
                            start = fromiso(s3 + "+00:00") if utc else tmiss(s3)
                            tcache[s3] = start
                    s = p[i_end]
                    end = tget(s, m_)
                    if end is m_:
                        end = fromiso(s + "+00:00") if utc else tmiss(s)
                        tcache[s] = end
                    nodes = int_c[p[i_nnodes]]
                    cores = int_c[p[i_ncpus]]
                    mem = mem_c[p[i_reqmem]]
                    gpus = gpus_c[p[i_alloctres]]
                    limit = limit_c[p[i_limit]]
                    exit_status = exit_c[p[i_exit]]
                    if end is not None and (start is None or start <= end):
                        req_mem_mb: float | None = None
                        if mem is not None:
                            value, scope = mem
                            if scope == "n":
                                req_mem_mb = value * (nodes or 1)
                            elif scope == "c":
                                req_mem_mb = value * (cores or 1)
                            else:
                                req_mem_mb = value
                            if not req_mem_mb:
                                req_mem_mb = None
                        yield JobRecord(
                            cluster_arg or p[i_cluster], job_id, no_index, p[i_user], p[i_group], p[i_acct],
                            p[i_part], p[i_qos], submit, eligible, start, end, cores, nodes, gpus,
                            req_mem_mb, None, limit, None, exit_status,
                            state, node_list, p[i_name], lineno,
                        )  # fmt: skip
                        continue
            except (ValueError, KeyError, TypeError, OverflowError):
                pass  # the careful path fills the caches and words the reason

        if p[i_jid][:1] in "Jj" and (text == header_text or text[:6].lower() in ("jobid|", "jobidr")):
            new = read_header(text)
            if new is not None:
                ctx.lineno = lineno
                ctx.header_text = text
                return Layout(new)
        try:
            result = row(p, lineno, text)
        except Exception as exc:  # never raise on bad input  # pragma: no cover - defensive
            result = Rejected(lineno, f"unexpected error: {type(exc).__name__}: {exc}", text[:2000])
        if type(result) is list:
            yield from result
        else:
            yield result  # type: ignore[misc]
    ctx.lineno = lineno
    return None


def _rejected(lineno: int, reason: str, text: str, count: int) -> ParsedItem | list[ParsedItem]:
    """One Rejected per record: an array range that fails is ``count`` records that fail."""
    if count == 1:
        return Rejected(lineno, reason, text[:2000])
    return [Rejected(lineno, reason, text[:2000]) for _ in range(count)]


RowFn = Callable[[list[str], int, str], "ParsedItem | list[ParsedItem]"]


def _row_parser(layout: Layout, ctx: _Context) -> RowFn:
    """The careful per-row function for one layout (column indexes resolved once)."""
    names = layout.names
    miss = layout.missing
    cluster_arg = ctx.cluster
    parse_time = ctx.parse_time
    i_jid = layout.pos("JobID", "JobIDRaw")
    i_cluster = layout.pos("Cluster")
    i_part = layout.pos("Partition")
    i_qos = layout.pos("QOS")
    i_acct = layout.pos("Account")
    i_group = layout.pos("Group")
    i_user = layout.pos("User")
    i_submit = layout.pos("Submit")
    i_elig = layout.pos("Eligible")
    i_start = layout.pos("Start")
    i_end = layout.pos("End")
    i_exit = layout.pos("ExitCode")
    i_state = layout.pos("State")
    i_nnodes = layout.pos("NNodes", "AllocNodes")
    i_ncpus = layout.pos("NCPUS", "AllocCPUS")
    i_reqcpus = layout.pos("ReqCPUS")
    i_reqmem = layout.pos("ReqMem")
    i_alloctres = layout.pos("AllocTRES")
    i_allocgres = layout.pos("AllocGRES")
    i_limit = layout.pos("Timelimit")
    i_limit_raw = layout.pos("TimelimitRaw")
    i_nodelist = layout.pos("NodeList")
    i_name = layout.pos("JobName")
    i_maxrss = layout.pos("MaxRSS")
    i_maxvm = layout.pos("MaxVMSize")
    i_totalcpu = layout.pos("TotalCPU")
    i_usercpu = layout.pos("UserCPU")
    i_syscpu = layout.pos("SystemCPU")
    i_cputimeraw = layout.pos("CPUTimeRAW")
    has_state = i_state != miss
    has_end = i_end != miss
    has_nodes = i_nnodes != miss
    has_cpus = i_ncpus != miss
    has_extra = any(layout.has(c) for c in _EXTRA_COLUMNS)
    jid_missing = i_jid == miss

    def fname(i: int) -> str:
        return f"field {i} ({names[i]})"

    tcache = parse_time.cache
    tmiss = parse_time.miss
    tget = tcache.get
    caches = ctx.caches
    state_c: dict[str, tuple[str, str]] = caches["state"]
    mem_c: dict[str, tuple[float, str] | None] = caches["mem"]
    gpus_c: dict[str, int] = caches["gpus"]
    limit_c: dict[str, int | None] = caches["limit"]
    exit_c: dict[str, int | None] = caches["exit"]
    int_c: dict[str, int] = caches["int"]
    ended_c: dict[str, str] = caches["ended"]
    none_times = _TIME_NONE

    def row(p: list[str], lineno: int, text: str) -> ParsedItem | list[ParsedItem]:
        if jid_missing:
            return Rejected(lineno, "the header has no JobID column", text[:2000])
        jid = p[i_jid]
        if "." in jid:
            return Skipped(lineno, SKIP_STEP)
        if not jid[:1].isdigit():
            return Rejected(lineno, f"{fname(i_jid)}: {jid!r} is not a job id", text[:2000])
        idx: int | list[int]
        if "_" in jid:
            try:
                job_id, idx = split_job_id(jid)
            except FieldError as exc:
                return Rejected(lineno, f"{fname(i_jid)}: {exc}", text[:2000])
        else:
            job_id, idx = jid, NO_ARRAY_INDEX
        count = len(idx) if type(idx) is list else 1

        if has_state:
            st = p[i_state]
            try:
                state, kind = state_c[st]
            except KeyError:
                state, kind = _cache_get(state_c, state_kind, st)
                if kind == "ended" and len(ended_c) < _CACHE_LIMIT:
                    ended_c[st] = state
        else:
            state, kind = "", "ended"
        end_s = p[i_end]
        if kind != "ended" or (has_end and end_s.strip() in none_times):
            if kind == "unknown":
                reason = f"unknown state: {state}"
            else:
                reason = f"not ended: {state or 'End ' + (end_s or 'empty')}"
            return Skipped(lineno, reason) if count == 1 else [Skipped(lineno, reason) for _ in range(count)]
        node_list = p[i_nodelist]
        if node_list == "None assigned":
            if count == 1:
                return Skipped(lineno, SKIP_NEVER_RAN)
            return [Skipped(lineno, SKIP_NEVER_RAN) for _ in range(count)]

        i = i_submit
        try:
            submit = tget(p[i], _MISS)
            if submit is _MISS:
                submit = tmiss(p[i])
            i = i_elig
            eligible = tget(p[i], _MISS)
            if eligible is _MISS:
                eligible = tmiss(p[i])
            i = i_start
            start = tget(p[i], _MISS)
            if start is _MISS:
                start = tmiss(p[i])
            i = i_end
            end = tget(end_s, _MISS)
            if end is _MISS:
                end = tmiss(end_s)
            i = i_nnodes
            if has_nodes:
                try:
                    nodes = int_c[p[i]]
                except KeyError:
                    nodes = _int_miss(int_c, p[i])
            else:
                nodes = count_hosts(node_list)
            i = i_ncpus
            if has_cpus:
                try:
                    cores = int_c[p[i]]
                except KeyError:
                    cores = _int_miss(int_c, p[i])
            else:
                cores = 0
                cpu_tres = tres_value(p[i_alloctres], "cpu")
                if cpu_tres:
                    i = i_alloctres
                    cores = int(cpu_tres)
                elif p[i_reqcpus]:
                    i = i_reqcpus
                    cores = int(p[i])
            i = i_reqmem
            try:
                mem = mem_c[p[i]]
            except KeyError:
                mem = _cache_get(mem_c, parse_memory, p[i])
            req_mem_mb: float | None = None
            if mem is not None:
                value, scope = mem
                if scope == "n":
                    req_mem_mb = value * (nodes or 1)
                elif scope == "c":
                    req_mem_mb = value * (cores or 1)
                else:
                    req_mem_mb = value
                if not req_mem_mb:
                    req_mem_mb = None
            i = i_alloctres
            try:
                gpus = gpus_c[p[i]]
            except KeyError:
                gpus = _cache_get(gpus_c, gpus_from_tres, p[i])
            i = i_limit
            try:
                limit = limit_c[p[i]]
            except KeyError:
                limit = _cache_get(limit_c, _limit_seconds, p[i])
            i = i_exit
            try:
                exit_status = exit_c[p[i]]
            except KeyError:
                exit_status = _cache_get(exit_c, _exit_status, p[i])
            used_mem_mb: float | None = None
            cpu_time_s: float | None = None
            if has_extra:
                if not gpus and p[i_allocgres]:
                    gpus = gpus_from_gres(p[i_allocgres])
                if limit is None and p[i_limit_raw].strip():
                    i = i_limit_raw
                    limit = int(p[i]) * 60
                    if limit < 0:
                        raise FieldError(f"{p[i]!r} is negative")
                i = i_maxrss
                rss = parse_memory(p[i], "K")
                used_mem_mb = rss[0] if rss else None
                i = i_maxvm
                parse_memory(p[i], "K")  # validated only
                i = i_cputimeraw
                raw_cpu = p[i].strip()
                if raw_cpu:
                    if ":" in raw_cpu:
                        cpu_time_s = parse_duration(raw_cpu)
                    elif int(raw_cpu) < 0:
                        raise FieldError(f"{raw_cpu!r} is negative")
                i = i_totalcpu
                if p[i].strip():
                    cpu_time_s = parse_duration(p[i])
                elif p[i_usercpu].strip():
                    i = i_usercpu
                    u = parse_duration(p[i]) or 0.0
                    i = i_syscpu
                    cpu_time_s = u + (parse_duration(p[i]) or 0.0)
        except FieldError as exc:
            return _rejected(lineno, f"{fname(i)}: {exc}", text, count)
        except (ValueError, OverflowError):
            return _rejected(lineno, f"{fname(i)}: {p[i]!r} is not an integer", text, count)
        if nodes < 0 or cores < 0:
            i = i_nnodes if nodes < 0 else i_ncpus
            return _rejected(lineno, f"{fname(i)}: {p[i]!r} is negative", text, count)
        if start is not None and end is not None and end < start:
            return _rejected(lineno, f"{fname(i_end)}: {end_s!r} is before Start {p[i_start]!r}", text, count)
        cl = cluster_arg or p[i_cluster]
        req_wall = None if limit is None else int(limit)
        if isinstance(idx, int):
            return JobRecord(
                cl, job_id, idx, p[i_user], p[i_group], p[i_acct], p[i_part], p[i_qos],
                submit, eligible, start, end, cores, nodes, gpus, req_mem_mb, used_mem_mb,
                req_wall, cpu_time_s, exit_status, state, node_list, p[i_name], lineno,
            )  # fmt: skip
        return [
            JobRecord(
                cl, job_id, k, p[i_user], p[i_group], p[i_acct], p[i_part], p[i_qos],
                submit, eligible, start, end, cores, nodes, gpus, req_mem_mb, used_mem_mb,
                req_wall, cpu_time_s, exit_status, state, node_list, p[i_name], lineno,
            )  # fmt: skip
            for k in idx
        ]

    return row

"""The careful per-row path of the sacct ``--parsable2`` reader (pure core, no Django).

``slurm._rows`` tries an inline fast path first; every row it does not vouch for comes here,
where every case is handled and every rejection is worded.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, tzinfo

from forecasts.accounting.parsers.records import NO_ARRAY_INDEX, JobRecord, ParsedItem, Rejected, Skipped
from forecasts.accounting.parsers.slurm_fields import (
    SKIP_NEVER_RAN,
    SKIP_STEP,
    FieldError,
    _exit_status,
    _limit_seconds,
    count_hosts,
    gpus_from_gres,
    gpus_from_tres,
    parse_duration,
    parse_memory,
    split_job_id,
    state_kind,
    tres_value,
)
from forecasts.accounting.parsers.slurm_layout import (
    _CACHE_LIMIT,
    _EXTRA_COLUMNS,
    _MISS,
    Layout,
    _cache_get,
    _Context,
    _int_miss,
)
from forecasts.accounting.parsers.slurm_time import _TIME_NONE, later_reading


def _rejected(lineno: int, reason: str, text: str, count: int) -> ParsedItem | list[ParsedItem]:
    """One Rejected per record: an array range that fails is ``count`` records that fail."""
    if count == 1:
        return Rejected(lineno, reason, text[:2000])
    return [Rejected(lineno, reason, text[:2000]) for _ in range(count)]


RowFn = Callable[[list[str], int, str], "ParsedItem | list[ParsedItem]"]


def _end_agreeing_with_elapsed(start: datetime, end: datetime, end_s: str, elapsed_s: str, tz: tzinfo) -> datetime:
    """An End in an hour a DST change repeats: the reading (first or second pass) whose wall time agrees with
    the row's Elapsed (00:30 BST to 01:30 GMT with Elapsed 02:00:00 is two hours, not one)."""
    later = later_reading(end_s, tz)
    try:
        elapsed = parse_duration(elapsed_s)
    except FieldError:
        return end
    if later is None or elapsed is None:
        return end
    off_first = abs((end - start).total_seconds() - elapsed)
    return later if abs((later - start).total_seconds() - elapsed) < off_first else end


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
    i_elapsed = layout.pos("Elapsed")
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
    has_elapsed = i_elapsed != miss
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
            # local times: an End in the hour a DST change repeats may be its second pass (01:10 GMT after 01:50 BST)
            later = None if parse_time.is_utc else later_reading(end_s, parse_time.tz)
            if later is None or later < start:
                return _rejected(lineno, f"{fname(i_end)}: {end_s!r} is before Start {p[i_start]!r}", text, count)
            end = later
        elif start is not None and end is not None and has_elapsed and not parse_time.is_utc \
                and parse_time.in_repeated_hour(end_s):
            end = _end_agreeing_with_elapsed(start, end, end_s, p[i_elapsed], parse_time.tz)
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

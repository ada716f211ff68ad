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
from collections.abc import Generator, Iterable, Iterator, Sequence
from datetime import UTC, tzinfo

from forecasts.accounting.parsers.records import NO_ARRAY_INDEX, JobRecord, ParsedItem, Rejected
from forecasts.accounting.parsers.slurm_fields import (
    APEL_FIELDS,
    ENDED_STATES,
    MAX_ARRAY_EXPANSION,
    NOT_ENDED_STATES,
    SACCT_FIELDS,
    SKIP_NEVER_RAN,
    SKIP_STEP,
    XDMOD_FIELDS,
    FieldError,
    count_hosts,
    expand_ranges,
    gpus_from_gres,
    gpus_from_tres,
    parse_duration,
    parse_memory,
    split_job_id,
    state_kind,
    tres_value,
)
from forecasts.accounting.parsers.slurm_layout import (
    _EXTRA_COLUMNS,
    _HOT_COLUMNS,
    _MISS,
    Layout,
    _Context,
    _looks_apel,
    read_header,
)
from forecasts.accounting.parsers.slurm_rows import _row_parser
from forecasts.accounting.parsers.slurm_time import _TIME_CACHE_LIMIT, _TIME_NONE, TimeParser, _fromiso

UTC = UTC

# The column tables and field parsers live in slurm_fields, times in slurm_time, layouts in
# slurm_layout and the careful row path in slurm_rows; these names are re-exported here, where
# callers (and ``formats``) have always found them.
__all__ = [
    "APEL_FIELDS",
    "ENDED_STATES",
    "MAX_ARRAY_EXPANSION",
    "NOT_ENDED_STATES",
    "SACCT_FIELDS",
    "SKIP_NEVER_RAN",
    "SKIP_STEP",
    "UTC",
    "XDMOD_FIELDS",
    "FieldError",
    "Layout",
    "TimeParser",
    "count_hosts",
    "expand_ranges",
    "gpus_from_gres",
    "gpus_from_tres",
    "parse",
    "parse_duration",
    "parse_memory",
    "read_header",
    "split_job_id",
    "state_kind",
    "tres_value",
]


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
    in_repeated = parse_time.in_repeated_hour  # an End in a repeated DST hour: the careful path reads Elapsed
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
            yield Rejected(lineno, reason, text)
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
                    if end is not None and (start is None or start <= end) and (utc or not in_repeated(s)):
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
            result = Rejected(lineno, f"unexpected error: {type(exc).__name__}: {exc}", text)
        if type(result) is list:
            yield from result
        else:
            yield result  # type: ignore[misc]
    ctx.lineno = lineno
    return None

"""Property tests (hypothesis) for the Slurm text, Slurm JSON and SWF parsers: pure core, no Django.

Whatever the input: no exception, exactly one item per record (array ranges
expanded first), and ParseCounts.read == jobs + skipped + rejected.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from forecasts.accounting.parsers import slurm, slurm_json, swf
from forecasts.accounting.parsers.records import JobRecord, ParseCounts, ParsedItem

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def run(items: Iterable[ParsedItem]) -> tuple[list[ParsedItem], ParseCounts]:
    out = list(items)
    c = ParseCounts()
    for item in out:
        c.add(item)
    assert c.read == c.jobs + c.skipped + c.rejected == len(out)
    for item in out:
        assert item.line >= 1
        if isinstance(item, JobRecord):
            assert item.cores >= 0 and item.nodes >= 0
            for t in (item.submit, item.eligible, item.start, item.end):
                assert t is None or t.utcoffset() is not None and t.utcoffset().total_seconds() == 0
            if item.start is not None and item.end is not None:
                assert item.end >= item.start
    return out, c


raw_lines = st.lists(st.binary(max_size=300), max_size=30)

# --- Slurm text ------------------------------------------------------------------------------

times = st.datetimes(
    min_value=__import__("datetime").datetime(2000, 1, 1), max_value=__import__("datetime").datetime(2030, 1, 1)
).map(lambda d: d.replace(microsecond=0).isoformat())
ranges = st.lists(st.tuples(st.integers(0, 40), st.integers(0, 5)), min_size=1, max_size=4)


@st.composite
def slurm_rows(draw: st.DrawFn) -> tuple[str, int]:
    """A plausible XDMoD-layout row and the number of items it must produce."""
    base = str(draw(st.integers(1, 10**9)))
    kind = draw(st.sampled_from(["plain", "index", "range", "step"]))
    n = 1
    if kind == "plain":
        jid = base
    elif kind == "index":
        jid = f"{base}_{draw(st.integers(0, 10**6))}"
    elif kind == "step":
        jid = f"{base}.{draw(st.sampled_from(['batch', 'extern', '0', '12']))}"
    else:
        parts = draw(ranges)
        spec = ",".join(f"{a}-{a + w}" if w else str(a) for a, w in parts)
        jid = f"{base}_[{spec}]"
        n = len(slurm.expand_ranges(spec))
    submit = draw(times)
    start = draw(st.one_of(st.just("Unknown"), times))
    end = draw(st.one_of(st.just("Unknown"), times))
    state = draw(
        st.sampled_from(["COMPLETED", "FAILED", "CANCELLED by 12", "TIMEOUT", "RUNNING", "PENDING", "FOO", "NODE_FAIL"])
    )
    nodes = draw(st.integers(0, 64))
    cpus = draw(st.integers(0, 4096))
    mem = draw(st.sampled_from(["0n", "4000Mc", "48000Mn", "2147486648Mn", "62.50G", "", "abc"]))
    tres = draw(st.sampled_from(["", "billing=1,cpu=1,gres/gpu=2,node=1", "gres/gpu:a100=4", "cpu=4"]))
    limit = draw(st.sampled_from(["UNLIMITED", "Partition_Limit", "1-00:00:00", "00:30:00", "bad"]))
    nodelist = draw(st.sampled_from(["None assigned", "cpn-a[01-04]", "n1"]))
    name = draw(st.text(max_size=20))
    fields = [
        jid, base, "c", "part", "qos", "acct", "grp", "1", "user", "2", submit, submit, start, end, "00:00:01",
        "0:0", state, str(nodes), str(cpus), str(cpus), mem, "", tres, limit, nodelist, name,
    ]  # fmt: skip
    return "|".join(fields), n


def expected_slurm_items(rows: list[tuple[str, int]]) -> int:
    return sum(n for text, n in rows if text.strip())


@SETTINGS
@given(raw_lines)
def test_slurm_random_bytes_never_raise(lines: list[bytes]) -> None:
    run(slurm.parse(lines, cluster="c"))


@SETTINGS
@given(st.lists(slurm_rows(), min_size=1, max_size=25), st.randoms(use_true_random=False))
def test_slurm_rows_one_item_each_shuffled(rows: list[tuple[str, int]], rnd: object) -> None:
    rnd.shuffle(rows)  # type: ignore[attr-defined]
    # a record's name may hold newlines and '|': the parser sees lines as given
    lines = [text.encode("utf-8", "surrogatepass") for text, _ in rows]
    out, c = run(slurm.parse(lines, cluster="c"))
    assert c.read == expected_slurm_items(rows)


@SETTINGS
@given(st.lists(slurm_rows(), min_size=1, max_size=15), st.data())
def test_slurm_truncated_rows_one_item_each(rows: list[tuple[str, int]], data: st.DataObject) -> None:
    lines: list[bytes] = [rows[0][0].encode()]  # a whole first row fixes the XDMoD layout
    expected = rows[0][1]
    for text, n in rows[1:]:
        cut = data.draw(st.integers(0, len(text)))
        piece = text[:cut]
        lines.append(piece.encode())
        if piece == text:
            expected += n
        elif piece.strip():
            expected += 1 if piece.count("|") < 25 else n  # a cut inside JobName keeps 26 fields
    out, c = run(slurm.parse(lines, cluster="c"))
    assert c.read == expected


@SETTINGS
@given(st.lists(slurm_rows(), min_size=1, max_size=10))
def test_slurm_with_header_and_noise(rows: list[tuple[str, int]]) -> None:
    header = "|".join(slurm.XDMOD_FIELDS)
    lines = [header.encode(), b"", b"  \r\n"] + [t.encode() + b"\r\n" for t, _ in rows] + [header.encode()]
    out, c = run(slurm.parse(lines, cluster="c", tz=__import__("zoneinfo").ZoneInfo("America/Chicago")))
    assert c.read == expected_slurm_items(rows)


# --- Slurm JSON --------------------------------------------------------------------------------

json_scalars = st.one_of(st.none(), st.booleans(), st.integers(-(2**40), 2**40), st.text(max_size=10))
json_values = st.recursive(
    json_scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)),
    max_leaves=12,
)
job_like = st.fixed_dictionaries(
    {"job_id": st.one_of(st.integers(0, 10**9), json_scalars)},
    optional={
        "state": st.one_of(
            st.fixed_dictionaries({"current": st.sampled_from(["COMPLETED", ["FAILED"], "RUNNING", "X", []])}),
            json_values,
        ),
        "time": st.one_of(
            st.fixed_dictionaries(
                {"start": st.integers(0, 2**33), "end": st.integers(0, 2**33)},
                optional={"limit": st.one_of(st.integers(-5, 10**6), st.just({"set": True, "number": 60}))},
            ),
            json_values,
        ),
        "array": st.one_of(
            st.fixed_dictionaries({"job_id": st.integers(0, 100), "task_id": st.one_of(st.none(), st.integers(0, 9)),
                                   "task": st.sampled_from(["", "1-3", "2,4", "x"])}),
            json_values,
        ),  # fmt: skip
        "tres": json_values,
        "steps": json_values,
        "nodes": st.sampled_from(["n1", "None assigned", ""]),
        "exit_code": json_values,
    },
)


def expected_json_items(job: object) -> int:
    return slurm_json.array_size(job)


def test_array_size() -> None:
    assert slurm_json.array_size({"array": {"job_id": 5, "task_id": None, "task": "1-3,7"}}) == 4
    assert slurm_json.array_size({"array": {"job_id": 5, "task_id": {"set": True, "number": 2}, "task": "1-3"}}) == 1
    assert slurm_json.array_size({"array": {"job_id": 0, "task": "1-3"}}) == 1
    assert slurm_json.array_size({"array": {"job_id": 5, "task": "x"}}) == 1
    assert slurm_json.array_size([1]) == 1


@SETTINGS
@given(st.lists(st.one_of(job_like, json_values), max_size=8), st.integers(1, 50))
def test_json_one_item_per_job_any_chunking(jobs: list[object], chunk: int) -> None:
    doc = json.dumps({"meta": {"x": [1, 2]}, "jobs": jobs, "errors": []}, indent=1).encode()
    chunks = [doc[i : i + chunk] for i in range(0, len(doc), chunk)]
    out, c = run(slurm_json.parse(chunks, cluster="c"))
    assert c.read == sum(expected_json_items(j) for j in jobs)
    assert out == list(slurm_json.parse(doc.splitlines(keepends=True), cluster="c"))


@SETTINGS
@given(st.binary(max_size=400))
def test_json_random_bytes_never_raise(data: bytes) -> None:
    run(slurm_json.parse(data.splitlines(keepends=True), cluster="c"))


@SETTINGS
@given(st.lists(job_like, min_size=1, max_size=5), st.data())
def test_json_truncated_documents_never_raise(jobs: list[object], data: st.DataObject) -> None:
    doc = json.dumps({"jobs": jobs}).encode()
    cut = data.draw(st.integers(0, len(doc)))
    run(slurm_json.parse([doc[:cut]], cluster="c"))


# --- SWF ----------------------------------------------------------------------------------------

swf_number = st.one_of(st.integers(-1, 10**7).map(str), st.floats(0, 1e6, allow_nan=False).map(lambda f: f"{f:.2f}"))


@st.composite
def swf_rows(draw: st.DrawFn) -> str:
    values = [draw(swf_number) for _ in range(18)]
    values[10] = draw(st.sampled_from(["-1", "0", "1", "2", "3", "4", "5", "7"]))
    return "  ".join(values)


@SETTINGS
@given(st.lists(st.one_of(swf_rows(), st.text(max_size=40)), max_size=25), st.randoms(use_true_random=False))
def test_swf_one_item_per_data_line(rows: list[str], rnd: object) -> None:
    rnd.shuffle(rows)  # type: ignore[attr-defined]
    lines = [b"; UnixStartTime: 843480031\n", b"; TimeZoneString: Europe/Stockholm\n"]
    lines += [r.encode("utf-8", "surrogatepass") for r in rows]
    out, c = run(swf.parse(lines, cluster="c"))
    expected = 0
    for r in rows:
        s = r.encode("utf-8", "surrogatepass").decode("utf-8", "replace").strip()
        if s and not s.startswith(";"):
            expected += 1
    assert c.read == expected


@SETTINGS
@given(raw_lines)
def test_swf_random_bytes_never_raise(lines: list[bytes]) -> None:
    run(swf.parse(lines, cluster="c"))

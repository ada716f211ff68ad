"""The Minerva report in all three formats: a reader can check its tables against the paper.

The PDF is read back with pypdf and the DOCX with python-docx: every section heading, table and
figure caption is there, with the benchmark figures of Kovatch 2015 section 6 and Table 3 as the
design evaluation computed it. The PDF pages are rendered to PNG (pdftoppm) for a person to look at.
"""

from __future__ import annotations

import io
import shutil
import subprocess
import zipfile
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import SCREENSHOTS
from tests.planner.reports_data import report_inputs, squash

_BUILT: dict[str, Any] = {}  # the one report these read-only tests share (below)


@pytest.fixture
def minerva_report(tmp_path: Path, departments: dict[str, Any]) -> Any:
    """The report generated once for the module's read-only tests, and the plain figures they check it
    against. Generating it (inputs through the real ingest path, then PDF, DOCX, HTML and ZIP) takes 10-15 s;
    the first test to ask builds it, and the others read the same document and files: the database rows
    are rolled back after that test, so only values (ids, the evaluation's years) are kept, never rows."""
    from planner.reports.services import report_create, report_generate

    if "report" not in _BUILT:
        data = report_inputs(tmp_path, departments)
        # the design links neither: chosen by hand, as on the form, they are kept (shown as context)
        report = report_create(design=data["narrow"], cluster=data["cluster"], forecast=data["fit"],
                               plan=data["plan"], enqueue=False)
        ev = data["narrow"].evaluations.order_by("-created_at").first()
        _BUILT["report"] = report_generate(report.pk)
        _BUILT["data"] = {"run": data["run"].pk, "fit": data["fit"].pk, "plan": data["plan"].pk,
                          "evaluation_years": ev.result["years"]}
    return _BUILT["report"], _BUILT["data"]


def _doc(report: Any) -> Any:
    from planner.reports.document import Document

    return Document.from_dict(report.document)


def _table(doc: Any, key: str) -> Any:
    return next(t for t in doc.tables() if t.key == key)


def test_the_benchmark_tables_are_the_papers_section_6(minerva_report: Any) -> None:
    report, _ = minerva_report
    doc = _doc(report)
    rows = {(r[0], r[1]): r for r in _table(doc, "benchmarks").rows}
    assert rows[("amd-interlagos", "ddn-sfa10k")][2:4] == ["1,247", "2,702"]
    assert rows[("amd-interlagos", "flash-gss")][2:4] == ["1,182", "1,412"]
    assert rows[("ivy-bridge", "flash-gss")][2:4] == ["471", "562"]
    speedups = {r[0].split(" (")[0]: r for r in _table(doc, "speedups").rows}
    assert speedups["node choice alone"][6] == "2.51x"  # 1,182 / 471 CPU hours
    assert speedups["storage alone"][3] == "1.91x"  # 2,702 / 1,412 wall hours
    assert speedups["node and storage together"][3] == "4.81x"  # 2,702 / 562: the paper's 4.8x


def test_table_3_is_the_design_evaluation_of_the_year_every_purchase_is_in(minerva_report: Any) -> None:
    report, data = minerva_report
    y2015 = next(y for y in data["evaluation_years"] if y["year"] == 2015)
    rows = dict(_table(_doc(report), "configuration").rows)
    assert rows["# of cores"] == f"{y2015['cores']:,}"
    assert rows["# of nodes"] == "536"  # Table 3
    assert rows["Total/usable storage (PB)"] == "11.1/8.5"  # Table 3
    assert rows["Storage bandwidth (GB/s)"] == "130"  # Table 3
    assert rows["Amount of memory (TB)"] == "57"  # Table 3
    assert rows["Peak speed (TF)"] == f"{y2015['peak_tf']:,.0f}"
    raw = "Schedulable core-hours a year, all cores, before the utilisation target (millions)"
    assert rows[raw] == f"{y2015['core_hours_available'] / 1e6:,.1f}"


def test_every_number_block_cites_a_source_listed_in_the_appendix(minerva_report: Any) -> None:
    report, data = minerva_report
    doc = _doc(report)
    keys = {r.key for r in doc.references}
    assert {f"ingest-{data['run']}", f"fit-{data['fit']}", f"plan-{data['plan']}"} <= keys
    for block in doc.tables() + doc.figures():
        if block.key != "references":
            assert block.refs and set(block.refs) <= keys, block.key
    assert "No storage scans loaded" in " ".join(p.text for p in doc.paragraphs())


def test_the_pdf_holds_every_section_table_and_figure(minerva_report: Any) -> None:
    from pypdf import PdfReader

    report, _ = minerva_report
    doc = _doc(report)
    reader = PdfReader(str(report.file_path("pdf")))
    text = squash("\n".join(page.extract_text() for page in reader.pages))
    for s in doc.sections:
        assert squash(s.heading) in text, s.heading
    for block in doc.tables() + doc.figures():
        assert squash(block.label) in text, block.label
    for number in ("1,247", "2,702", "1,182", "1,412", "471", "562", "2.51x", "1.91x", "4.81x", "11.1/8.5"):
        assert number in text


def test_the_docx_holds_every_section_table_and_figure(minerva_report: Any) -> None:
    import docx

    report, _ = minerva_report
    doc = _doc(report)
    d = docx.Document(str(report.file_path("docx")))
    headings = [p.text for p in d.paragraphs if p.style.name.startswith("Heading")]
    assert headings == [s.heading for s in doc.sections]
    texts = "\n".join(p.text for p in d.paragraphs)
    for block in doc.tables() + doc.figures():
        assert block.label in texts, block.label
    assert len(d.tables) == len(doc.tables())
    assert len(d.inline_shapes) == len(doc.figures())
    bench = next(t for t in d.tables if t.rows[0].cells[0].text == "node type" and len(t.columns) == 6)
    assert [c.text for c in bench.rows[3].cells[:4]] == ["ivy-bridge", "flash-gss", "471", "562"]


def test_the_html_and_the_zip_hold_every_figure_and_table(minerva_report: Any) -> None:
    report, _ = minerva_report
    doc = _doc(report)
    html = report.file_path("html").read_text()
    assert html.count("<svg") == len(doc.figures()) and "@media print" in html
    for s in doc.sections:
        assert s.heading in html
    with zipfile.ZipFile(report.file_path("zip")) as z:
        names = z.namelist()
        assert len([n for n in names if n.endswith(".svg")]) == len(doc.figures())
        assert len([n for n in names if n.endswith(".png")]) == len(doc.figures())
        assert len([n for n in names if n.endswith(".csv")]) == len(doc.tables())
        bench = next(n for n in names if n.endswith("_benchmarks.csv"))
        assert "ivy-bridge,flash-gss,471,562" in z.read(bench).decode()


def test_the_pdf_figures_are_vectors_not_pictures(minerva_report: Any) -> None:
    from pypdf import PdfReader

    report, _ = minerva_report
    reader = PdfReader(str(report.file_path("pdf")))
    images = sum(len(page.images) for page in reader.pages)
    assert images == 0  # every chart is drawn with lines and shapes


def test_the_pdf_pages_render_to_png_for_a_person_to_look_at(minerva_report: Any) -> None:
    if shutil.which("pdftoppm") is None:
        pytest.skip("pdftoppm is absent (apt-get install poppler-utils) so the pages cannot be rendered")
    report, _ = minerva_report
    SCREENSHOTS.mkdir(exist_ok=True)
    for old in SCREENSHOTS.glob("report_pdf_page-*.png"):
        old.unlink()
    subprocess.run(["pdftoppm", "-r", "70", "-png", str(report.file_path("pdf")),
                    str(SCREENSHOTS / "report_pdf_page")], check=True, timeout=120)
    pages = sorted(SCREENSHOTS.glob("report_pdf_page-*.png"))
    assert len(pages) >= 5
    from PIL import Image

    assert Image.open(io.BytesIO(pages[0].read_bytes())).size[0] > 500


def test_the_command_writes_the_chosen_format_and_prints_a_json_summary(tmp_path: Path,
                                                                        departments: dict[str, Any]) -> None:
    import json

    from django.core.management import call_command
    from django.core.management.base import CommandError

    data = report_inputs(tmp_path, departments, with_forecast=False)
    out, err = io.StringIO(), io.StringIO()
    target = tmp_path / "r.docx"
    call_command("grant_report", "--design", str(data["narrow"].pk), "--format", "docx", "--out", str(target),
                 "--cluster", "minerva", "--start", "2021-01", "--end", "2023-12", stdout=out, stderr=err)
    summary = json.loads(out.getvalue().strip().splitlines()[-1])
    assert summary["status"] == "ready" and summary["out"] == str(target) and target.stat().st_size > 10_000
    assert summary["parameters"]["start"] == "2021-01-01" and summary["parameters"]["cluster"] == "minerva"
    with pytest.raises(CommandError, match="--design: no design #999999"):
        call_command("grant_report", "--design", "999999", "--out", str(tmp_path / "x.pdf"))
    with pytest.raises(CommandError, match="--cluster: no cluster named 'nope'"):
        call_command("grant_report", "--design", str(data["narrow"].pk), "--cluster", "nope",
                     "--out", str(tmp_path / "x.pdf"))


def test_the_demo_step_generates_one_report_and_skips_on_the_next_run(tmp_path: Path,
                                                                       departments: dict[str, Any]) -> None:
    from planner.reports.demo import load_demo_report
    from planner.reports.models import GrantReport

    report_inputs(tmp_path, departments, with_forecast=False)
    messages: list[str] = []
    load_demo_report(messages.append)
    report = GrantReport.objects.get()
    assert report.status == "ready" and report.formats_ready == ["pdf", "docx", "html", "zip"]
    load_demo_report(messages.append)
    assert GrantReport.objects.count() == 1 and messages[-1] == "grant report: already generated"

"""PDF rendering with ReportLab: text, tables and figures as vector graphics (no browser, PyPI only).

Figures are drawn with ReportLab's own graphics primitives (lines, polygons, rectangles, strings)
from the same Figure data the matplotlib renderer uses, so they stay vectors in the PDF and need
no SVG converter. Pure: no Django.
"""

from __future__ import annotations

import math
from pathlib import Path
from xml.sax.saxutils import escape

from reportlab.graphics.shapes import Drawing, Line, Polygon, PolyLine, Rect, String
from reportlab.lib import colors
from reportlab.lib.enums import TA_RIGHT
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import ParagraphStyle, getSampleStyleSheet
from reportlab.lib.units import mm
from reportlab.platypus import KeepTogether, Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle

from planner.reports.document import Document, Figure, cite
from planner.reports.document import Paragraph as DocParagraph
from planner.reports.document import Table as DocTable
from planner.reports.figures import COLOURS, _num

STYLES = getSampleStyleSheet()
BODY = ParagraphStyle("body", parent=STYLES["BodyText"], fontName="Times-Roman", fontSize=10.5, leading=14)
CAPTION = ParagraphStyle("caption", parent=BODY, fontName="Helvetica-Bold", fontSize=9, leading=11,
                         spaceBefore=6, spaceAfter=3)
CELL = ParagraphStyle("cell", parent=BODY, fontName="Helvetica", fontSize=7.5, leading=9)
CELL_NUM = ParagraphStyle("cellnum", parent=CELL, alignment=TA_RIGHT)
HEAD = ParagraphStyle("head", parent=CELL, fontName="Helvetica-Bold")
NOTE = ParagraphStyle("note", parent=CELL, textColor=colors.HexColor("#555555"))
H1 = ParagraphStyle("h1", parent=STYLES["Title"], fontName="Helvetica-Bold", fontSize=17, leading=21)
H2 = ParagraphStyle("h2", parent=STYLES["Heading2"], fontName="Helvetica-Bold", fontSize=13, spaceBefore=10,
                    keepWithNext=1)
WIDTH = A4[0] - 30 * mm


def _t(text: str) -> str:
    """Escape for ReportLab's mini-markup; map characters the core fonts lack."""
    return escape(text.replace("→", "->").replace("≥", ">=").replace("≤", "<="))


def _nice_max(v: float) -> float:
    if v <= 0 or not math.isfinite(v):
        return 1.0
    exp = 10 ** math.floor(math.log10(v))
    for m in (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10):
        if m * exp >= v:
            return m * exp
    return 10 * exp


def figure_drawing(fig: Figure, width: float = WIDTH, height: float = 190.0) -> Drawing:
    d = Drawing(width, height)
    left, right, bottom, top = 48.0, 8.0, 30.0, 22.0
    pw, ph = width - left - right, height - bottom - top
    values = [v for s in fig.series for arr in (s.y, s.hi or []) for v in arr if v is not None]
    ymax = _nice_max(max(values) if values else 1.0)
    n = max(1, len(fig.x))

    def yp(v: float) -> float:
        return bottom + ph * v / ymax

    if fig.kind == "bar":
        def xp(i: float) -> float:
            return left + pw * (i + 0.5) / n
    else:
        def xp(i: float) -> float:
            return left + (pw * i / (n - 1) if n > 1 else pw / 2)
    # grid and y ticks
    for k in range(6):
        v = ymax * k / 5
        d.add(Line(left, yp(v), left + pw, yp(v), strokeColor=colors.HexColor("#dddddd"), strokeWidth=0.5))
        d.add(String(left - 4, yp(v) - 3, _num(v), fontName="Helvetica", fontSize=7, textAnchor="end"))
    d.add(Line(left, bottom, left + pw, bottom, strokeColor=colors.black, strokeWidth=0.7))
    d.add(Line(left, bottom, left, bottom + ph, strokeColor=colors.black, strokeWidth=0.7))
    step = max(1, math.ceil(n / 12))
    fits = max(4, int(pw / n * step / 3.4))  # characters of 6.5 pt text a tick has room for
    for i in range(0, n, step):
        label = str(fig.x[i])
        label = label if len(label) <= fits else label[:fits - 1] + "."
        d.add(String(xp(i), bottom - 10, label, fontName="Helvetica", fontSize=6.5, textAnchor="middle"))
    if fig.x_label:
        d.add(String(left + pw / 2, 3, fig.x_label, fontName="Helvetica", fontSize=7.5, textAnchor="middle"))
    if fig.y_label:
        d.add(String(2, height - 10, fig.y_label, fontName="Helvetica", fontSize=7.5))
    # series
    k = max(1, len(fig.series))
    for si, s in enumerate(fig.series):
        col = colors.HexColor(COLOURS[si % len(COLOURS)])
        if fig.kind == "bar":
            bw = pw / n * 0.8 / k
            for i, bar in enumerate(s.y):
                if bar is None:
                    continue
                x0 = left + pw * i / n + pw / n * 0.1 + bw * si
                d.add(Rect(x0, bottom, bw, yp(bar) - bottom, fillColor=col, strokeColor=None))
            continue
        if s.lo is not None and s.hi is not None:
            pts_hi = [(xp(i), yp(v)) for i, v in enumerate(s.hi) if v is not None]
            pts_lo = [(xp(i), yp(v)) for i, v in enumerate(s.lo) if v is not None]
            poly = [c for p in pts_hi + pts_lo[::-1] for c in p]
            if len(poly) >= 6:
                band = colors.Color(col.red, col.green, col.blue, alpha=0.2)
                d.add(Polygon(poly, fillColor=band, strokeColor=None))
        pts: list[tuple[float, float]] = []
        for i, val in enumerate(s.y):
            if val is None:
                continue
            if s.style == "step" and pts:
                pts.append((xp(i), pts[-1][1]))
            pts.append((xp(i), yp(val)))
        if s.style == "step" and pts:
            pts.append((left + pw, pts[-1][1]))
        if len(pts) >= 2:
            d.add(PolyLine([c for p in pts for c in p], strokeColor=col, strokeWidth=1.5,
                           strokeDashArray=[4, 3] if s.style == "dash" else None))
    # legend along the top, after the y-axis label
    x = max(left, 10 + 4.0 * len(fig.y_label))
    for si, s in enumerate(fig.series):
        col = colors.HexColor(COLOURS[si % len(COLOURS)])
        d.add(Rect(x, height - 12, 8, 6, fillColor=col, strokeColor=None))
        label = s.name + (" (band: 80% interval)" if s.lo is not None else "")
        d.add(String(x + 11, height - 12, label, fontName="Helvetica", fontSize=7))
        x += 20 + 4.2 * len(label)
    return d


CHAR_PT, HEAD_CHAR_PT, PAD_PT = 4.3, 5.0, 12.0  # 7.5 pt Helvetica (bold for heads); cell padding


def column_widths(columns: list[str], rows: list[list[str]], numeric: list[bool], total: float = WIDTH
                  ) -> list[float]:
    """Numbers never wrap; text columns (capped at 32 characters) share what is left."""
    ncol = len(columns)
    longest = [max([len(r[c]) for r in rows if c < len(r)], default=0) for c in range(ncol)]
    word = [max((len(w) for w in columns[c].split()), default=0) for c in range(ncol)]
    need = [max(word[c] * HEAD_CHAR_PT, (longest[c] if numeric[c] else min(longest[c], 32)) * CHAR_PT,
                3 * CHAR_PT) + PAD_PT for c in range(ncol)]
    text = [c for c in range(ncol) if not numeric[c]]
    fixed = sum(need[c] for c in range(ncol) if numeric[c])
    if text and fixed < total:
        room = total - fixed
        want = sum(need[c] for c in text)
        for c in text:
            need[c] = need[c] * room / want
        return need
    return [w * total / sum(need) for w in need]


def _table(t: DocTable) -> list[object]:
    ncol = len(t.columns)
    numeric = t.numeric or [False] * ncol
    widths = column_widths(t.columns, t.rows, numeric)
    data = [[Paragraph(_t(h), HEAD) for h in t.columns]]
    for r in t.rows:
        data.append([Paragraph(_t(v), CELL_NUM if numeric[c] else CELL) for c, v in enumerate(r)])
    tbl = Table(data, colWidths=widths, repeatRows=1)
    tbl.setStyle(TableStyle([
        ("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#f1f4f8")),
        ("LINEBELOW", (0, 0), (-1, -1), 0.4, colors.HexColor("#cccccc")),
        ("VALIGN", (0, 0), (-1, -1), "TOP"),
        ("TOPPADDING", (0, 0), (-1, -1), 2), ("BOTTOMPADDING", (0, 0), (-1, -1), 2),
    ]))
    caption = Paragraph(_t(t.label) + (f' <font color="#1f5f99">{_t(cite(t.refs))}</font>' if t.refs else ""),
                        CAPTION)
    out: list[object] = [caption, tbl]
    if t.note:
        out.append(Paragraph(_t(t.note), NOTE))
    out.append(Spacer(1, 6))
    return [KeepTogether(out)] if len(t.rows) < 25 else out


def _footer(canvas: object, doc: object) -> None:
    canvas.saveState()  # type: ignore[attr-defined]
    canvas.setFont("Helvetica", 7.5)  # type: ignore[attr-defined]
    canvas.setFillColor(colors.HexColor("#777777"))  # type: ignore[attr-defined]
    canvas.drawString(15 * mm, 10 * mm, getattr(doc, "report_title", "")[:110])  # type: ignore[attr-defined]
    canvas.drawRightString(A4[0] - 15 * mm, 10 * mm, f"page {canvas.getPageNumber()}")  # type: ignore[attr-defined]
    canvas.restoreState()  # type: ignore[attr-defined]


def render_pdf(doc: Document, path: Path) -> Path:
    pdf = SimpleDocTemplate(str(path), pagesize=A4, leftMargin=15 * mm, rightMargin=15 * mm, topMargin=15 * mm,
                            bottomMargin=18 * mm, title=doc.title, author="capacity planner")
    pdf.report_title = doc.title  # type: ignore[attr-defined]
    story: list[object] = [Paragraph(_t(doc.title), H1), Paragraph(_t(doc.subtitle), BODY),
                           Paragraph(_t(f"Generated {doc.meta.get('generated_at') or ''}"), NOTE), Spacer(1, 8)]
    for s in doc.sections:
        story.append(Paragraph(_t(s.heading), H2))
        for b in s.blocks:
            if isinstance(b, DocParagraph):
                c = f' <font color="#1f5f99" size="8">{_t(cite(b.refs))}</font>' if b.refs else ""
                story.append(Paragraph(_t(b.text) + c, BODY))
                story.append(Spacer(1, 4))
            elif isinstance(b, DocTable):
                story.extend(_table(b))
            elif isinstance(b, Figure):
                cap = Paragraph(_t(b.label) + (f' <font color="#1f5f99">{_t(cite(b.refs))}</font>'
                                               if b.refs else ""), CAPTION)
                story.append(KeepTogether([figure_drawing(b), cap, Spacer(1, 6)]))
    pdf.build(story, onFirstPage=_footer, onLaterPages=_footer)
    return path

"""DOCX rendering with python-docx (grant writers edit in Word): figures as 200-dpi PNG. Pure: no Django."""

from __future__ import annotations

import io
from pathlib import Path

from docx import Document as DocxDocument
from docx.enum.text import WD_ALIGN_PARAGRAPH
from docx.shared import Inches, Pt

from planner.reports.document import Document, Figure, Paragraph, Table, cite
from planner.reports.figures import figure_png


def render_docx(doc: Document, path: Path) -> Path:
    d = DocxDocument()
    d.styles["Normal"].font.name = "Times New Roman"
    d.styles["Normal"].font.size = Pt(11)
    d.add_heading(doc.title, level=0)
    d.add_paragraph(doc.subtitle)
    d.add_paragraph(f"Generated {doc.meta.get('generated_at') or ''}").runs[0].italic = True
    for s in doc.sections:
        d.add_heading(s.heading, level=1)
        for b in s.blocks:
            if isinstance(b, Paragraph):
                p = d.add_paragraph(b.text)
                if b.refs:
                    p.add_run(" " + cite(b.refs)).font.size = Pt(8)
            elif isinstance(b, Table):
                cap = d.add_paragraph()
                cap.add_run(b.label).bold = True
                if b.refs:
                    cap.add_run(" " + cite(b.refs)).font.size = Pt(8)
                t = d.add_table(rows=1, cols=len(b.columns))
                t.style = "Light Grid Accent 1"
                numeric = b.numeric or [False] * len(b.columns)
                for i, h in enumerate(b.columns):
                    t.rows[0].cells[i].text = h
                for row in b.rows:
                    cells = t.add_row().cells
                    for i, v in enumerate(row):
                        cells[i].text = v
                        if numeric[i]:
                            cells[i].paragraphs[0].alignment = WD_ALIGN_PARAGRAPH.RIGHT
                for r in t.rows:
                    for c in r.cells:
                        for p in c.paragraphs:
                            for run in p.runs:
                                run.font.size = Pt(8)
                if b.note:
                    d.add_paragraph(b.note).runs[0].font.size = Pt(8)
            elif isinstance(b, Figure):
                d.add_picture(io.BytesIO(figure_png(b, dpi=200)), width=Inches(6.3))
                cap = d.add_paragraph()
                cap.add_run(b.label).bold = True
                if b.refs:
                    cap.add_run(" " + cite(b.refs)).font.size = Pt(8)
    d.save(str(path))
    return path

"""HTML rendering: the Django template ``reports/report.html`` with print CSS and inline SVG figures."""

from __future__ import annotations

from typing import Any

from django.template.loader import render_to_string
from django.utils.safestring import mark_safe

from planner.reports.document import Document, cite
from planner.reports.figures import figure_svg


def html_context(doc: Document, *, editable: bool = False) -> dict[str, Any]:
    sections = []
    for s in doc.sections:
        blocks = []
        for b in s.blocks:
            item: dict[str, Any] = {"b": b, "type": b.type, "cite": cite(b.refs)}
            if b.type == "figure":
                item["svg"] = mark_safe(figure_svg(b))  # noqa: S308 - produced by matplotlib from our numbers
            if b.type == "table":
                item["cells"] = [list(zip(row, b.numeric or [False] * len(row), strict=False)) for row in b.rows]
                item["heads"] = list(zip(b.columns, b.numeric or [False] * len(b.columns), strict=False))
            blocks.append(item)
        sections.append({"s": s, "blocks": blocks})
    return {"doc": doc, "sections": sections, "editable": editable}


def render_html(doc: Document, *, standalone: bool = True) -> str:
    """The report page; ``standalone`` gives a whole HTML file (CSS inlined) for download."""
    return render_to_string("reports/report.html", {**html_context(doc), "standalone": standalone})

"""Figures of a report drawn by matplotlib: SVG (HTML, ZIP) and PNG (DOCX, ZIP). Pure: no Django.

Uses ``matplotlib.figure.Figure`` directly (no pyplot state), so it is safe in a Celery worker.
The PDF draws the same figures as ReportLab vector graphics (``render_pdf``).
"""

from __future__ import annotations

import io
import json
import math
from dataclasses import asdict
from functools import lru_cache

from matplotlib.figure import Figure as MplFigure
from matplotlib.ticker import FuncFormatter

from planner.reports.document import Figure

COLOURS = ["#1f5f99", "#d9822b", "#2a9d5c", "#b23a48", "#6c4f9c", "#7a7a7a"]


def _num(v: float, _pos: object = None) -> str:
    a = abs(v)
    if a >= 1e9:
        return f"{v / 1e9:g} G"
    if a >= 1e6:
        return f"{v / 1e6:g} M"
    if a >= 1e4:
        return f"{v / 1e3:g} k"
    return f"{v:g}"


def _clean(values: list[float | None]) -> list[float]:
    return [math.nan if v is None else float(v) for v in values]


def draw(fig: Figure, width_in: float = 7.0, height_in: float = 3.4) -> MplFigure:
    m = MplFigure(figsize=(width_in, height_in))
    m.subplots_adjust(left=0.1, right=0.98, bottom=0.16, top=0.95)  # fixed: constrained layout doubles the time
    ax = m.add_subplot()
    n = len(fig.x)
    if fig.kind == "bar":
        k = max(1, len(fig.series))
        width = 0.8 / k
        for i, s in enumerate(fig.series):
            xs = [j - 0.4 + width * (i + 0.5) for j in range(n)]
            ax.bar(xs, _clean(s.y), width=width, label=s.name, color=COLOURS[i % len(COLOURS)])
        ax.set_xticks(range(n), [str(x) for x in fig.x], fontsize=8)
    else:
        numeric = all(isinstance(x, (int, float)) for x in fig.x)
        xs = list(fig.x) if numeric else list(range(n))
        for i, s in enumerate(fig.series):
            colour = COLOURS[i % len(COLOURS)]
            if s.lo is not None and s.hi is not None:
                ax.fill_between(xs, _clean(s.lo), _clean(s.hi), color=colour, alpha=0.18, linewidth=0,
                                label=f"{s.name}: 80% interval")
            style = {"dash": "--", "step": "-"}.get(s.style, "-")
            if s.style == "step":
                ax.step(xs, _clean(s.y), where="post", color=colour, label=s.name, linewidth=1.8)
            else:
                ax.plot(xs, _clean(s.y), style, color=colour, label=s.name, linewidth=1.6,
                        marker="o" if n <= 12 else None, markersize=3)
        if not numeric:
            step = max(1, n // 10)
            ax.set_xticks(range(0, n, step), [str(fig.x[j]) for j in range(0, n, step)], fontsize=8)
        else:
            ax.set_xticks(xs, [str(x) for x in xs], fontsize=8)
    ax.yaxis.set_major_formatter(FuncFormatter(_num))
    ax.tick_params(labelsize=8)
    ax.set_xlabel(fig.x_label, fontsize=9)
    ax.set_ylabel(fig.y_label, fontsize=9)
    ax.grid(axis="y", color="#dddddd", linewidth=0.6)
    ax.set_axisbelow(True)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    ax.set_ylim(bottom=0)
    ax.legend(fontsize=8, frameon=False)
    return m


def _fig_from_json(text: str) -> Figure:
    from planner.reports.document import Series

    d = json.loads(text)
    return Figure(**{**d, "series": [Series(**s) for s in d["series"]]})


# One report draws each figure for HTML, DOCX and the ZIP: draw it once (same data -> same picture).
@lru_cache(maxsize=64)
def _svg(text: str) -> str:
    buf = io.StringIO()
    draw(_fig_from_json(text)).savefig(buf, format="svg")
    out = buf.getvalue()
    return out[out.index("<svg"):]  # drop the XML prolog and doctype: inlined in HTML


@lru_cache(maxsize=64)
def _png(text: str, dpi: int) -> bytes:
    buf = io.BytesIO()
    draw(_fig_from_json(text)).savefig(buf, format="png", dpi=dpi)
    return buf.getvalue()


def figure_svg(fig: Figure) -> str:
    return _svg(json.dumps(asdict(fig), sort_keys=True))


def figure_png(fig: Figure, dpi: int = 200) -> bytes:
    return _png(json.dumps(asdict(fig), sort_keys=True), dpi)

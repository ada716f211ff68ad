"""The report as data: sections of paragraphs, tables and figures, and the references they cite.

Pure core (no Django). A :class:`Document` round-trips through JSON (``to_dict``/``from_dict``)
so every report version stores exactly what was rendered; the three renderers read only this.
Numbers in tables are already formatted strings (what the reader sees is what every format
prints); figures keep raw numbers so each renderer can draw them as vectors.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass(slots=True)
class Reference:
    """One source a number comes from: an ingest run, a storage scan, a forecast fit, a design evaluation..."""

    key: str  # e.g. "ingest-4", "eval-2"; cited as [key]
    kind: str
    label: str
    detail: str = ""


@dataclass(slots=True)
class Paragraph:
    key: str  # stable id, the key of a narrative override
    text: str
    refs: list[str] = field(default_factory=list)
    edited: bool = False
    type: str = "paragraph"


@dataclass(slots=True)
class Table:
    key: str
    caption: str
    columns: list[str]
    rows: list[list[str]]
    refs: list[str] = field(default_factory=list)
    numeric: list[bool] = field(default_factory=list)  # right-align these columns
    note: str = ""
    number: int = 0
    type: str = "table"

    @property
    def label(self) -> str:
        return f"Table {self.number}. {self.caption}"


@dataclass(slots=True)
class Series:
    name: str
    y: list[float | None]
    lo: list[float | None] | None = None  # an interval band (p10) drawn under the line
    hi: list[float | None] | None = None  # (p90)
    style: str = "line"  # line, dash, bar, step


@dataclass(slots=True)
class Figure:
    key: str
    caption: str
    x: list[Any]  # numbers (years) or category labels
    series: list[Series]
    x_label: str = ""
    y_label: str = ""
    kind: str = "line"  # line or bar (grouped bars over categories)
    refs: list[str] = field(default_factory=list)
    number: int = 0
    type: str = "figure"

    @property
    def label(self) -> str:
        return f"Figure {self.number}. {self.caption}"


Block = Paragraph | Table | Figure


@dataclass(slots=True)
class Section:
    key: str
    title: str
    blocks: list[Block] = field(default_factory=list)
    number: int = 0

    @property
    def heading(self) -> str:
        return f"{self.number}. {self.title}" if self.number else self.title


@dataclass(slots=True)
class Document:
    title: str
    subtitle: str
    meta: dict[str, Any]
    sections: list[Section]
    references: list[Reference]

    # ---- navigation ----------------------------------------------------------------------------
    def blocks(self, type_: str | None = None) -> list[Block]:
        return [b for s in self.sections for b in s.blocks if type_ is None or b.type == type_]

    def tables(self) -> list[Table]:
        return [b for b in self.blocks("table") if isinstance(b, Table)]

    def figures(self) -> list[Figure]:
        return [b for b in self.blocks("figure") if isinstance(b, Figure)]

    def paragraphs(self) -> list[Paragraph]:
        return [b for b in self.blocks("paragraph") if isinstance(b, Paragraph)]

    def reference(self, key: str) -> Reference | None:
        return next((r for r in self.references if r.key == key), None)

    def number(self) -> Document:
        """Number sections, tables and figures in reading order (call once the content is final)."""
        t = f = 0
        for i, s in enumerate(self.sections, start=1):
            s.number = i
            for b in s.blocks:
                if isinstance(b, Table):
                    t += 1
                    b.number = t
                elif isinstance(b, Figure):
                    f += 1
                    b.number = f
        return self

    # ---- JSON ----------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Document:
        sections = []
        for s in d["sections"]:
            blocks: list[Block] = []
            for b in s["blocks"]:
                kind = b.get("type")
                if kind == "table":
                    blocks.append(Table(**b))
                elif kind == "figure":
                    series = [Series(**x) for x in b["series"]]
                    blocks.append(Figure(**{**b, "series": series}))
                else:
                    blocks.append(Paragraph(**b))
            sections.append(Section(key=s["key"], title=s["title"], blocks=blocks, number=s.get("number", 0)))
        refs = [Reference(**r) for r in d["references"]]
        return cls(title=d["title"], subtitle=d["subtitle"], meta=dict(d.get("meta") or {}),
                   sections=sections, references=refs)


def cite(refs: list[str]) -> str:
    """The in-text citation of a block's sources: "[ingest-4, eval-2]"."""
    return f"[{', '.join(refs)}]" if refs else ""


# ---- number formatting (one place, so every format prints the same digits) ----------------------
def fmt_int(v: float | None) -> str:
    return "–" if v is None else f"{round(v):,}"


def fmt_num(v: float | None, digits: int = 1) -> str:
    return "–" if v is None else f"{v:,.{digits}f}"


def fmt_tf(v: float | None) -> str:
    """Peak teraflops: whole above 10, two significant figures below (a 159-node SP2 is 0.32 TF, not "0")."""
    return "–" if v is None else f"{v:,.0f}" if abs(v) >= 10 else f"{v:.2g}"


def fmt_figs(v: float | None) -> str:
    """Whole units from 100 up, three significant figures below: the pages' ``figs`` style, for a figure that spans
    scales (a small lab's 0.0422 genomes a day is not "0.0", nor the study's 6.86 a day "7")."""
    return "–" if v is None else f"{v:,.0f}" if abs(v) >= 100 else f"{v:.3g}"


def fmt_millions(v: float | None, digits: int = 1) -> str:
    return "–" if v is None else f"{v / 1e6:,.{digits}f} M"


def fmt_pct(v: float | None, digits: int = 0) -> str:
    return "–" if v is None else f"{v * 100:.{digits}f}%"


def fmt_usd(v: float | None) -> str:
    return "–" if v is None else f"${v:,.0f}"


def fmt_x(v: float | None) -> str:
    return "–" if v is None else f"{v:.2f}x"


def fmt_bytes(v: float | None) -> str:
    """A size in decimal units (1 MB = 10^6 bytes), the product's storage convention (forecasts/units.py)."""
    if v is None:
        return "–"
    for unit, size in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if abs(v) >= size:
            return f"{v / size:,.1f} {unit}"
    return f"{v:,.0f} B"


def fmt_iec(v: float) -> str:
    """A power-of-two size (a small-file threshold, a file-system sub-block) in binary units: "32 KiB"."""
    for unit, size in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if abs(v) >= size:
            return f"{v / size:,.3g} {unit}"
    return f"{v:,.0f} B"

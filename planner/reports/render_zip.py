"""ZIP of every figure (SVG and PNG via matplotlib) and every table (CSV), plus the document JSON."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

from planner.reports.document import Document
from planner.reports.figures import figure_png, figure_svg
from planner.web.spreadsheet import safe_writer


def render_zip(doc: Document, path: Path) -> Path:
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as z:
        for f in doc.figures():
            stem = f"figures/figure_{f.number:02d}_{f.key}"
            z.writestr(f"{stem}.svg", figure_svg(f))
            z.writestr(f"{stem}.png", figure_png(f, dpi=200))
        for t in doc.tables():
            buf = io.StringIO()
            w = safe_writer(buf)
            w.writerow(t.columns)
            w.writerows(t.rows)
            z.writestr(f"tables/table_{t.number:02d}_{t.key}.csv", buf.getvalue())
        index = [{"file": f"figures/figure_{f.number:02d}_{f.key}", "caption": f.label} for f in doc.figures()]
        index += [{"file": f"tables/table_{t.number:02d}_{t.key}.csv", "caption": t.label} for t in doc.tables()]
        z.writestr("index.json", json.dumps(index, indent=1))
        z.writestr("document.json", json.dumps(doc.to_dict(), indent=1))
    return path

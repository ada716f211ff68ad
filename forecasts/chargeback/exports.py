"""Statement exports: CSV and XLSX (every line, for pasting into a ledger) and a printable PDF."""

from __future__ import annotations

import io
from decimal import Decimal
from typing import Any

from forecasts.chargeback.models import Statement, StatementLine
from planner.web.spreadsheet import safe_writer

COLUMNS = ("kind", "project", "pi", "user", "cluster", "queue", "qos", "filesystem", "tier", "jobs", "core_hours",
           "gpu_hours", "mem_gb_hours", "tb", "rate", "multiplier", "amount_usd")


def _header(statement: Statement) -> list[tuple[str, str]]:
    return [
        ("department", f"{statement.department.name} ({statement.department.code})"),
        ("month", f"{statement.month:%Y-%m}"),
        ("months", "UTC calendar months by job end: a job is billed whole in the month it ended in"),
        ("status", f"PROVISIONAL: {statement.provisional_reason}" if statement.is_provisional else "final"),
        ("version", f"{statement.version}{'' if statement.is_current else ' (superseded)'}"),
        ("rate plan", statement.plan_name),
        ("computed", f"{statement.computed_at:%Y-%m-%d %H:%M} UTC"),
        ("core_hours", f"{statement.core_hours:.4f}"),
        ("total_usd", str(statement.total_usd)),
        # what the page and the PDF say a reader must know (a scan carried forward, usage with no rate...)
        *(("note", note) for note in statement.notes or []),
    ]


def _row(line: StatementLine) -> list[Any]:
    return [line.kind, line.project_name, line.pi, line.user, line.cluster, line.queue, line.qos, line.filesystem,
            line.tier, line.jobs, round(line.core_hours, 4), round(line.gpu_hours, 4), round(line.mem_gb_hours, 4),
            round(line.tb, 6), line.rate, line.multiplier, line.amount_usd]


def _append_as_text(ws: Any, row: list[Any]) -> None:
    """Append a row whose strings stay strings (openpyxl stores a leading '=' as a live formula)."""
    ws.append(row)
    for cell in ws[ws.max_row]:
        if isinstance(cell.value, str):
            cell.data_type = "s"


def statement_csv(statement: Statement, lines: list[StatementLine]) -> str:
    out = io.StringIO()
    writer = safe_writer(out)
    for key, value in _header(statement):
        writer.writerow([f"# {key}", value])
    writer.writerow(COLUMNS)
    for line in lines:
        writer.writerow(_row(line))
    writer.writerow(["total", *[""] * (len(COLUMNS) - 2), sum((ln.amount_usd for ln in lines), Decimal(0))])
    return out.getvalue()


def statement_xlsx(statement: Statement, lines: list[StatementLine]) -> bytes:
    from openpyxl import Workbook
    from openpyxl.styles import Font

    wb = Workbook()
    ws = wb.active
    ws.title = f"{statement.department.code} {statement.month:%Y-%m}"[:31]
    for key, value in _header(statement):
        _append_as_text(ws, [key, value])
    ws.append([])
    ws.append(list(COLUMNS))
    header_row = ws.max_row
    for cell in ws[header_row]:
        cell.font = Font(bold=True)
    for line in lines:
        row = _row(line)
        row[15] = float(row[15])
        row[16] = float(row[16])
        _append_as_text(ws, row)
    first, last = header_row + 1, ws.max_row
    ws.append(["total"] + [None] * (len(COLUMNS) - 2) + [f"=SUM(Q{first}:Q{last})" if lines else 0])
    ws[f"Q{ws.max_row}"].font = Font(bold=True)
    for row in ws.iter_rows(min_row=first, max_row=ws.max_row, min_col=17, max_col=17):
        for cell in row:
            cell.number_format = '"$"#,##0.00'
    for column, width in zip("ABCDEFGHIJKLMNOPQ", (10, 24, 20, 12, 10, 12, 10, 12, 8, 8, 12, 10, 12, 10, 36, 10, 12),
                             strict=True):
        ws.column_dimensions[column].width = width
    out = io.BytesIO()
    wb.save(out)
    return out.getvalue()


def statement_pdf(statement: Statement, breakdown: dict[str, Any], top_jobs: list[Any], *,
                  institution: str = "", project_label: str = "") -> bytes:
    """A printable statement: header, totals, by project/PI, by queue, by user, largest jobs, notes."""
    from reportlab.lib import colors
    from reportlab.lib.pagesizes import letter
    from reportlab.lib.styles import getSampleStyleSheet
    from reportlab.lib.units import inch
    from reportlab.platypus import Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle

    styles = getSampleStyleSheet()
    out = io.BytesIO()
    doc = SimpleDocTemplate(out, pagesize=letter, leftMargin=0.7 * inch, rightMargin=0.7 * inch,
                            topMargin=0.7 * inch, bottomMargin=0.7 * inch,
                            title=f"Chargeback statement {statement.department.name} {statement.month:%Y-%m}")
    def money(value: Any) -> str:  # "-$5.94", as the page's "−$5.94" (the PDF's font has no minus sign), not "$-5.94"
        return f"-${-value:,.2f}" if value < 0 else f"${value:,.2f}"

    provisional = f" &middot; <b>PROVISIONAL: {statement.provisional_reason}</b>" if statement.is_provisional else ""
    story: list[Any] = [
        Paragraph(institution or "Research computing", styles["Normal"]),
        Paragraph(f"Chargeback statement: {statement.department.name}", styles["Title"]),
        Paragraph(f"{statement.month:%B %Y} (UTC calendar month by job end)"
                  + provisional
                  + f" &middot; version {statement.version}"
                  f"{'' if statement.is_current else ' (superseded)'} &middot; rate plan: {statement.plan_name}"
                  + (f" &middot; project: {project_label}" if project_label else ""), styles["Normal"]),
        Spacer(1, 12),
    ]

    def table(rows: list[list[Any]], widths: list[float] | None = None) -> Table:
        t = Table(rows, colWidths=widths, repeatRows=1, hAlign="LEFT")
        t.setStyle(TableStyle([
            ("FONT", (0, 0), (-1, 0), "Helvetica-Bold", 8), ("FONT", (0, 1), (-1, -1), "Helvetica", 8),
            ("LINEBELOW", (0, 0), (-1, 0), 0.5, colors.grey), ("ALIGN", (1, 0), (-1, -1), "RIGHT"),
            ("ROWBACKGROUNDS", (0, 1), (-1, -1), [colors.white, colors.HexColor("#f3f5f8")]),
        ]))
        return t

    summary = [["", "amount"], ["Compute", money(statement.compute_usd)], ["Storage", money(statement.storage_usd)],
               ["Subsidy", money(statement.subsidy_usd)], ["Cap", money(statement.cap_usd)],
               ["Total charged", money(statement.total_usd)]]
    story += [Paragraph(f"Total charged: {money(statement.total_usd)} for {statement.core_hours:,.1f} core-hours "
                        f"and {statement.jobs:,} jobs", styles["Heading2"]), table(summary, [2.5 * inch, 1.3 * inch]),
              Spacer(1, 10)]
    if project_label:
        story.append(Paragraph("The department's subsidy and cap apply to the department's total; the project's "
                               "lines are shown before them.", styles["Italic"]))
    sections = [
        ("By project / PI", ["project", "PI", "jobs", "core-hours", "amount"],
         [[p["project_name"] or "(no project)", p["pi"], f"{p['jobs']:,}", f"{p['core_hours']:,.1f}",
           money(p["amount_usd"])] for p in breakdown["projects"]]),
        ("By queue and QOS", ["cluster / queue / QOS", "rate", "x", "core-hours", "amount"],
         [[f"{q['cluster']} / {q['queue']} / {q['qos']}", Paragraph(q["rate"], styles["BodyText"]),
           f"{q['multiplier'].normalize():f}", f"{q['core_hours']:,.1f}", money(q["amount_usd"])]
          for q in breakdown["queues"]]),
        ("By user", ["user", "project", "jobs", "core-hours", "amount"],
         [[u["user"], u["project_name"], f"{u['jobs']:,}", f"{u['core_hours']:,.1f}", money(u["amount_usd"])]
          for u in breakdown["users"][:60]]),
        ("Storage", ["file system / tier", "project", "TB-month", "rate", "amount"],
         [[f"{s.filesystem} / {s.tier}", s.project_name, f"{s.tb:,.3f}", s.rate, money(s.amount_usd)]
          for s in breakdown["storage"]]),
        ("Largest jobs", ["job", "user / project", "queue / QOS", "core-hours", "amount"],
         [[f"{j.cluster}:{j.job_id}", f"{j.user} / {j.project_name}", f"{j.queue} / {j.qos}",
           f"{j.core_hours:,.1f}", money(j.amount_usd)] for j in top_jobs]),
    ]
    for title, head, rows in sections:
        if not rows:
            continue
        story += [Paragraph(title, styles["Heading3"]), table([head, *rows]), Spacer(1, 8)]
    for note in statement.notes:
        story.append(Paragraph(f"Note: {note}", styles["Italic"]))
    story.append(Paragraph(
        "Core-hours are allocated cores x wall hours, equal to the usage rollups for this department and month. "
        "Each job is charged on the largest of its CPU, memory and GPU equivalents times its QOS multiplier; "
        "lines are rounded to cents so that they add up exactly to the total.", styles["Italic"]))
    doc.build(story)
    return out.getvalue()

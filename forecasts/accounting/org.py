"""Organisation services: identity mappings from CSV, and re-attribution of usage.

Re-attribution rewrites only the monthly rollups' department/project (thousands of
rows), never the jobs: a mapping added today changes history's attribution at once,
without re-reading any log.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from datetime import date

from django.db import connection, transaction
from django.dispatch import Signal

from forecasts.accounting.load import ATTRIBUTION_LATERAL, unassigned_department
from forecasts.accounting.models import Department, IdentityMapping, Project

MAPPING_COLUMNS = ("kind", "name", "department", "project", "valid_from", "valid_to")


@dataclass
class MappingImport:
    read: int = 0
    created: int = 0
    updated: int = 0
    rejected: int = 0
    errors: list[str] = field(default_factory=list)
    reattributed_rows: int = 0

    def summary(self) -> dict[str, object]:
        return {"read": self.read, "created": self.created, "updated": self.updated,
                "rejected": self.rejected, "errors": self.errors[:50],
                "reattributed_rows": self.reattributed_rows}


def _date(value: str, default: date | None) -> date | None:
    value = value.strip()
    return date.fromisoformat(value) if value else default


def mappings_import_csv(text: str, *, filename: str = "mappings.csv") -> MappingImport:
    """Load ``kind,name,department,project,valid_from,valid_to`` rows; bad rows are reported by line.

    department and project are matched by code/name; a project's department is used when
    the department column is empty.  Existing (kind, name, valid_from) rows are updated.
    """
    result = MappingImport()
    reader = csv.DictReader(io.StringIO(text))
    missing = [c for c in ("kind", "name") if c not in (reader.fieldnames or [])]
    if missing:
        raise ValueError(f"{filename}: header must have columns {', '.join(MAPPING_COLUMNS)}; missing {missing}")
    departments = {d.code: d for d in Department.objects.all()} | {d.name: d for d in Department.objects.all()}
    projects = {p.name: p for p in Project.objects.select_related("department")}
    with transaction.atomic():
        for line, row in enumerate(reader, start=2):
            result.read += 1
            try:
                kind = (row.get("kind") or "").strip().lower()
                if kind not in IdentityMapping.Kind.values:
                    raise ValueError(f"kind {kind!r} must be one of account, user, group")
                name = (row.get("name") or "").strip()
                if not name:
                    raise ValueError("name is empty")
                project = None
                if pname := (row.get("project") or "").strip():
                    project = projects.get(pname)
                    if project is None:
                        raise ValueError(f"unknown project {pname!r}")
                dname = (row.get("department") or "").strip()
                department = departments.get(dname) if dname else (project.department if project else None)
                if department is None:
                    raise ValueError(f"unknown department {dname!r}" if dname else "department or project needed")
                valid_from = _date(row.get("valid_from") or "", date(1970, 1, 1))
                valid_to = _date(row.get("valid_to") or "", None)
                if valid_to and valid_from and valid_to < valid_from:
                    raise ValueError("valid_to is before valid_from")
            except ValueError as exc:
                result.rejected += 1
                result.errors.append(f"{filename}, line {line}: {exc}")
                continue
            _, created = IdentityMapping.objects.update_or_create(
                kind=kind, name=name, valid_from=valid_from,
                defaults={"department": department, "project": project, "valid_to": valid_to},
            )
            result.created += created
            result.updated += not created
        result.reattributed_rows = usage_reattribute()
    return result


# Sent when re-attribution moved usage rows between departments or projects (``rows_moved``).
# Downstream sub-domains that price or cache usage listen (chargeback re-prices, wired in
# forecasts.apps), so accounting never imports them.
attribution_changed = Signal()


def usage_reattribute(*, reprice: bool = True) -> int:
    """Recompute every rollup row's department and project from the current mappings.

    When usage moved between departments and statements exist, they are re-priced in the
    background (new statement versions; the previous ones are kept).
    """
    unassigned = unassigned_department().pk
    sql = f"""
        UPDATE forecasts_usagemonthly u SET department_id = r.department_id, project_id = r.project_id
        FROM (
            SELECT u2.id, COALESCE(attr.department_id, %(unassigned)s) AS department_id, attr.project_id
            FROM forecasts_usagemonthly u2 JOIN forecasts_identity i ON i.id = u2.identity_id
            {ATTRIBUTION_LATERAL.format(month="u2.month")}
        ) r
        WHERE u.id = r.id AND (u.department_id <> r.department_id OR u.project_id IS DISTINCT FROM r.project_id)
    """
    with connection.cursor() as cursor:
        cursor.execute(sql, {"unassigned": unassigned})
        moved = cursor.rowcount
    if moved and reprice:
        attribution_changed.send(sender=usage_reattribute, rows_moved=moved)
    return moved

"""Catalog services: load the catalog YAML into the database, CSV export/import, DB rows -> core Catalog.

The database is the catalog a planner edits (pages and admin); :func:`catalog_from_db` turns its rows
into the pure-core :class:`planner.hardware.catalog.Catalog` every evaluation and optimisation runs on, so an
edit takes effect at the next evaluation. Loading is idempotent: rows are matched by name (node types,
storage systems) or by the natural key pipeline x node x storage x samples (benchmarks).
"""

from __future__ import annotations

import csv
import dataclasses
import io
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import yaml
from django.db import transaction

from planner.hardware import catalog as core
from planner.hardware.models import Benchmark, NodeType, StorageSystem
from planner.web.spreadsheet import safe_writer
from planner.web.textfiles import UploadTextError, upload_text

DEFAULT_CATALOG = Path(__file__).resolve().parents[2] / "fixtures" / "catalog.yaml"

NODE_FIELDS = [f.name for f in dataclasses.fields(core.NodeType)]
STORAGE_FIELDS = [f.name for f in dataclasses.fields(core.StorageSystem)]
BENCHMARK_FIELDS = [f.name for f in dataclasses.fields(core.Benchmark)]

# What each CSV file holds: (model, column order, core dataclass).
KINDS: dict[str, tuple[Any, list[str], type]] = {
    "node_types": (NodeType, NODE_FIELDS, core.NodeType),
    "storage_systems": (StorageSystem, STORAGE_FIELDS, core.StorageSystem),
    "benchmarks": (Benchmark, BENCHMARK_FIELDS, core.Benchmark),
}


class CatalogImportError(ValueError):
    """A catalog file cannot be loaded; the message names the file, line and field."""


# ---- DB -> core ------------------------------------------------------------------------------------
def _row_values(obj: Any, names: list[str]) -> dict[str, Any]:
    out = {}
    for name in names:
        if name in ("node_type", "storage_system"):
            out[name] = getattr(obj, name).name
        else:
            out[name] = getattr(obj, name)
    return out


def catalog_from_db() -> core.Catalog:
    """The catalog as stored now (pages and admin edit it); raises CatalogImportError when empty."""
    cat = core.Catalog(source_path="database")
    for n in NodeType.objects.all():
        cat.node_types[n.name] = core.NodeType(**_row_values(n, NODE_FIELDS))
    for s in StorageSystem.objects.all():
        cat.storage_systems[s.name] = core.StorageSystem(**_row_values(s, STORAGE_FIELDS))
    for b in Benchmark.objects.select_related("node_type", "storage_system"):
        cat.benchmarks.append(core.Benchmark(**_row_values(b, BENCHMARK_FIELDS)))
    if not cat.node_types or not cat.storage_systems:
        raise CatalogImportError(
            "the hardware catalog is empty: run `python manage.py import_catalog fixtures/catalog.yaml` "
            "or `python manage.py load_demo`"
        )
    return cat


def catalog_counts() -> dict[str, int]:
    return {"node_types": NodeType.objects.count(), "storage_systems": StorageSystem.objects.count(),
            "benchmarks": Benchmark.objects.count()}


# ---- core -> DB ------------------------------------------------------------------------------------
def _upsert(model: Any, lookup: dict[str, Any], values: dict[str, Any]) -> str:
    """Create the row, update it when a value differs, or leave it alone: "created", "updated" or "unchanged".

    An unchanged row is not saved again, so its ``updated_at`` and the audit trail stay true and an
    import's confirmation counts only what it changed."""
    obj = model.objects.filter(**lookup).first()
    if obj is None:
        model.objects.create(**lookup, **values)
        return "created"
    changed = [name for name, value in values.items() if getattr(obj, name) != value]
    if not changed:
        return "unchanged"
    for name in changed:
        setattr(obj, name, values[name])
    obj.save(update_fields=[*changed, "updated_at"])
    return "updated"


def _save(cat: core.Catalog) -> dict[str, dict[str, int]]:
    stats = {k: {"created": 0, "updated": 0, "unchanged": 0} for k in KINDS}
    for n in cat.node_types.values():
        vals = dataclasses.asdict(n)
        stats["node_types"][_upsert(NodeType, {"name": vals.pop("name")}, vals)] += 1
    for s in cat.storage_systems.values():
        vals = dataclasses.asdict(s)
        stats["storage_systems"][_upsert(StorageSystem, {"name": vals.pop("name")}, vals)] += 1
    nodes = {n.name: n for n in NodeType.objects.all()}
    stores = {s.name: s for s in StorageSystem.objects.all()}
    for b in cat.benchmarks:
        vals = dataclasses.asdict(b)
        key = {"pipeline": vals.pop("pipeline"), "node_type": nodes[vals.pop("node_type")],
               "storage_system": stores[vals.pop("storage_system")], "samples": vals.pop("samples")}
        stats["benchmarks"][_upsert(Benchmark, key, vals)] += 1
    return stats


@transaction.atomic
def catalog_load_yaml(path: str | Path = DEFAULT_CATALOG) -> dict[str, Any]:
    """Load a catalog YAML (validated by the core first) into the database, idempotently."""
    try:
        cat = core.load_catalog(path)
    except (core.CatalogError, yaml.YAMLError, OSError) as exc:
        said = str(exc)  # the core names the file itself where it knows the line
        raise CatalogImportError(said if said.startswith(str(path)) else f"{path}: {said}") from exc
    return {"file": str(path), **_save(cat)}


# ---- CSV -------------------------------------------------------------------------------------------
def catalog_export_csv(kind: str) -> str:
    """One kind of catalog row as CSV text (header = field names, the import format)."""
    model, names, _ = KINDS[kind]
    buf = io.StringIO()
    writer = safe_writer(buf)
    writer.writerow(names)
    qs = model.objects.all()
    if kind == "benchmarks":
        qs = qs.select_related("node_type", "storage_system")
    for obj in qs:
        vals = _row_values(obj, names)
        writer.writerow([_cell(vals[n]) for n in names])
    return buf.getvalue()


def _cell(value: Any) -> Any:
    """None -> '', 6500.0 -> 6500 (so a spreadsheet shows what the catalog file says)."""
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def _convert(cls: type, name: str, text: str) -> Any:
    """A CSV cell to the dataclass field's type; '' is None for optional fields."""
    ftype = str({f.name: f.type for f in dataclasses.fields(cls)}[name])  # type: ignore[arg-type]
    text = text.strip()
    if text == "":
        if "None" in ftype:
            return None
        if ftype == "str":
            return ""
        raise ValueError("required")
    if ftype.startswith("bool"):
        if text.lower() in ("1", "true", "yes"):
            return True
        if text.lower() in ("0", "false", "no"):
            return False
        raise ValueError(f"expected true or false, got {text!r}")
    if ftype.startswith("int"):
        try:
            val = float(text)
        except ValueError:
            raise ValueError(f"expected a whole number, got {text!r}") from None
        if not val.is_integer():
            raise ValueError(f"expected a whole number, got {text!r}")
        return int(val)
    if ftype.startswith("float"):
        try:
            return float(text)
        except ValueError:
            raise ValueError(f"expected a number, got {text!r}") from None
    return text


def _read_csv(kind: str, text: str, filename: str) -> list[dict[str, Any]]:
    _, names, cls = KINDS[kind]
    reader = csv.DictReader(io.StringIO(text))
    header = reader.fieldnames or []
    unknown = [h for h in header if h not in names]
    if unknown:
        raise CatalogImportError(f"{filename} line 1: unknown column(s) {', '.join(unknown)} "
                                 f"(expected {', '.join(names)})")
    required = {f.name for f in dataclasses.fields(cls)
                if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING}
    missing = sorted(required - set(header))
    if missing:
        raise CatalogImportError(f"{filename} line 1: missing column(s) {', '.join(missing)}")
    rows = []
    for row in reader:
        line = reader.line_num
        raw: dict[str, Any] = {}
        for name, cell in row.items():
            if name is None:
                raise CatalogImportError(f"{filename} line {line}: more cells than columns")
            try:
                val = _convert(cls, name, cell or "")
            except ValueError as exc:
                raise CatalogImportError(f"{filename} line {line}, field {name}: {exc}") from None
            if val is not None or name not in required:
                raw[name] = val
        rows.append({"line": line, "raw": raw})
    return rows


# Columns only one kind has: a header that lost one required column is still recognised, so the import can
# name the missing column instead of saying it cannot tell what the file holds.
_OWN_COLUMNS = {
    "benchmarks": set(BENCHMARK_FIELDS) - set(NODE_FIELDS) - set(STORAGE_FIELDS),
    "node_types": set(NODE_FIELDS) - set(STORAGE_FIELDS) - set(BENCHMARK_FIELDS),
    "storage_systems": set(STORAGE_FIELDS) - set(NODE_FIELDS) - set(BENCHMARK_FIELDS),
}


KIND_WORDS = {"node_types": "node type", "storage_systems": "storage system", "benchmarks": "benchmark"}


def _key_words(key: Any) -> str:
    """A row's key as a person reads it: 'epyc-9554', or 'pipeline x node x storage x 8 samples'."""
    if isinstance(key, tuple):
        pipeline, node, storage, samples = key
        return f"{pipeline!r} on {node} with {storage}, {samples} sample{'' if samples == 1 else 's'}"
    return repr(key)


def sniff_kind(text: str, filename: str = "CSV") -> str:
    """Which catalog kind a CSV holds, from its header: the kind with the most columns of its own."""
    if not text.strip():
        raise CatalogImportError(f"{filename} line 1: the file is empty: nothing to import (export a CSV from "
                                 "the Hardware page to see the columns)")
    header = {h.strip() for h in next(csv.reader(io.StringIO(text)), [])}
    score = {kind: len(header & own) for kind, own in _OWN_COLUMNS.items()}
    best = max(score.values())
    kinds = [k for k, v in score.items() if v == best]
    if best == 0 or len(kinds) > 1:
        raise CatalogImportError(f"{filename} line 1: cannot tell node types, storage systems or benchmarks "
                                 "from the header (export one from the Hardware page to see the columns)")
    return kinds[0]


@transaction.atomic
def catalog_import_csv(text: str, *, filename: str = "upload.csv", kind: str | None = None) -> dict[str, Any]:
    """Import node types, storage systems or benchmarks from CSV; all rows or none.

    Each row is validated by the core catalog rules against the current database catalog (a benchmark
    must name a known node type and storage system); errors name the file, line and field.
    """
    kind = kind or sniff_kind(text, filename)
    rows = _read_csv(kind, text, filename)
    try:
        current = catalog_from_db()
    except CatalogImportError:
        current = core.Catalog()
    data = current.to_dict()
    key_of = {"node_types": lambda r: r.get("name"), "storage_systems": lambda r: r.get("name"),
              "benchmarks": lambda r: (r.get("pipeline"), r.get("node_type"), r.get("storage_system"),
                                       r.get("samples", 1))}[kind]
    existing = {key_of(r): i for i, r in enumerate(data[kind])}
    seen: dict[Any, int] = {}  # key -> the line of the file that gave it
    for row in rows:
        raw = row["raw"]
        if key_of(raw) in seen:  # the later row silently replaced the earlier one (a node type's cores, price)
            raise CatalogImportError(f"{filename} line {row['line']}: duplicate {KIND_WORDS[kind]} "
                                     f"{_key_words(key_of(raw))} (also on line {seen[key_of(raw)]}); "
                                     "nothing was imported")
        seen[key_of(raw)] = row["line"]
        try:
            one = {"node_types": data["node_types"], "storage_systems": data["storage_systems"],
                   "benchmarks": []} | {kind: [raw]}
            core.catalog_from_dict(one)
        except core.CatalogError as exc:
            msg = str(exc).split(": ", 1)[-1]
            field = str(exc).split(":", 1)[0].rsplit(".", 1)[-1] if "." in str(exc).split(":", 1)[0] else ""
            where = f"{filename} line {row['line']}" + (f", field {field}" if field else "")
            raise CatalogImportError(f"{where}: {msg}") from None
        if key_of(raw) in existing:
            data[kind][existing[key_of(raw)]] = raw
        else:
            existing[key_of(raw)] = len(data[kind])
            data[kind].append(raw)
    stats = _save(core.catalog_from_dict({k: (data[k] if k == kind else []) for k in KINDS}
                                         | ({"node_types": data["node_types"],
                                             "storage_systems": data["storage_systems"]}
                                            if kind == "benchmarks" else {})))
    # Rows of the file that changed nothing: the whole kind is saved (so a benchmark sees its node
    # types), but the confirmation speaks of the file's rows only.
    unchanged = len(rows) - stats[kind]["created"] - stats[kind]["updated"]
    return {"file": filename, "kind": kind, "rows": len(rows), **stats[kind], "unchanged": unchanged}


def catalog_import_path(path: str | Path) -> dict[str, Any]:
    """Import a .yaml/.yml catalog or a .csv of one kind (what `import_catalog` calls)."""
    p = Path(path)
    if not p.is_file():
        raise CatalogImportError(f"{p}: file not found")
    if p.suffix.lower() in (".yaml", ".yml"):
        return catalog_load_yaml(p)
    if p.suffix.lower() == ".csv":
        try:  # the page's rule: not UTF-8 is refused with the line it happens on
            text = upload_text(p.read_bytes(), p.name)
        except UploadTextError as exc:
            raise CatalogImportError(str(exc)) from None
        return catalog_import_csv(text, filename=p.name)
    raise CatalogImportError(f"{p}: expected a .yaml, .yml or .csv file")


def as_rows(items: Iterable[Any], names: list[str]) -> list[dict[str, Any]]:
    return [_row_values(i, names) for i in items]

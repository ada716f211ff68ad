"""The layout holds: one package per sub-domain, imports flow one way, no cycles, small modules.

Read statically (ast), so an import inside a function counts as much as one at the top:
a cycle hidden in a function body is still a cycle a reader has to untangle.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
APPS = ("forecasts", "planner")

# Sub-domains in the order data flows (DESIGN.md): a package may import from its own rank and
# below, never above. Same-rank imports are allowed as long as they make no cycle.
RANKS = {
    "forecasts.accounting": 0,
    "forecasts.usage": 1,
    "forecasts.workload": 1,
    "forecasts.storage": 1,
    "forecasts.chargeback": 2,
    "forecasts.demand": 2,
    "planner.hardware": 3,
    "planner.designs": 4,
    "planner.replay": 5,
    "planner.reports": 6,
}
# Pure cores: the arithmetic a planner can import from a notebook (no Django).
PURE_CORE = [
    "forecasts/accounting/parsers",
    "forecasts/storage/parsers.py",
    "forecasts/storage/scan",
    "forecasts/storage/stats.py",
    "forecasts/storage/facts.py",
    "forecasts/storage/display.py",
    "forecasts/workload/core.py",
    "forecasts/demand/growth",
    "forecasts/demand/engine",
    "forecasts/demand/sequencing.py",
    "forecasts/demand/horizon.py",
    "forecasts/demand/storage_series.py",
    "forecasts/demand/fit_inputs.py",
    "forecasts/chargeback/rates.py",
    "forecasts/chargeback/months.py",
    "forecasts/units.py",
    "planner/access/rules.py",
    "planner/web/methods.py",
    "planner/hardware/catalog.py",
    "planner/hardware/costmodel.py",
    "planner/hardware/performance.py",
    "planner/hardware/perf_inputs.py",
    "planner/hardware/calibration.py",
    "planner/hardware/rates.py",
    "planner/hardware/design_model.py",
    "planner/designs/genomes.py",
    "planner/designs/explain.py",
    "planner/designs/labels.py",
    "planner/designs/compare_why.py",
    "planner/designs/binding.py",
    "planner/hardware/report.py",
    "planner/hardware/limits.py",
    "planner/hardware/labels.py",
    "planner/hardware/site_check.py",
    "planner/reports/builder.py",
    "planner/reports/projections.py",
    "planner/reports/supply.py",
    "planner/designs/capacity.py",
    "planner/designs/optimize.py",
    "planner/designs/prices.py",
    "planner/designs/scenario.py",
    "planner/designs/sensitivity.py",
    "planner/designs/chance.py",
    "planner/designs/service_level.py",
    "planner/designs/confidence.py",
    "planner/designs/inventory.py",
    "forecasts/demand/paths.py",
    "planner/replay/workload.py",
    "planner/replay/engine.py",
    "planner/replay/kernel_pool.py",
    "planner/replay/kernel_nodes.py",
    "planner/replay/kernel_pool_one.py",
    "planner/replay/kernel_skip.py",
    "planner/replay/summary.py",
    "planner/replay/future.py",
    "planner/replay/swf_jobs.py",
    "planner/replay/bench.py",
]
MAX_LINES = 520


def _modules() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for app in APPS:
        for path in (ROOT / app).rglob("*.py"):
            rel = path.relative_to(ROOT)
            if "migrations" in rel.parts:
                continue
            parts = list(rel.with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join(parts)] = path
    return found


MODULES = _modules()


def _resolve(name: str) -> str | None:
    """The project module an imported name lands in (a.b.c -> the longest existing prefix)."""
    parts = name.split(".")
    while parts:
        candidate = ".".join(parts)
        if candidate in MODULES:
            return candidate
        parts.pop()
    return None


def _imports(module: str) -> set[str]:
    path = MODULES[module]
    tree = ast.parse(path.read_text(), filename=str(path))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    targets: set[str] = set()
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            names = [f"{base}.{alias.name}" for alias in node.names] + [base]
        for name in names:
            target = _resolve(name)
            if target and target != module and name.split(".")[0] in APPS:
                targets.add(target)
    return targets


GRAPH = {module: _imports(module) for module in MODULES}


def _cycles() -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in GRAPH[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(GRAPH):
        if v not in index:
            visit(v)
    return found


def _subdomain(module: str) -> str | None:
    return next((s for s in RANKS if module == s or module.startswith(s + ".")), None)


def test_there_is_not_a_single_import_cycle() -> None:
    assert _cycles() == []


def test_the_cycle_finder_finds_a_cycle_when_there_is_one() -> None:
    saved = {k: set(v) for k, v in GRAPH.items()}
    try:
        GRAPH["forecasts.units"].add("forecasts.accounting.models")
        GRAPH["forecasts.accounting.models"].add("forecasts.units")
        assert ["forecasts.accounting.models", "forecasts.units"] in _cycles()
    finally:
        GRAPH.clear()
        GRAPH.update(saved)


def test_data_flows_one_way_between_sub_domains() -> None:
    upstream = []
    for module, targets in GRAPH.items():
        mine = _subdomain(module)
        if mine is None:
            continue
        for target in targets:
            theirs = _subdomain(target)
            if theirs is not None and RANKS[theirs] > RANKS[mine]:
                upstream.append(f"{module} imports {target} ({theirs} is downstream of {mine})")
    assert upstream == []


@pytest.mark.parametrize("core", PURE_CORE)
def test_the_pure_core_imports_nothing_from_django(core: str) -> None:
    paths = [ROOT / core] if core.endswith(".py") else sorted((ROOT / core).rglob("*.py"))
    assert paths and all(p.exists() for p in paths), core
    offenders = []
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else (
                [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            offenders += [f"{path.relative_to(ROOT)}: {n}" for n in names
                          if n.split(".")[0] in ("django", "rest_framework", "celery")]
    assert offenders == []


@pytest.mark.parametrize("app", APPS)
def test_each_app_has_fewer_than_12_files_at_its_top_level_none_named_by_sub_domain(app: str) -> None:
    files = sorted(p.name for p in (ROOT / app).iterdir() if p.is_file() and p.suffix == ".py")
    assert len(files) < 12, files
    subdomains = {s.rpartition(".")[2] for s in RANKS} | {"ingest", "forecast", "forecasting", "plans"}
    assert [f for f in files if "_" in f and f.removesuffix(".py").rpartition("_")[2] in subdomains] == []


def test_no_module_is_over_about_500_lines() -> None:
    long = {str(p.relative_to(ROOT)): n for p in MODULES.values()
            if (n := len(p.read_text().splitlines())) > MAX_LINES}
    assert long == {}

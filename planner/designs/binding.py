"""What one unit fewer would leave of each check a design meets (pure core: the year table's "binds" marker).

A constraint binds when one unit fewer of what provides it would break it (``labels.binds``): with whole nodes
and storage units a plan often meets its sizing constraint with more than a few per cent to spare (judge case
c1, 2020: core-hours 5.1 % over, yet one 4-core node fewer falls short), so a slack rule missed it. Each held
line (an existing item, a purchase) is evaluated once with one unit fewer; in each year a check it provides loses
what that unit gave. For every year and check: the least any single unit's loss takes away, and how many units
provide it. Budgets have no unit to take away: the year table keeps the slack rule for them.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

from planner.designs.capacity import Design, evaluate_design, resolve_assets


def _lines_one_fewer(design: Design, catalog: Any) -> list[tuple[str, Design]]:
    """(the unit's name, the design with one unit fewer of that line), for each line holding a unit."""
    out: list[tuple[str, Design]] = []
    for i, item in enumerate(design.existing):
        if item.count > 0 and (item.node_type or item.storage_system):
            existing = list(design.existing)
            existing[i] = dataclasses.replace(item, count=item.count - 1)
            out.append((str(item.node_type or item.storage_system), dataclasses.replace(design, existing=existing)))
    for i, p in enumerate(design.purchases):
        purchases = list(design.purchases)
        if p.count > 0 and (p.node_type or p.storage_system):
            purchases[i] = dataclasses.replace(p, count=p.count - 1)
            out.append((str(p.node_type or p.storage_system), dataclasses.replace(design, purchases=purchases)))
        elif p.flash_tb > 0:
            usable = catalog.storage(design.flash_system).usable_tb
            units = math.ceil(p.flash_tb / usable - 1e-9)
            purchases[i] = dataclasses.replace(p, flash_tb=(units - 1) * usable)
            out.append((design.flash_system, dataclasses.replace(design, purchases=purchases)))
    return out


def unit_losses(design: Design, catalog: Any) -> dict[tuple[int, str], tuple[float, int]]:
    """{(year, check name): (the least a single unit's loss takes from the check's available, the units that
    provide it)}, for the checks some unit provides; the evaluation as the design page shows it."""
    base = evaluate_design(design, catalog)
    avail = {(y.year, c.name): c.available for y in base.years for c in y.checks}
    held: dict[tuple[int, str], int] = {}  # units of each name active each year
    for a in resolve_assets(design, catalog):
        for t in design.years:
            if a.active(t):
                held[t, a.name] = held.get((t, a.name), 0) + a.count
    least: dict[tuple[int, str], float] = {}
    providers: dict[tuple[int, str], set[str]] = {}
    for name, fewer in _lines_one_fewer(design, catalog):
        for y in evaluate_design(fewer, catalog).years:
            for c in y.checks:
                key = (y.year, c.name)
                if c.name == "budget_usd" or key not in avail:
                    continue
                loss = avail[key] - c.available
                if loss <= 1e-9 * max(1.0, abs(avail[key])):
                    continue  # this unit gives the check nothing that year (or is not active then)
                least[key] = min(least.get(key, math.inf), loss)
                providers.setdefault(key, set()).add(name)
    return {key: (loss, sum(held.get((key[0], n), 0) for n in providers[key])) for key, loss in least.items()}

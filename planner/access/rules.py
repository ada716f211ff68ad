"""Groups to roles and departments: the rules, their file format and their resolution (no Django).

A rule says: members of ``group`` (as the identity provider or the directory names it,
from ``source`` "oidc", "ldap", "saml" or "any") get ``role`` and, for department viewers,
see ``departments`` (department codes).  At every sign-on the user's groups are resolved
against all rules: the strongest role wins (admin > planner > finance > department viewer)
and a viewer sees the union of the departments of every matching viewer rule.  A user
whose groups match no rule gets no role, so removing someone from a group removes the
access at their next sign-on.

File formats (import from the access page or ``manage.py import_group_mappings``)::

    # YAML: a list under "mappings"
    mappings:
      - {group: hpc-admins, role: admin}
      - {group: cn=genomics-pi,ou=groups,dc=example,dc=org, source: ldap, role: department viewer,
         departments: [ggs]}

    # CSV: header group,role,departments,source (departments separated by ";")
    group,role,departments,source
    hpc-planners,planner,,oidc
    genomics-viewers,department viewer,ggs;gen,any
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field

from planner.web.textfiles import nul_line, nul_problem, yaml_error, yaml_load

ADMIN, PLANNER, FINANCE, VIEWER = "admin", "planner", "finance", "department viewer"
ROLES = (ADMIN, PLANNER, FINANCE, VIEWER)  # strongest first
SOURCES = ("any", "oidc", "ldap", "saml")
ROLE_ALIASES = {"viewer": VIEWER, "department-viewer": VIEWER, "department_viewer": VIEWER}


class RuleError(ValueError):
    """A mapping file that cannot be read: the message names the file, line and field."""


@dataclass(frozen=True)
class Rule:
    group: str
    role: str
    departments: tuple[str, ...] = ()
    source: str = "any"

    def matches(self, group: str, source: str) -> bool:
        return self.group.casefold() == group.casefold() and self.source in ("any", source)


@dataclass(frozen=True)
class Access:
    """What a user's groups grant, and why (the rules that matched)."""

    role: str | None
    departments: tuple[str, ...] = ()
    matched: tuple[Rule, ...] = ()
    unmatched_groups: tuple[str, ...] = ()
    reasons: tuple[str, ...] = field(default=())


def resolve(groups: list[str] | tuple[str, ...], rules: list[Rule] | tuple[Rule, ...], source: str) -> Access:
    """The role and departments a user with ``groups`` (signed on through ``source``) gets."""
    matched = [r for r in rules for g in groups if r.matches(g, source)]
    matched_groups = {r.group.casefold() for r in matched}
    unmatched = tuple(g for g in groups if g.casefold() not in matched_groups)
    if not matched:
        return Access(role=None, unmatched_groups=unmatched,
                      reasons=("no group of this user is mapped to a role",))
    role = min((r.role for r in matched), key=ROLES.index)
    departments: tuple[str, ...] = ()
    if role == VIEWER:
        departments = tuple(sorted({d for r in matched if r.role == VIEWER for d in r.departments}))
    reasons = tuple(f"group {r.group!r} ({r.source}) -> {r.role}"
                    + (f" of {', '.join(r.departments)}" if r.role == VIEWER and r.departments else "")
                    for r in matched)
    return Access(role=role, departments=departments, matched=tuple(matched), unmatched_groups=unmatched,
                  reasons=reasons)


def _rule(raw: dict[str, object], where: str) -> Rule:
    group = str(raw.get("group") or "").strip()
    if not group:
        raise RuleError(f"{where}: 'group' is empty")
    role_text = str(raw.get("role") or "").strip().lower()
    role = ROLE_ALIASES.get(role_text, role_text)
    if role not in ROLES:
        raise RuleError(f"{where}: role {raw.get('role')!r} is not one of {', '.join(ROLES)}")
    source = str(raw.get("source") or "any").strip().lower()
    if source not in SOURCES:
        raise RuleError(f"{where}: source {source!r} is not one of {', '.join(SOURCES)}")
    value = raw.get("departments") or ()
    if isinstance(value, str):
        departments = tuple(d.strip() for d in value.replace(",", ";").split(";") if d.strip())
    elif isinstance(value, list | tuple):
        departments = tuple(str(d).strip() for d in value if str(d).strip())
    else:
        raise RuleError(f"{where}: 'departments' must be a list of department codes")
    if role == VIEWER and not departments:
        raise RuleError(f"{where}: a department viewer rule needs at least one department code")
    if role != VIEWER and departments:
        raise RuleError(f"{where}: departments only apply to department viewers (role is {role})")
    return Rule(group=group, role=role, departments=departments, source=source)


def parse_csv(text: str, filename: str = "mappings.csv") -> list[Rule]:
    reader = csv.DictReader(io.StringIO(text))
    missing = {"group", "role"} - set(reader.fieldnames or [])
    if missing:
        raise RuleError(f"{filename}: line 1: the header needs columns group and role "
                        f"(missing {', '.join(sorted(missing))})")
    return [_rule(row, f"{filename}: line {reader.line_num}") for row in reader]


def parse_yaml(text: str, filename: str = "mappings.yaml") -> list[Rule]:
    import yaml

    try:
        data = yaml_load(text)
    except yaml.YAMLError as exc:
        raise RuleError(yaml_error(filename, exc)) from None
    nul = nul_problem(data)  # YAML's "\0" escape: no database text can hold it
    if nul:
        raise RuleError(f"{filename}: {nul}")
    items = data.get("mappings") if isinstance(data, dict) else data
    if not isinstance(items, list):
        raise RuleError(f"{filename}: expected a list of mappings (or a 'mappings:' key holding one)")
    rules = []
    for i, item in enumerate(items, start=1):
        if not isinstance(item, dict):
            raise RuleError(f"{filename}: mapping {i}: expected group, role, departments, source")
        rules.append(_rule(item, f"{filename}: mapping {i}"))
    return rules


def parse(text: str, filename: str) -> list[Rule]:
    """Rules from a CSV or YAML file (by extension; CSV when the first line looks like a header)."""
    line = nul_line(text)
    if line is not None:
        raise RuleError(f"{filename}: line {line}: a NUL byte (a binary or damaged file)")
    name = filename.lower()
    if name.endswith((".yaml", ".yml")):
        rules = parse_yaml(text, filename)
    elif name.endswith(".csv") or text.lstrip().lower().startswith("group"):
        rules = parse_csv(text, filename)
    else:
        rules = parse_yaml(text, filename)
    seen: dict[tuple[str, str], int] = {}
    for i, r in enumerate(rules, start=1):
        key = (r.group.casefold(), r.source)
        if key in seen:
            raise RuleError(f"{filename}: mapping {i}: group {r.group!r} ({r.source}) is already mapped by mapping "
                            f"{seen[key]}")
        seen[key] = i
    return rules

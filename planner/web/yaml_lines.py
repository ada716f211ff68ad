"""Which line of a YAML (or JSON) text a field error is about (pure core; scenarios, sequencer plans).

Validation names a field by its path (``demand[0].storage_tb``); a planner fixing a 200-line file wants the
line too. :func:`field_lines` maps every path of the text's YAML (or JSON) to the line of its key or item, and
:func:`with_lines` adds ``(line N)`` to each error whose path (or the nearest enclosing one) is in the text.
"""

from __future__ import annotations

import re

import yaml

_LAST = re.compile(r"(\.[^.\[\]]+|\[\d+\])$")


def field_lines(text: str) -> dict[str, int]:
    """Field path -> 1-based line of its key (or sequence item); empty when the text does not parse."""
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        return {}
    out: dict[str, int] = {}

    def walk(node: yaml.Node | None, path: str) -> None:
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                p = f"{path}.{key.value}" if path else str(key.value)
                out.setdefault(p, key.start_mark.line + 1)
                walk(value, p)
        elif isinstance(node, yaml.SequenceNode):
            for i, value in enumerate(node.value):
                p = f"{path}[{i}]"
                out.setdefault(p, value.start_mark.line + 1)
                walk(value, p)

    walk(root, "")
    return out


def error_line(error: str, lines: dict[str, int]) -> int | None:
    """The line of the field an error names (``path: message``), or of the nearest enclosing field."""
    return path_line(error.split(": ", 1)[0].strip() if ": " in error else "", lines)


def path_line(path: str, lines: dict[str, int]) -> int | None:
    """The line of the field ``path`` (``instruments[0].counts[2].date``), or of the nearest enclosing field
    (a missing field is reported where its item starts); None when no part of it is in the text."""
    while path:
        if path in lines:
            return lines[path]
        trimmed = _LAST.sub("", path)
        if trimmed == path:
            return None
        path = trimmed
    return None


def with_lines(errors: list[str], text: str, name: str | None = None) -> list[str]:
    """Each error as ``NAME: path: message (line N)``: the field path stays first, as the format documents it."""
    lines = field_lines(text)
    out = []
    for e in errors:
        n = error_line(e, lines)
        text_ = f"{e} (line {n})" if n else e
        out.append(f"{name}: {text_}" if name else text_)
    return out

"""Where a YAML document is broken, for one-line errors that name the file, line and reason (pure core)."""

from __future__ import annotations

from typing import Any


def yaml_error(name: str, exc: Any) -> str:
    """``exc`` (a yaml.YAMLError) as "name, line L, column C: not valid YAML: problem"; without a position
    (PyYAML gives none for some errors) "name: not valid YAML: problem"."""
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    problem = getattr(exc, "problem", None) or getattr(exc, "context", None) or str(exc).splitlines()[0]
    where = f"{name}, line {mark.line + 1}, column {mark.column + 1}" if mark is not None else name
    return f"{where}: not valid YAML: {problem}"

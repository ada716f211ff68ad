"""Field values of PBS / TORQUE accounting records (pure core: imports nothing from Django).

``key=value`` attribute lists, durations, memory sizes, ``exec_host`` slot lists and
``select`` / ``nodes`` resource specs; which of them wins for cores, nodes, GPUs and memory
is decided in ``forecasts.accounting.parsers.pbs`` (see its docstring).
"""

from __future__ import annotations

import re

_MEMORY = re.compile(r"^\s*(\d+(?:\.\d*)?|\.\d+)\s*([a-zA-Z]*)\s*$")
_SPEC_INT = re.compile(r"^\d+$")

_MEM_FACTORS_MB = {
    "": 1.0 / 1048576,
    "b": 1.0 / 1048576,
    "w": 8.0 / 1048576,
    "kb": 1.0 / 1024,
    "k": 1.0 / 1024,
    "kw": 8.0 / 1024,
    "mb": 1.0,
    "m": 1.0,
    "mw": 8.0,
    "gb": 1024.0,
    "g": 1024.0,
    "gw": 8.0 * 1024,
    "tb": 1048576.0,
    "t": 1048576.0,
    "tw": 8.0 * 1048576,
    "pb": 1073741824.0,
    "p": 1073741824.0,
}


def parse_attributes(text: str) -> dict[str, str]:
    """``a=1 b='x y' c="z"`` -> ``{"a": "1", "b": "x y", "c": "z"}``.

    Tokens without ``=`` are kept with an empty value.  An unterminated quote
    runs to the end of the text.
    """
    if "'" not in text and '"' not in text:
        out: dict[str, str] = {}
        for token in text.split():
            key, _, value = token.partition("=")
            out[key] = value
        return out
    result: dict[str, str] = {}
    i, n = 0, len(text)
    while i < n:
        while i < n and text[i] in " \t":
            i += 1
        if i >= n:
            break
        eq = i
        while eq < n and text[eq] not in "= \t":
            eq += 1
        key = text[i:eq]
        if eq >= n or text[eq] != "=":
            result[key] = ""
            i = eq
            continue
        j = eq + 1
        if j < n and text[j] in "'\"":
            quote = text[j]
            close = text.find(quote, j + 1)
            if close < 0:
                result[key] = text[j + 1:]
                break
            value = text[j + 1:close]
            j = close + 1
            # a value may continue after the closing quote up to the next space
            k = j
            while k < n and text[k] not in " \t":
                k += 1
            value += text[j:k]
            result[key] = value
            i = k
        else:
            k = j
            while k < n and text[k] not in " \t":
                k += 1
            result[key] = text[j:k]
            i = k
    return result


def parse_duration(value: str) -> float | None:
    """``HH:MM:SS`` / ``D:HH:MM:SS`` / ``MM:SS`` / plain seconds / ``19:23:4`` -> seconds."""
    parts = value.strip().split(":")
    if not parts[0] and len(parts) == 1 or len(parts) > 4:
        return None
    total = 0.0
    for part, factor in zip(reversed(parts), (1, 60, 3600, 86400), strict=False):
        try:
            number = float(part) if part else 0.0
        except ValueError:
            return None
        if not number >= 0 or number == float("inf"):
            return None
        total += number * factor
    return total


def parse_memory_mb(value: str) -> float | None:
    """``2031040kb`` / ``1993mb`` / ``12.27M`` / ``15gb`` / ``4096`` (bytes) -> MB (2**20 bytes)."""
    match = _MEMORY.match(value)
    if not match:
        return None
    factor = _MEM_FACTORS_MB.get(match.group(2).lower())
    if factor is None:
        return None
    return float(match.group(1)) * factor


def exec_host_slots(exec_host: str) -> tuple[int, list[str]]:
    """Slots and distinct hosts (in order) of an exec_host string.

    ``i02n33/7+i02n33/6`` -> (2, [i02n33]); ``c1/0*13+c2/0*13`` -> (26, [c1, c2]);
    ``b391/0-3`` -> (4, [b391]); ``h/0-3,8`` -> (5, [h]); ``h`` -> (1, [h]).
    """
    slots = 0
    hosts: list[str] = []
    seen: set[str] = set()
    for part in exec_host.split("+"):
        if not part:
            continue
        host, slash, spec = part.partition("/")
        if host and host not in seen:
            seen.add(host)
            hosts.append(host)
        if not slash:
            slots += 1
            continue
        if "*" in spec:
            _, _, count = spec.partition("*")
            slots += int(count) if count.isdigit() else 1
            continue
        for item in spec.split(","):
            low, dash, high = item.partition("-")
            if dash and low.isdigit() and high.isdigit() and int(high) >= int(low):
                slots += int(high) - int(low) + 1
            else:
                slots += 1
    return slots, hosts


def _vnode_ncpus(exec_vnode: str) -> int:
    total = 0
    for match in re.finditer(r"ncpus=(\d+)", exec_vnode):
        total += int(match.group(1))
    return total


def _spec_parts(spec: str) -> list[tuple[int, dict[str, str]]]:
    """``2:ppn=8:gpus=1+node:ppn=4`` -> [(2, {ppn: 8, gpus: 1}), (1, {ppn: 4})]."""
    parts: list[tuple[int, dict[str, str]]] = []
    for chunk in spec.split("+"):
        if not chunk:
            continue
        fields = chunk.split(":")
        count = 1
        resources: dict[str, str] = {}
        for i, item in enumerate(fields):
            key, eq, value = item.partition("=")
            if eq:
                resources[key.strip().lower()] = value.strip()
            elif i == 0 and _SPEC_INT.match(item.strip()):
                count = int(item.strip())
        parts.append((count, resources))
    return parts


def _int_value(value: str | None) -> int | None:
    if value is None:
        return None
    value = value.strip()
    if _SPEC_INT.match(value):
        return int(value)
    return None


def gpus_from_nodes_spec(spec: str) -> int:
    """GPUs in a TORQUE nodes spec: ``2:ppn=32:gpus=2`` -> 4, ``1:gpu=1:gpu`` -> 1, ``node`` -> 0."""
    total = 0
    for count, resources in _spec_parts(spec):
        per_node = _int_value(resources.get("gpus"))
        if per_node is None:
            per_node = _int_value(resources.get("gpu"))
        if per_node:
            total += count * per_node
    return total


def _select_sum(select: str, key: str) -> int | None:
    parts = _spec_parts(select)
    found = False
    total = 0
    for count, resources in parts:
        value = _int_value(resources.get(key))
        if value is not None:
            found = True
            total += count * value
    return total if found else None

"""Uploaded text files: their text, and where they are broken, as one-line errors that name the file, the
line and the reason (pure core)."""

from __future__ import annotations

from typing import Any

import yaml


class UploadTextError(ValueError):
    """An upload that is not text the product can store; the message names the file and line."""


def upload_text(data: bytes, name: str) -> str:
    """The UTF-8 text of an uploaded file (a byte-order mark dropped). A file that is not UTF-8, or holds a
    NUL byte (binary or damaged: no database text can hold it), is refused with the line it happens on."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise UploadTextError(f"{name} line {line}: not UTF-8 text (byte {exc.start}); save it as UTF-8 "
                              "(or CSV UTF-8 from a spreadsheet)") from None
    nul = nul_line(text)
    if nul is not None:
        raise UploadTextError(f"{name} line {nul}: a NUL byte (a binary or damaged file)")
    return text


def nul_line(text: str) -> int | None:
    """The line (from 1) of the first NUL byte in ``text``, or None."""
    at = text.find("\x00")
    return None if at < 0 else text.count("\n", 0, at) + 1


def yaml_error(name: str, exc: Any) -> str:
    """``exc`` (a yaml.YAMLError) as "name, line L, column C: not valid YAML: problem"; without a position
    (PyYAML gives none for some errors) "name: not valid YAML: problem"."""
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    problem = getattr(exc, "problem", None) or getattr(exc, "context", None) or str(exc).splitlines()[0]
    where = f"{name}, line {mark.line + 1}, column {mark.column + 1}" if mark is not None else name
    return f"{where}: not valid YAML: {problem}"


def nul_at(value: Any, path: str = "") -> str | None:
    """Where a parsed document (YAML's "\\0" escape makes one) holds a NUL character, which no database text
    can: the path of the first such key or text ("purchases[3].node_type"; "" for the document itself), or
    None."""
    if isinstance(value, str):
        return path if "\x00" in value else None
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, item in items:
        here = (f"{path}.{key}" if path else str(key)) if isinstance(value, dict) else f"{path}[{key}]"
        if isinstance(key, str) and "\x00" in key:
            return here
        found = nul_at(item, here)
        if found is not None:
            return found
    return None


def nul_problem(document: Any, root: str = "the document") -> str | None:
    """"purchases[3].node_type: contains a NUL byte (\\0)" for a parsed document holding one (``root`` names
    the document itself), or None: the message every YAML reader of the product gives."""
    where = nul_at(document)
    return None if where is None else f"{where or root}: contains a NUL byte (\\0)"


MAX_YAML_VALUES = 1_000_000  # far above any scenario, plan or mapping file


class YamlExpansionError(yaml.YAMLError):
    """A YAML document whose aliases expand past MAX_YAML_VALUES values, or refer to their own value."""

    def __init__(self, problem: str) -> None:
        super().__init__(problem)
        self.problem = problem


class YamlDuplicateKeyError(yaml.MarkedYAMLError):
    """A mapping that gives one key twice: PyYAML keeps the last value without a word (a node type's second
    ``price_usd`` silently replaced the first), YAML itself forbids it. Marked at the second key."""

    def __init__(self, key: Any, first_line: int, mark: Any) -> None:
        problem = (f"duplicate key {str(key)[:60]!r} (also on line {first_line}): a second value would silently "
                   "replace the first; give each key once")
        super().__init__(problem=problem, problem_mark=mark)

    def __str__(self) -> str:
        return str(self.problem)


def yaml_load(text: str) -> Any:
    """yaml.safe_load, refusing an alias bomb first.

    A few hundred bytes of nested aliases ("a1: &a1 [*a0, *a0, ...]") stand for billions of values: loading
    is quick (the values are shared) but every walk of the result (the NUL check, the JSON copy) expands
    them, and a 400-byte scenario held a worker for minutes. The node graph is measured without expanding
    it; a document over MAX_YAML_VALUES, or one that contains itself, raises yaml.YAMLError (YamlExpansionError),
    which the callers already turn into "name: not valid YAML: ...". A mapping that gives a key twice raises
    YamlDuplicateKeyError (a yaml.MarkedYAMLError at the second key) instead of keeping the last value; a
    merge (``<<: *base``) and the keys that override it are not duplicates.
    """
    try:
        loader = yaml.SafeLoader(text)
    except yaml.reader.ReaderError as exc:  # a NUL or other control character: PyYAML gives a position, no line
        at = text[:exc.position]
        line, column = at.count("\n"), exc.position - (at.rfind("\n") + 1)
        mark = yaml.Mark("<text>", exc.position, line, column, None, 0)
        code = exc.character if isinstance(exc.character, int) else ord(str(exc.character)[:1] or "?")
        raise yaml.MarkedYAMLError(problem=f"a control character ({code:#04x}) that YAML does not allow (a binary "
                                   "or damaged file)", problem_mark=mark) from None
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        size = _expanded_size(node)
        if size is None:
            raise YamlExpansionError("an alias (*name) is used inside the value it names")
        if size > MAX_YAML_VALUES:
            raise YamlExpansionError(f"its aliases (*name) stand for more than {MAX_YAML_VALUES:,} values")
        _refuse_duplicate_keys(loader, node)
        return loader.construct_document(node)
    finally:
        loader.dispose()


MERGE_TAG = "tag:yaml.org,2002:merge"


def _children(node: Any) -> list[Any]:
    """A node's sequence items, or its mapping's keys and values in turn (aliases are shared nodes)."""
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return []


def _refuse_duplicate_keys(loader: yaml.SafeLoader, root: Any) -> None:
    """YamlDuplicateKeyError at the first mapping key given twice in the node graph (scalar keys compared as
    the values they load as, so ``1`` and ``"1"`` differ and ``1`` and ``0x1`` do not)."""
    seen_nodes: set[int] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if id(node) in seen_nodes:
            continue
        seen_nodes.add(id(node))
        stack.extend(_children(node))
        if isinstance(node, yaml.MappingNode):
            keys: dict[Any, int] = {}
            for key_node, _value_node in node.value:
                if key_node.tag == MERGE_TAG or not isinstance(key_node, yaml.ScalarNode):
                    continue
                try:
                    key = (loader.construct_object(key_node), )
                    hash(key)
                except (yaml.YAMLError, TypeError):
                    continue  # construct_document names a key it cannot load
                if key in keys:
                    raise YamlDuplicateKeyError(key[0], keys[key], key_node.start_mark)
                keys[key] = key_node.start_mark.line + 1


def _expanded_size(root: Any) -> int | None:
    """How many values the node graph stands for once aliases are expanded (None: it contains itself)."""

    sizes: dict[int, int] = {}
    on_path: set[int] = set()
    stack: list[tuple[Any, bool]] = [(root, False)]
    while stack:
        node, finished = stack.pop()
        key = id(node)
        if finished:
            on_path.discard(key)
            sizes[key] = 1 + sum(sizes[id(child)] for child in _children(node))
            continue
        if key in sizes:
            continue
        if key in on_path:
            return None
        on_path.add(key)
        stack.append((node, True))
        for child in _children(node):
            if id(child) in on_path:
                return None
            if id(child) not in sizes:
                stack.append((child, False))
    return sizes[id(root)]

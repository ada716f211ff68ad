"""The product's method documents (docs/*.md) as pages: every "docs/uncertainty.md" a page cites becomes a
link a director can follow, rendered from the same files the repository keeps (pure core: no Django).

Rendered with markdown-it-py (CommonMark + tables), raw HTML in the files is escaped, links between the
documents are rewritten to their pages, and each heading gets an id so a section can be linked.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from markdown_it import MarkdownIt

# Shown first, in this order, with what a planning session reads them for; any other document follows by
# name with the first sentences of its first paragraph.
ABOUT = {
    "forecasting": "How core-hours and petabytes are forecast: the members, how they are combined, how the "
                   "intervals are calibrated, and how the forecasts did on held-back points of public series.",
    "uncertainty": "How a forecast's fan becomes demand paths, what \"the chance a design is enough\" counts, and "
                   "how a plan is bought for a service level.",
    "performance-model": "How a node type and a storage system turn into genomes per day: the model, where each "
                         "input comes from, and its error on benchmarks left out of the fit.",
    "replay": "Queue waits: how a design's years are replayed job by job, and how the replay compares with "
              "published schedules.",
    "workload-report": "The workload characterisation: what each table and figure counts.",
    "scenario-format": "What a design's scenario file may say: catalog, purchases, demand, constraints, costs.",
    "performance": "How fast each part runs, measured, with the command and the machine.",
    "commands": "Every command and file format: imports, forecasts, designs, reports, chargeback.",
    "architecture": "How the parts fit (one page).",
    "dependencies": "Each library the product uses, and why.",
    "security": "Sign-on, roles, API tokens, the audit trail, and hardening.",
}
ORDER = tuple(ABOUT)
_SLUG = re.compile(r"^[a-z0-9][a-z0-9-]*$")
_DOC_LINK = re.compile(r"^(?:(?:\.\./)?docs/)?([a-z0-9][a-z0-9-]*)\.md(#[^\s]*)?$")


@dataclass(frozen=True)
class MethodDoc:
    slug: str
    title: str
    summary: str


def _title_and_summary(text: str) -> tuple[str, str]:
    """The first heading, and the first sentence or two of the first paragraph after it."""
    title, lines, fenced = "", [], False
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
            continue
        if fenced:
            continue
        if not title and line.startswith("# "):
            title = line[2:].replace("`", "").strip()
        elif title and line.strip() and not line.startswith(("#", "|", "-", "*", ">")):
            lines.append(line.strip())
        elif lines:
            break
    sentences = re.split(r"(?<=[.])\s", " ".join(lines))
    summary = sentences[0]
    if len(summary) < 60 and len(sentences) > 1:
        summary += " " + sentences[1]
    return title, summary.replace("`", "")[:280]


def list_docs(folder: Path) -> list[MethodDoc]:
    """The documents in ``folder`` (``*.md``), method documents first."""
    found = {p.stem: p for p in folder.glob("*.md") if _SLUG.match(p.stem)}
    slugs = [s for s in ORDER if s in found] + sorted(s for s in found if s not in ORDER)
    out = []
    for slug in slugs:
        title, summary = _title_and_summary(found[slug].read_text(encoding="utf-8"))
        out.append(MethodDoc(slug, title, ABOUT.get(slug, summary)))
    return out


def heading_id(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:80] or "section"


def _parser(link_to: str) -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False}).enable("table")

    def ids(state: Any) -> None:
        seen: dict[str, int] = {}
        tokens = state.tokens
        for i, token in enumerate(tokens):
            if token.type == "heading_open":
                base = heading_id(tokens[i + 1].content)
                seen[base] = seen.get(base, 0) + 1
                token.attrSet("id", base if seen[base] == 1 else f"{base}-{seen[base]}")
            if token.type == "inline":
                for child in token.children or []:
                    if child.type == "link_open":
                        href = str(child.attrGet("href") or "")
                        found = _DOC_LINK.match(href)
                        if found:
                            child.attrSet("href", link_to.format(slug=found.group(1)) + (found.group(2) or ""))

    md.core.ruler.push("method_links", ids)
    return md


_CITED = re.compile(r"(?:\.\./)?docs/([a-z0-9][a-z0-9-]*)\.md")
_TAG = re.compile(r"(<[^>]+>)")


def link_citations(html: str, known: set[str], link_to: str) -> str:
    """Plain-text citations such as "docs/replay.md" (in prose or code, not already in a link) become links
    to that page."""

    def cite(m: re.Match[str]) -> str:
        slug = m.group(1)
        return f'<a href="{link_to.format(slug=slug)}">{m.group(0)}</a>' if slug in known else m.group(0)

    out, in_link = [], False
    for part in _TAG.split(html):
        if part.startswith("<"):
            in_link = part.startswith("<a ") or (in_link and part != "</a>")
        elif not in_link:
            part = _CITED.sub(cite, part)
        out.append(part)
    return "".join(out)


@lru_cache(maxsize=32)
def _render(path: str, mtime: float, link_to: str, known: frozenset[str]) -> tuple[str, str]:
    text = Path(path).read_text(encoding="utf-8")
    title, _ = _title_and_summary(text)
    return title, link_citations(_parser(link_to).render(text), set(known), link_to)


def render_doc(folder: Path, slug: str, link_to: str = "/methods/{slug}/") -> tuple[str, str] | None:
    """(title, HTML) of ``folder/slug.md``, or None when there is no such document."""
    if not _SLUG.match(slug):
        return None
    path = folder / f"{slug}.md"
    if not path.is_file():
        return None
    known = frozenset(p.stem for p in folder.glob("*.md"))
    return _render(str(path), path.stat().st_mtime, link_to, known)

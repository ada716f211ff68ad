"""Text cells of exported CSV files that a spreadsheet opens as text, never as a formula."""

from __future__ import annotations

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_safe(cell: str) -> str:
    """A cell a spreadsheet opens as text: one starting like a formula gets a leading apostrophe.

    Exports carry text people typed (design names, narratives, project and PI names of the identity
    mappings); '=HYPERLINK(...)' or '=WEBSERVICE(...)' written as is runs when finance or an admin opens
    the file. Numbers (-12.5) are left as they are. OWASP's advice for CSV injection.
    """
    if not cell.startswith(FORMULA_STARTS):
        return cell
    try:
        float(cell)
    except ValueError:
        return "'" + cell
    return cell

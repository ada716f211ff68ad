"""Grant justification reports (issue 7): gather -> document model -> PDF / DOCX / HTML / ZIP.

``document`` (pure) is the report as data: sections of paragraphs, tables and figures, every
number traceable to a reference in the appendix. ``sections`` (pure) builds it from the gathered
facts; ``gather`` reads them from the database through the other areas' selectors and services;
``render_*`` turn one document into a file.
"""

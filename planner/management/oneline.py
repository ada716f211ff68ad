"""Commands end with one line (file, line when known, reason) and a non-zero exit, never a traceback.

``manage.py`` runs every command through :func:`run`: a ``CommandError`` is Django's own
one line; any other exception escaping a command (a truncated gzip, a file name that is not
UTF-8, a YAML or CSV the parser could not read, a database refusing a value) becomes one
line naming the file from the command line and the reason, and exit status 1.  ``--traceback``
still shows the whole traceback for a developer.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import TextIO

# what a reader needs to hear for the errors a broken file produces
HINTS = {
    "EOFError": "the file is truncated (compressed data ended early)",
    "BadGzipFile": "not a valid gzip file",
    "UnicodeDecodeError": "the text is not UTF-8",
    "UnicodeEncodeError": "the name or text is not valid UTF-8",
}


def _files(argv: Sequence[str]) -> list[str]:
    """The command line's arguments that name files (exist, or look like paths)."""
    return [a for a in argv[2:] if not a.startswith("-") and (os.path.exists(a) or os.sep in a)]


def one_line(exc: BaseException, argv: Sequence[str]) -> str:
    """``file[, line N]: reason`` for an exception escaping a command."""
    name = type(exc).__name__
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else name
    where = getattr(exc, "filename", None) or next(iter(_files(argv)), "")
    line = getattr(exc, "lineno", None) or getattr(getattr(exc, "problem_mark", None), "line", None)
    where = os.fsencode(str(where)).decode("utf-8", "backslashreplace") if where else ""
    hint = HINTS.get(name)
    reason = f"{hint} ({name}: {text})" if hint else f"{name}: {text}"
    prefix = f"{where}, line {line}: " if where and line else f"{where}: " if where else ""
    return (prefix + reason).replace("\n", " ")[:500]


def run(argv: Sequence[str], stderr: TextIO | None = None) -> int:
    """Run one management command as manage.py does; returns the exit status."""
    from django.core.management import execute_from_command_line

    err = stderr or sys.stderr
    try:
        execute_from_command_line(list(argv))
    except SystemExit as exc:
        return int(exc.code or 0) if not isinstance(exc.code, str) else 1
    except KeyboardInterrupt:
        err.write("Interrupted.\n")
        return 130
    except Exception as exc:
        if "--traceback" in argv:
            raise
        err.write(f"Error: {one_line(exc, argv)}\n")
        return 1
    return 0

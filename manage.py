#!/usr/bin/env python
"""Django's command-line utility for administrative tasks.

Every command ends with one line (file, line, reason) and a non-zero exit on bad input,
never a traceback (planner/management/oneline.py; --traceback shows it).
"""

import os
import sys


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "planner.settings")
    from planner.management.oneline import run

    sys.exit(run(sys.argv))


if __name__ == "__main__":
    main()

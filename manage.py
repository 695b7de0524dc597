#!/usr/bin/env python
"""Django's command-line utility for preemptlab."""

import os
import sys


def main() -> None:
    from preemptlab.private import keep_private

    # migrate creates the SQLite file, ingests write uploads: this user's only.
    keep_private()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()

"""Where the installed commands find the app: its var dir and Django set up from the
environment. The CLI's modules import this, never cli.py (the entry point)."""

from __future__ import annotations

import os
import secrets
from pathlib import Path


def data_dir() -> Path:
    """Where an installed preemptlab keeps its embedded database and secret key."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "preemptlab"


def var_dir() -> Path:
    """The app's var dir: PREEMPTLAB_VAR_DIR, else var/ in a checkout, else the user's
    data dir (an installed package cannot write beside its code)."""
    given = os.environ.get("PREEMPTLAB_VAR_DIR")
    if given:
        return Path(given)
    checkout = Path(__file__).resolve().parent.parent
    return checkout / "var" if (checkout / "manage.py").exists() else data_dir()


def setup_django() -> None:
    """Settings as the app's, from the environment, for commands that keep nothing: a
    throwaway secret key unless one is given."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ.setdefault("PREEMPTLAB_VAR_DIR", str(var_dir()))
    os.environ.setdefault("SECRET_KEY", secrets.token_urlsafe(50))
    import django

    django.setup()

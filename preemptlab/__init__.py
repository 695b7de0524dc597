"""The preemptlab command: what-ifs on snapshot files or the current kubectl context,
with no server and no database (``preemptlab --help``; also ``kubectl preemptlab``)."""

from __future__ import annotations

import tomllib
from importlib import metadata
from pathlib import Path


def package_version() -> str:
    """The installed distribution's version; in a checkout, pyproject.toml's."""
    try:
        return metadata.version("preemptlab")
    except metadata.PackageNotFoundError:
        pyproject = Path(__file__).resolve().parent.parent / "pyproject.toml"
        return str(tomllib.loads(pyproject.read_text())["project"]["version"])

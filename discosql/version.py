"""discosql's version, read from the installed distribution: pyproject.toml is its one home."""

from importlib import metadata

try:
    __version__ = metadata.version("discosql")
except metadata.PackageNotFoundError:  # pragma: no cover - a checkout that was never installed
    __version__ = "0+unknown"

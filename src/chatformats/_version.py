"""The package version (``pyproject.toml`` holds the same string)."""

__version__ = "0.1.0"

"""The package's version: part of every on-disk compile cache key, so a new
version never reads code objects an older compiler wrote."""

__version__ = "0.2.0"

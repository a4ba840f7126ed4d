"""Package metadata read once from the installed distribution (no imports of
other certdp modules, so every layer may use it)."""

from __future__ import annotations

from importlib import metadata

try:
    VERSION = metadata.version("certdp")
except metadata.PackageNotFoundError:  # pragma: no cover - running from a source tree without install
    VERSION = "0+unknown"


def producer() -> str:
    """``certdp X.Y.Z``, the producer string of certificates."""
    return f"certdp {VERSION}"

"""Machine-checked facts certdp relies on (see the README of this folder)."""

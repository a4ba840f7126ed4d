"""Reading untrusted input files: one place that turns every way a file can be
bad into a one-line :class:`~certdp.errors.InputError` (never a traceback).

Claims files, sweep grids and mechanism tables go through here: the file must be
a readable regular file of at most :data:`MAX_INPUT_BYTES` bytes of UTF-8 text,
and the TOML/JSON parsers' own failures — syntax errors, nesting deep enough to
exhaust the recursion limit — are reported with the file's name.  (Certificates
have their own loader in the checker, which imports nothing from the toolkit.)
"""

from __future__ import annotations

import json
import os
import tomllib
from typing import Any

from certdp.errors import InputError

#: Largest input file read (bytes); an input file is a few KB.
MAX_INPUT_BYTES = 16 * 2**20


def read_text(path: str, what: str) -> str:
    """The UTF-8 text of the file ``path`` (``what`` names it in messages)."""
    if os.path.isdir(path):
        raise InputError(f"cannot read {what} {path!r}: it is a directory")
    try:
        with open(path, "rb") as fh:
            raw = fh.read(MAX_INPUT_BYTES + 1)  # never more: /dev/zero must not hang
    except OSError as err:
        raise InputError(f"cannot read {what} {path!r}: {err.strerror}") from None
    except ValueError as err:  # e.g. a NUL in the path
        raise InputError(f"cannot read {what} {path!r}: {err}") from None
    if len(raw) > MAX_INPUT_BYTES:
        raise InputError(f"{what} {path!r} is larger than {MAX_INPUT_BYTES} bytes")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise InputError(f"{what} {path!r} is not UTF-8 text ({err.reason} at byte {err.start})") from None


def parse_toml(text: str, what: str) -> dict[str, Any]:
    """A TOML document; InputError on a syntax error or absurd nesting."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise InputError(f"{what} is not valid TOML: {err}") from None
    except RecursionError:
        raise InputError(f"{what} is nested too deeply (not a valid input file)") from None


def parse_json(text: str, what: str) -> Any:
    """A JSON document; InputError on a syntax error or absurd nesting."""
    try:
        return json.loads(text)
    except ValueError as err:
        raise InputError(f"{what} is not valid JSON: {err}") from None
    except RecursionError:
        raise InputError(f"{what} is nested too deeply (not a valid input file)") from None

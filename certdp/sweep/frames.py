"""Sweep and audit results as pandas DataFrames, in one call (the optional ``pandas`` extra).

* :func:`results_frame` reads a sweep's results file (CSV or Parquet).  Every column stays a
  string, as in the file (exact decimal strings, rounded outward); with ``floats=True`` each
  enclosure end column (``*_lo``, ``*_hi``, ``*_residual_hi``, ``*_delta_lo/hi``) gets a float
  twin ``<column>_float`` rounded *outward*: a lower end to the largest float <= it, an upper
  end to the smallest float >= it — so the float interval still contains the truth.
* :func:`verdicts_frame` turns audit verdicts (:class:`certdp.audit.Verdict`, or their
  ``to_json()`` dicts, or the ``claims`` list of ``certdp audit --json``) into one row per claim
  with the enclosure's ends as ``enclosure_lo`` / ``enclosure_hi`` strings (and float twins).

pandas is imported here only; without it both raise InputError naming the extra.
"""

from __future__ import annotations

import math
import os
from fractions import Fraction
from typing import TYPE_CHECKING, Iterable, Mapping, Protocol, Union

from certdp.errors import InputError

if TYPE_CHECKING:
    import pandas


class _HasJson(Protocol):
    def to_json(self) -> Mapping[str, object]: ...


def _pandas():  # noqa: ANN202 - the pandas module
    try:
        import pandas as pd  # noqa: PLC0415
    except ImportError:
        raise InputError("DataFrames need pandas: python -m pip install pandas "
                         "(or the extra: python -m pip install 'certdp[pandas]')") from None
    return pd


def outward_float(text: str, down: bool) -> float:
    """The decimal string ``text`` as the nearest float on the safe side: the largest float
    <= it (``down``) or the smallest float >= it; ``""`` is NaN (no value)."""
    if text == "":
        return math.nan
    q = Fraction(text)
    try:
        f = float(q)  # nearest
    except OverflowError:  # beyond the floats: ±inf, on the safe side only one way
        f = math.inf if q > 0 else -math.inf
    if math.isinf(f):
        return f if (f < 0) == down else math.copysign(1.7976931348623157e308, f)
    if down and Fraction(f) > q:
        f = math.nextafter(f, -math.inf)
    elif not down and Fraction(f) < q:
        f = math.nextafter(f, math.inf)
    return f


def _end_columns(columns: Iterable[str]) -> list[tuple[str, bool]]:
    """(column, is a lower end) for the enclosure-end columns of a results table."""
    out = []
    for c in columns:
        if c.endswith("_lo"):
            out.append((c, True))
        elif c.endswith("_hi"):
            out.append((c, False))
    return out


def results_frame(path: str | os.PathLike[str], *, floats: bool = False) -> pandas.DataFrame:
    """A sweep's results file (``certdp sweep --out``, .csv or .parquet) as a DataFrame of
    strings; ``floats=True`` adds outward-rounded float twins of the enclosure ends."""
    pd = _pandas()
    path = os.fspath(path)
    if path.lower().endswith(".parquet"):
        frame = pd.read_parquet(path).astype(str)
    elif path.lower().endswith(".csv"):
        frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    else:
        raise InputError(f"{path!r}: a sweep's results file ends in .csv or .parquet")
    if floats:
        for column, down in _end_columns(frame.columns):
            frame[f"{column}_float"] = [outward_float(t, down) for t in frame[column]]
    return frame


Verdicts = Union[Iterable[_HasJson], Iterable[Mapping[str, object]], Mapping[str, object]]


def verdicts_frame(verdicts: Verdicts, *, floats: bool = False) -> pandas.DataFrame:
    """Audit verdicts (objects with ``to_json()``, their dicts, or ``{"claims": [...]}`` as
    ``certdp audit --json`` prints it) as one row per claim; the enclosure as
    ``enclosure_lo``/``enclosure_hi`` strings ("" when the verdict has none)."""
    pd = _pandas()
    items = verdicts["claims"] if isinstance(verdicts, Mapping) else verdicts
    rows = []
    for v in items:  # type: ignore[union-attr]
        d = dict(v.to_json() if hasattr(v, "to_json") else v)  # type: ignore[union-attr]
        enc = d.pop("enclosure", None) or {"lo": "", "hi": ""}
        d["enclosure_lo"], d["enclosure_hi"] = enc["lo"], enc["hi"]  # type: ignore[index]
        d["assumptions"] = "; ".join(d.get("assumptions", ()))  # type: ignore[arg-type]
        rows.append(d)
    frame = pd.DataFrame(rows)
    if floats and rows:
        for column, down in (("enclosure_lo", True), ("enclosure_hi", False)):
            frame[f"{column}_float"] = [outward_float(t, down) for t in frame[column]]
    return frame

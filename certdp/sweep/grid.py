"""Grid files: a spec template, axes of exact numbers, and the quantities per point.

A grid file is TOML::

    spec = "dpsgd(noise={sigma}, rate={q}, steps={T})"
    [axes]                       # every combination is one point, in file order
    sigma = ["0.8", "1.1", "2"]  # exact numbers: strings ("0.1", "1e-5", "1/3") or TOML integers
    q = { first = "0.01", last = "0.05", step = "0.01" }   # inclusive exact range
    T = [100, 1000]
    [[quantity]]                 # one or more
    kind = "eps"                 # eps (needs delta), delta (needs eps), mu (GDP report)
    delta = "1e-5"

Every axis value is read by :func:`certdp.numerics.exact.exact` and written
back in canonical form (:func:`certdp.mechanisms.format.format_number`:
``"0.10"`` becomes ``"0.1"``, ``"2/4"`` becomes ``"0.5"``), so the text put
into the template is always one number token of the spec grammar; the
substituted spec is then read by the safe spec parser
(:func:`certdp.mechanisms.spec.parse_spec`) — nothing is evaluated.  TOML
floats are refused (a binary float is not the decimal the user wrote).

A range axis is kept as its definition (first, step, count) and its values
are made one at a time; the grid's size comes from the definitions and a grid
of more than :data:`MAX_POINTS` points is refused before any value is made.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from dataclasses import dataclass
from functools import cached_property
from fractions import Fraction
from typing import Any, Iterator

from certdp.errors import InputError
from certdp.files import parse_toml, read_text
from certdp.mechanisms.format import format_number
from certdp.analyses.dispatch import check_residual
from certdp.numerics.exact import check_positive, exact, parse_decimal

#: Most points a grid may have (the product of the axis lengths, computed from
#: the axis definitions before any value is made).  10^6 points of the cheapest
#: kind (a closed form, 0.1 ms each) are minutes of work and ~1 GB of rows held
#: for the final sort; a DP-SGD grid of 10^6 points is ~170 core-hours.
MAX_POINTS = 10**6
#: Quantity kinds and the parameters each accepts (required ones first).
KINDS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "eps": (("delta",), ()),
    "delta": (("eps",), ()),
    "mu": ((), ("residual", "width")),
    # the value of the spec's free parameter `param` (a name, not an axis) certified to meet
    # (eps, delta) on the grid resolution·Z (certdp.analyses.calibrate; `certdp calibrate`)
    "calibrate": (("param", "eps", "delta"), ("resolution", "more_private")),
}
#: Parameters that are words, not numbers: the accepted values (None: an identifier).
_WORDS: dict[str, tuple[str, ...] | None] = {"param": None, "more_private": ("larger", "smaller")}
#: The rule each parameter must satisfy, by its owner (a residual: the audit's rule too).
_RULES = {"residual": check_residual, "width": check_positive}
#: Columns after the quantities' columns.
TRAILING_COLUMNS = ("assumptions", "route", "seconds", "error")

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z", re.ASCII)
_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}", re.ASCII)


@dataclass(frozen=True)
class Quantity:
    """One certified quantity asked at every point.

    ``kind`` is ``eps`` (ε at ``params['delta']``), ``delta`` (δ at
    ``params['eps']``) or ``mu`` (the GDP report: μ and the residual η of
    "δ(ε) <= δ_μ(ε) + η for all ε"); ``name`` prefixes its columns.
    Parameters are canonical exact number strings.
    """

    kind: str
    name: str
    params: tuple[tuple[str, str], ...]

    @property
    def columns(self) -> tuple[str, ...]:
        if self.kind == "calibrate":  # the value (empty: none found), whether it is proved optimal, δ there
            return (f"{self.name}_value", f"{self.name}_optimal", f"{self.name}_delta_lo", f"{self.name}_delta_hi")
        cols = (f"{self.name}_lo", f"{self.name}_hi")
        if self.kind == "mu":
            cols += ("residual_hi" if self.name == "mu" else f"{self.name}_residual_hi",)
        return cols

    def param(self, key: str) -> str | None:
        return dict(self.params).get(key)


@dataclass(frozen=True)
class ListAxis:
    """An axis given as a list: its canonical values, in file order."""

    name: str
    values: tuple[str, ...]

    @property
    def size(self) -> int:
        return len(self.values)

    def value(self, i: int) -> str:
        return self.values[i]

    @cached_property
    def _positions(self) -> dict[str, int]:
        return {v: i for i, v in enumerate(self.values)}

    def index(self, text: str) -> int | None:
        """The position of the canonical value ``text`` (None: not on this axis)."""
        return self._positions.get(text)

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "values": list(self.values)}


@dataclass(frozen=True)
class RangeAxis:
    """An axis given as an exact range: ``first + i * step`` for ``0 <= i < count``.
    Its values are made one at a time, never all at once."""

    name: str
    first: Fraction
    step: Fraction
    count: int

    @property
    def size(self) -> int:
        return self.count

    def value(self, i: int) -> str:
        return format_number(self.first + i * self.step)

    def index(self, text: str) -> int | None:
        """The position of the canonical value ``text`` (None: not on this axis)."""
        try:
            v = parse_decimal(text)
        except InputError:
            return None
        k = (v - self.first) / self.step
        if k.denominator != 1 or not 0 <= k < self.count or format_number(v) != text:
            return None
        return int(k)

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "first": format_number(self.first), "step": format_number(self.step),
                "count": self.count}


Axis = ListAxis | RangeAxis


@dataclass(frozen=True)
class Grid:
    """A parsed grid file: template, axes in file order, quantities.

    A point is a tuple of canonical values, one per axis; its *index* is its
    place in grid order (the last axis varies fastest)."""

    spec: str
    axes: tuple[Axis, ...]
    quantities: tuple[Quantity, ...]

    @property
    def axis_names(self) -> tuple[str, ...]:
        return tuple(a.name for a in self.axes)

    @property
    def columns(self) -> tuple[str, ...]:
        """Output columns: axes in file order, each quantity's ends, then assumptions, route, seconds, error."""
        cols: tuple[str, ...] = self.axis_names
        for q in self.quantities:
            cols += q.columns
        return cols + TRAILING_COLUMNS

    @property
    def size(self) -> int:
        return math.prod(a.size for a in self.axes)

    def points(self) -> Iterator[tuple[int, tuple[str, ...]]]:
        """Every (index, point) in grid order, one at a time (no axis is expanded)."""
        digits = [0] * len(self.axes)
        current = [a.value(0) for a in self.axes]
        for index in range(self.size):
            yield index, tuple(current)
            j = len(self.axes) - 1
            while j >= 0:
                digits[j] += 1
                if digits[j] < self.axes[j].size:
                    current[j] = self.axes[j].value(digits[j])
                    break
                digits[j] = 0
                current[j] = self.axes[j].value(0)
                j -= 1

    def index_of(self, point: tuple[str, ...]) -> int | None:
        """The index of ``point`` (canonical values), None when it is not a point of this grid."""
        if len(point) != len(self.axes):
            return None
        index = 0
        for axis, text in zip(self.axes, point):
            i = axis.index(text)
            if i is None:
                return None
            index = index * axis.size + i
        return index

    def spec_for(self, point: tuple[str, ...]) -> str:
        """The template with each ``{axis}`` replaced by the point's canonical value."""
        values = dict(zip(self.axis_names, point))
        return _PLACEHOLDER.sub(lambda m: values[m.group(1)], self.spec)

    def describe(self) -> dict[str, Any]:
        """A JSON-able canonical description (what makes two grids the same): the
        axes by their definitions (a range as first, step, count), not their values."""
        return {"spec": self.spec, "axes": [a.describe() for a in self.axes],
                "quantities": [{"kind": q.kind, "name": q.name, **dict(q.params)} for q in self.quantities]}

    def fingerprint(self) -> str:
        """SHA-256 of :meth:`describe`: the grid itself."""
        text = json.dumps(self.describe(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()

    def settings_fingerprint(self) -> str:
        """SHA-256 of what a point's row depends on besides the point: the template, the axis
        names (in order) and the quantities — not the axis values, so a row stays valid when
        an axis gains (or loses) values: the key of the per-point cache (:mod:`certdp.sweep.store`)."""
        doc = {"spec": self.spec, "axes": list(self.axis_names), "quantities": self.describe()["quantities"]}
        return hashlib.sha256(json.dumps(doc, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def _number(value: object, where: str) -> Fraction:
    if isinstance(value, float):
        raise InputError(f"{where}: {value!r} is a TOML float (binary); write it as a string, e.g. \"{value!r}\"")
    if not isinstance(value, (str, int)) or isinstance(value, bool):
        raise InputError(f"{where}: expected an exact number (a string like \"0.1\" or an integer), got {value!r}")
    return exact(value, where)


def _count_text(n: int) -> str:
    return str(n) if n < 10**30 else "more than 10^30"


def _axis_size(name: str, raw: object) -> tuple[int, RangeAxis | None]:
    """An axis's number of values from its definition (a range is made here: it is
    cheap; a list's values are read only once the grid's size is known to be allowed)."""
    where = f"axis {name!r}"
    if isinstance(raw, list):
        if not raw:
            raise InputError(f"{where}: no values")
        return len(raw), None
    if isinstance(raw, dict):
        unknown = set(raw) - {"first", "last", "step"}
        if unknown or len(raw) != 3:
            raise InputError(f"{where}: a range is {{ first = ..., last = ..., step = ... }}, got keys {sorted(raw)}")
        first, last, step = (_number(raw[k], f"{where} {k}") for k in ("first", "last", "step"))
        if step <= 0 or last < first:
            raise InputError(f"{where}: a range needs step > 0 and last >= first")
        count = int((last - first) // step) + 1
        return count, RangeAxis(name, first, step, count)
    raise InputError(f"{where}: expected a list of exact numbers or a range table, got {type(raw).__name__}")


def _list_axis(name: str, raw: list) -> ListAxis:
    where = f"axis {name!r}"
    values = [_number(v, where) for v in raw]
    if len(set(values)) != len(values):
        raise InputError(f"{where}: a value appears twice (the points would repeat)")
    return ListAxis(name, tuple(format_number(v) for v in values))


def _quantity(i: int, raw: object) -> Quantity:
    where = f"quantity {i + 1}"
    if not isinstance(raw, dict):
        raise InputError(f"{where}: expected a [[quantity]] table")
    kind = raw.get("kind")
    if kind not in KINDS:
        raise InputError(f"{where}: kind must be one of {', '.join(KINDS)}, got {kind!r}")
    required, optional = KINDS[kind]
    name = raw.get("name", kind)
    if not isinstance(name, str) or not _IDENT.match(name):
        raise InputError(f"{where}: name must be an identifier, got {name!r}")
    unknown = set(raw) - {"kind", "name", *required, *optional}
    if unknown:
        raise InputError(f"{where} ({kind}): unknown key(s) {', '.join(sorted(unknown))}")
    missing = [k for k in required if k not in raw]
    if missing:
        raise InputError(f"{where} ({kind}): needs {', '.join(missing)}")
    params = []
    for k in (*required, *optional):
        if k in raw and k in _WORDS:
            word, allowed = raw[k], _WORDS[k]
            if not isinstance(word, str) or not (_IDENT.match(word) if allowed is None else word in allowed):
                raise InputError(f"{where} ({kind}): {k} must be " + ("an identifier" if allowed is None else
                                 " or ".join(repr(a) for a in allowed)) + f", got {word!r}")
            params.append((k, word))
        elif k in raw:
            value = _number(raw[k], f"{where} {k}")
            if k in _RULES:
                try:
                    _RULES[k](value, k)
                except InputError as err:
                    raise InputError(f"{where} ({kind}): {err}") from None
            params.append((k, format_number(value)))
    return Quantity(kind, name, tuple(params))


def parse_grid(text: str) -> Grid:
    """Parse the text of a grid file (see the module docstring); InputError on anything malformed."""
    doc = parse_toml(text, "grid file")
    unknown = set(doc) - {"spec", "axes", "quantity"}
    if unknown:
        raise InputError(f"grid file: unknown key(s) {', '.join(sorted(unknown))} (expected spec, [axes], [[quantity]])")
    spec = doc.get("spec")
    if not isinstance(spec, str) or not spec.strip():
        raise InputError("grid file: 'spec' (a mechanism spec template) is required")
    raw_axes = doc.get("axes", {})
    if not isinstance(raw_axes, dict):
        raise InputError("grid file: [axes] must be a table")
    sized = []
    for name, raw in raw_axes.items():
        if not _IDENT.match(name):
            raise InputError(f"axis name {name!r} is not an identifier")
        sized.append((name, raw, *_axis_size(name, raw)))
    size = math.prod(n for _, _, n, _ in sized)
    if size > MAX_POINTS:  # refused from the definitions, before any value is made
        raise InputError(f"grid file: {_count_text(size)} points (at most {MAX_POINTS})")
    axes = tuple(made if made is not None else _list_axis(name, raw) for name, raw, _, made in sized)
    raw_q = doc.get("quantity")
    if not isinstance(raw_q, list) or not raw_q:
        raise InputError("grid file: at least one [[quantity]] is required")
    quantities = tuple(_quantity(i, q) for i, q in enumerate(raw_q))
    grid = Grid(spec, axes, quantities)
    _check_template(grid)
    kinds = {q.kind == "calibrate" for q in quantities}
    if len(kinds) > 1:
        raise InputError("grid file: a calibrate quantity needs a spec with a free parameter, which the other kinds "
                         "cannot evaluate: put calibrate quantities in a grid of their own")
    cols = grid.columns
    dup = sorted({c for c in cols if cols.count(c) > 1})
    if dup:
        raise InputError(f"grid file: column(s) {', '.join(dup)} would appear twice "
                         "(give quantities of the same kind distinct names; axes may not use quantity or result column names)")
    return grid


def _check_template(grid: Grid) -> None:
    used = _PLACEHOLDER.findall(grid.spec)
    names = set(grid.axis_names)
    unknown = [u for u in used if u not in names]
    if unknown:
        raise InputError(f"spec template: {{{unknown[0]}}} is not an axis (axes: {', '.join(grid.axis_names) or 'none'})")
    unused = [n for n in grid.axis_names if n not in used]
    if unused:
        raise InputError(f"axis {unused[0]!r} does not appear in the spec template (its points would repeat)")
    rest = _PLACEHOLDER.sub("", grid.spec)
    if "{" in rest or "}" in rest:
        raise InputError("spec template: braces are only allowed around an axis name, as in {sigma}")


def load_grid(path: str) -> Grid:
    """Read and parse a grid file."""
    return parse_grid(read_text(path, "grid file"))

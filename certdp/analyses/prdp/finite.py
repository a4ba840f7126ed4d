"""Finite mechanisms with exact probability tables, and exact ADP / PrDP checks.

Guingona et al. 2023 (Def 2.2).  For neighbours ``a, b`` and ``S ⊆ B``:

* ``(ε, δ)``-ADP:  ``P(M(a) ∈ S) ≤ e^ε P(M(b) ∈ S) + δ``.  The supremum over
  ``S`` is attained at ``S⁺ = {c : p_a(c) > e^ε p_b(c)}``, so the condition is
  the hockey-stick inequality ``Σ_c (p_a(c) - e^ε p_b(c))⁺ ≤ δ`` (no 2^n
  subset enumeration).
* ``(ε, δ)``-PrDP: ``P_{c∼M(a)}[p_a(c)/p_b(c) > e^ε] ≤ δ``.  The event is the
  same set ``S⁺`` (outputs with ``p_b(c) = 0 < p_a(c)`` have ratio ``+∞``;
  outputs with ``p_a(c) = 0`` carry no mass), so PrDP asks ``Σ_{S⁺} p_a ≤ δ``.

Each membership ``c ∈ S⁺`` is a certified sign decision
(:func:`certdp.analyses.prdp.exactreal.lin_sign`); the final comparison with ``δ`` too.
Results are frozen :class:`DPCheck` objects carrying the verdict, the
margin ``δ - sup`` as an :class:`Enclosure` (``≥ 0`` iff the property holds)
and, when it fails, a :class:`Witness` (pair and output set).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Hashable, Iterable, Sequence

import sympy

from certdp.errors import InputError, check_budget
from certdp.numerics.ball import MAX_PREC, working_precision
from certdp.numerics.enclosure import Enclosure
from certdp.numerics.exact import exact
from certdp.analyses.prdp.exactreal import (
    Exact,
    as_exact,
    ball_of,
    exact_add,
    exact_mul,
    format_exact,
    is_rational,
    lin_enclosure,
    lin_sign,
    to_sympy,
)

ZERO = Fraction(0)


@dataclass(frozen=True)
class Cell:
    """``count`` outputs (labelled ``outputs``) where ``p_a = pa`` and ``p_b = pb``."""

    pa: Exact
    pb: Exact
    count: int
    outputs: tuple


@dataclass(frozen=True)
class PairTable:
    """The two output distributions of one ordered neighbouring pair ``(a, b)``."""

    a: Hashable
    b: Hashable
    cells: tuple[Cell, ...]


@dataclass(frozen=True)
class Witness:
    """Why a property fails: the ordered pair and the output set ``S⁺``."""

    pair: tuple
    outputs: tuple

    def to_json(self) -> dict:
        return {"pair": [_label_json(x) for x in self.pair], "outputs": [_label_json(x) for x in self.outputs]}


@dataclass(frozen=True)
class DPCheck:
    """Verdict of :func:`is_adp` / :func:`is_prdp`.

    ``margin`` encloses ``δ - sup`` over neighbouring pairs (of the
    hockey-stick divergence for ADP, of ``P[loss > ε]`` for PrDP); the
    property holds iff the true margin is ``≥ 0``.  ``witness`` is set iff
    ``holds`` is false.
    """

    notion: str
    eps: Fraction
    delta: Exact
    holds: bool
    margin: Enclosure
    witness: Witness | None = None

    @property
    def violation(self) -> Enclosure:
        """Enclosure of ``sup - δ`` (positive iff the property fails)."""
        return negate(self.margin)

    def __bool__(self) -> bool:
        return self.holds

    def to_json(self) -> dict:
        d: dict = {"holds": self.holds}
        if self.holds:
            d["margin"] = self.margin.to_json()
        else:
            d["violation"] = self.violation.to_json()
            if self.witness is not None:
                d["witness"] = self.witness.to_json()
        return d

    def __str__(self) -> str:
        name = "ADP" if self.notion == "adp" else "PrDP"
        head = f"({format_exact(self.eps)}, {format_exact(self.delta)})-{name}"
        if self.holds:
            return f"{head}: holds, margin δ - sup ∈ {self.margin}"
        w = self.witness
        where = f" at pair {w.pair}, outputs {list(w.outputs)}" if w else ""
        return f"{head}: FAILS{where}, violation sup - δ ∈ {self.violation}"


def negate(x: Enclosure) -> Enclosure:
    """The enclosure of ``-t`` for ``t`` in ``x`` (exact negation of dyadics)."""
    with working_precision(MAX_PREC):
        return Enclosure(-x.hi, -x.lo)


def _label_json(x: object) -> object:
    return x if isinstance(x, (int, str)) else str(x)


class FiniteMechanism:
    """A mechanism ``M: A → Δ(B)`` on finite ``A`` and ``B`` with exact tables.

    ``rows[i][j] = P(M(inputs[i]) = outputs[j])``; entries are exact numbers
    (ints, Fractions, decimal strings) or closed sympy expressions / safe
    expression strings such as ``"exp(-1)"``.  ``neighbours`` is a list of
    pairs of input indices (both orders are checked); default: all pairs.
    Each row must be a probability vector: entries ``≥ 0`` summing to exactly
    1 (decided exactly for rationals; for symbolic rows by sympy
    simplification, otherwise rejected).
    """

    def __init__(
        self,
        rows: Sequence[Sequence[object]],
        *,
        inputs: Sequence[Hashable] | None = None,
        outputs: Sequence[Hashable] | None = None,
        neighbours: Iterable[tuple[int, int]] | None = None,
    ) -> None:
        if not isinstance(rows, Sequence) or len(rows) < 1:
            raise InputError("a finite mechanism needs at least one row")
        width = None
        table: list[tuple[Exact, ...]] = []
        for i, row in enumerate(rows):
            if not isinstance(row, Sequence) or isinstance(row, str):
                raise InputError(f"row {i} is not a list of probabilities")
            if width is None:
                width = len(row)
            if len(row) != width or width == 0:
                raise InputError(f"row {i} has {len(row)} entries, expected {width} (and at least 1)")
            entries = tuple(as_exact(v, f"entry [{i}][{j}]") for j, v in enumerate(row))
            for j, v in enumerate(entries):
                _check_nonnegative(v, f"entry [{i}][{j}]")
            _check_sums_to_one(entries, i)
            table.append(entries)
        self.rows: tuple[tuple[Exact, ...], ...] = tuple(table)
        n_in, n_out = len(table), width or 0
        self.inputs = _labels(inputs, n_in, "inputs")
        self.outputs = _labels(outputs, n_out, "outputs")
        if len(self.inputs) != n_in or len(set(self.inputs)) != n_in:
            raise InputError(f"inputs must be {n_in} distinct labels, got {list(self.inputs)}")
        if len(self.outputs) != n_out or len(set(self.outputs)) != n_out:
            raise InputError(f"outputs must be {n_out} distinct labels, got {list(self.outputs)}")
        if neighbours is None:
            pairs = [(i, j) for i in range(n_in) for j in range(n_in) if i != j]
        else:
            seen = set()
            for pr in neighbours:
                if not (isinstance(pr, Sequence) and len(pr) == 2):
                    raise InputError(f"neighbour {pr!r} is not a pair of input indices")
                i, j = pr
                for k in (i, j):
                    if isinstance(k, bool) or not isinstance(k, int) or not 0 <= k < n_in:
                        raise InputError(f"neighbour {pr!r}: {k!r} is not an input index in [0, {n_in})")
                if i != j:
                    seen.add((i, j))
                    seen.add((j, i))
            pairs = sorted(seen)
        self.neighbours: tuple[tuple[int, int], ...] = tuple(pairs)

    def pair_tables(self) -> Iterable[PairTable]:
        for i, j in self.neighbours:
            cells = tuple(
                Cell(self.rows[i][c], self.rows[j][c], 1, (self.outputs[c],)) for c in range(len(self.outputs))
            )
            yield PairTable(self.inputs[i], self.inputs[j], cells)

    def to_json(self) -> dict:
        """Explicit table object (entries as exact strings)."""
        return {
            "type": "table",
            "rows": [[format_exact(v) for v in row] for row in self.rows],
            "neighbours": [list(p) for p in self.neighbours if p[0] < p[1]],
        }

    def __repr__(self) -> str:
        return f"FiniteMechanism({len(self.inputs)} inputs × {len(self.outputs)} outputs)"


class DiagonalMechanism:
    """Guingona et al. 2023 Lemma 3.1 mechanism on ``[n]``: output ``a`` w.p. ``p``, each other w.p. ``q``.

    Requires ``n ≥ 2``, ``0 < p, q < 1`` and ``p + (n-1) q = 1`` exactly.
    All ordered pairs ``(a, b)``, ``a ≠ b``, are neighbours.  A permutation
    ``π`` of ``[n]`` with ``π(a) = 0, π(b) = 1`` applied to inputs and outputs
    maps ``(M(a), M(b))`` to ``(M(0), M(1))``, so every pair has the same
    hockey-stick divergence and the same PrDP mass as ``(0, 1)``; the checks
    use that one pair with output classes ``{0}``, ``{1}``, ``{2..n-1}``.
    """

    def __init__(self, n: int, p: object, q: object) -> None:
        if isinstance(n, bool) or not isinstance(n, int) or n < 2:
            raise InputError(f"n must be an integer >= 2, got {n!r}")
        self.n = n
        self.p = exact(p, "p")
        self.q = exact(q, "q")
        for name, v in (("p", self.p), ("q", self.q)):
            if not 0 < v < 1:
                raise InputError(f"{name} = {v} is not in (0, 1)")
        if self.p + (n - 1) * self.q != 1:
            raise InputError(f"p + (n-1) q = {self.p + (n - 1) * self.q} is not 1")

    def pair_tables(self) -> Iterable[PairTable]:
        n, p, q = self.n, self.p, self.q
        cells = [Cell(p, q, 1, (0,)), Cell(q, p, 1, (1,))]
        if n > 2:
            cells.append(Cell(q, q, n - 2, tuple(range(2, n)) if n <= 12 else (f"2..{n - 1}",)))
        yield PairTable(0, 1, tuple(cells))

    def to_finite(self) -> FiniteMechanism:
        """The explicit n × n table (for small n)."""
        return FiniteMechanism([[self.p if a == c else self.q for c in range(self.n)] for a in range(self.n)])

    def to_json(self) -> dict:
        return {"type": "diagonal", "n": self.n, "p": format_exact(self.p), "q": format_exact(self.q)}

    def __repr__(self) -> str:
        return f"DiagonalMechanism(n={self.n}, p={format_exact(self.p)}, q={format_exact(self.q)})"


def _check_nonnegative(v: Exact, name: str) -> None:
    if is_rational(v):
        if v < 0:
            raise InputError(f"{name} = {v} is negative")
        return
    sign, _ = lin_sign(v, ZERO, ZERO, ZERO, name)
    if sign < 0:
        raise InputError(f"{name} = {format_exact(v)} is negative")


def _check_sums_to_one(entries: tuple[Exact, ...], i: int) -> None:
    total = exact_add(*entries)
    if is_rational(total):
        if total != 1:
            raise InputError(f"row {i} sums to {format_exact(total)}, not 1")
        return
    if sympy.simplify(to_sympy(total) - 1) == 0:
        return
    with working_precision(256):
        b = ball_of(total)
        if not b.contains(1):
            raise InputError(f"row {i} sums to about {b.mid()}, not 1")
    raise InputError(f"row {i}: cannot verify that the entries sum to exactly 1")


def _check_params(eps: object, delta: object) -> tuple[Fraction, Exact]:
    e = exact(eps, "eps")
    if e < 0:
        raise InputError(f"eps must be >= 0, got {e}")
    d = as_exact(delta, "delta")
    if is_rational(d):
        if d < 0:
            raise InputError(f"delta must be >= 0, got {d}")
    else:
        sign, _ = lin_sign(d, ZERO, ZERO, ZERO, "delta")
        if sign < 0:
            raise InputError(f"delta = {format_exact(d)} is negative")
    return e, d


def _positive_set(pt: PairTable, eps: Fraction) -> tuple[list[Cell], int]:
    """Cells of ``S⁺ = {c : p_a(c) > e^ε p_b(c)}`` (each membership certified)."""
    chosen, prec = [], 64
    for cell in pt.cells:
        s, pr = lin_sign(cell.pa, cell.pb, ZERO, eps, f"p_{pt.a}({cell.outputs}) - e^eps p_{pt.b}")
        prec = max(prec, pr)
        if s > 0:
            chosen.append(cell)
    return chosen, prec


def _outputs(cells: list[Cell]) -> tuple:
    return tuple(o for c in cells for o in c.outputs)


def _sum_a(cells: list[Cell]) -> Exact:
    return exact_add(ZERO, *[exact_mul(c.pa, c.count) for c in cells])


def _sum_b(cells: list[Cell]) -> Exact:
    return exact_add(ZERO, *[exact_mul(c.pb, c.count) for c in cells])


def _neg(x: Exact) -> Exact:
    return -x


def _check(mech: object, eps: object, delta: object, notion: str) -> DPCheck:
    e, d = _check_params(eps, delta)
    if not hasattr(mech, "pair_tables"):
        raise InputError(f"not a finite mechanism: {mech!r}")
    worst: Enclosure | None = None
    witness: Witness | None = None
    witness_margin: Enclosure | None = None
    holds = True
    n_pairs = len(getattr(mech, "neighbours", ())) or None
    for k, pt in enumerate(mech.pair_tables()):
        check_budget(f"checking {notion.upper()} over the neighbouring pairs", k, n_pairs)
        cells, prec = _positive_set(pt, e)
        A = _sum_a(cells)
        if notion == "adp":
            # margin = δ - (A - e^ε B) = -A + e^ε B + δ  =  a' - e^ε b' + c'  with a'=-A, b'=-B, c'=δ
            B = _sum_b(cells)
            a_, b_, c_ = _neg(A), _neg(B), d
        else:
            a_, b_, c_ = _neg(A), ZERO, d
        sign, pr = lin_sign(a_, b_, c_, e, f"{notion} margin for pair ({pt.a}, {pt.b})")
        m = lin_enclosure(a_, b_, c_, e, max(prec, pr))
        if sign < 0:
            holds = False
            if witness_margin is None or m.hi < witness_margin.hi:
                witness, witness_margin = Witness((pt.a, pt.b), _outputs(cells)), m
        if worst is None:
            worst = m
        else:
            worst = Enclosure(min(worst.lo, m.lo, key=_key), min(worst.hi, m.hi, key=_key))
    if worst is None:  # no neighbouring pairs: the property holds vacuously
        worst = Enclosure.exact(d) if is_rational(d) else lin_enclosure(ZERO, ZERO, d, e)
    if not holds:
        # the reported margin is the certified-negative one of the witness
        worst = Enclosure(min(worst.lo, witness_margin.lo, key=_key), witness_margin.hi)
    return DPCheck(notion, e, d, holds, worst, witness if not holds else None)


def _key(x):  # arb comparison key (exact balls compare exactly)
    return _ArbKey(x)


class _ArbKey:
    __slots__ = ("v",)

    def __init__(self, v) -> None:
        self.v = v

    def __lt__(self, other: "_ArbKey") -> bool:
        return bool(self.v < other.v)


def _labels(given: object, n: int, what: str) -> tuple:
    """The labels of the table's inputs or outputs: 0..n-1 by default, else a list of
    n distinct hashable labels (InputError for anything else)."""
    if given is None:
        return tuple(range(n))
    if isinstance(given, (str, bytes)) or not isinstance(given, Sequence):
        raise InputError(f"{what} must be a list of {n} distinct labels, got {given!r}")
    for label in given:
        try:
            hash(label)
        except TypeError:
            raise InputError(f"{what}: the label {label!r} is not a valid label (use a string)") from None
    return tuple(given)


def is_adp(mech: object, eps: object, delta: object) -> DPCheck:
    """Is ``mech`` ``(ε, δ)``-ADP?  Exact decision via the hockey-stick divergence
    ``max over neighbours (a, b) of Σ_c (p_a(c) - e^ε p_b(c))⁺ ≤ δ`` (Guingona et al. 2023 Def 2.2)."""
    return _check(mech, eps, delta, "adp")


def is_prdp(mech: object, eps: object, delta: object) -> DPCheck:
    """Is ``mech`` ``(ε, δ)``-PrDP?  Exact decision of
    ``P_{c∼M(a)}[p_a(c)/p_b(c) > e^ε] ≤ δ`` for all neighbours (Guingona et al. 2023 Def 2.2)."""
    return _check(mech, eps, delta, "prdp")

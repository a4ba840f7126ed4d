"""Independent checker for ``adp_not_prdp`` certificates (Guingona et al. 2023).

Claim: the finite mechanism ``M`` of the certificate is ``(ε, δ)``-ADP and is
not ``(ε̂, δ̂)``-PrDP (Guingona et al. 2023 Def 2.2).  The checker re-derives both from
the exact table; it never reads stored margins (``evidence.reported`` is
ignored) and imports only :mod:`certdp.numerics` (and :mod:`certdp.expr` for a
penalty expression ``δ̂ = g(x)``).

* ADP: for every ordered neighbouring pair ``(a, b)`` it decides, with
  certified signs, the set ``S⁺ = {c : p_a(c) > e^ε p_b(c)}`` and then
  ``δ - Σ_{S⁺} p_a + e^ε Σ_{S⁺} p_b ≥ 0``.  ``S⁺`` maximises
  ``P(M(a)∈S) - e^ε P(M(b)∈S)`` over all events ``S``, so this proves
  ``P(M(a) ∈ S) ≤ e^ε P(M(b) ∈ S) + δ`` for every ``S``.
* not PrDP: for the witness pair ``(a, b)`` and outputs ``T`` it decides
  ``p_a(c) > e^{ε̂} p_b(c)`` for each ``c ∈ T`` and ``Σ_T p_a > δ̂``; the event
  ``{loss > ε̂}`` contains ``T``, so its probability exceeds ``δ̂``.

Mechanisms: ``{"type": "table", "rows": [[...]], "neighbours": [[i, j], ...]}``
(rational entries as strings or ints; neighbours default to all pairs, both
orders are checked) or ``{"type": "diagonal", "n", "p", "q"}`` — output ``a``
w.p. ``p``, every other output w.p. ``q`` (Guingona et al. 2023 Lemma 3.1).  For the
diagonal mechanism a permutation of ``[n]`` applied to inputs and outputs maps
any ordered pair ``(a, b)`` to ``(0, 1)``, so ADP is checked on ``(0, 1)``
with the output classes ``{0}``, ``{1}`` and ``n-2`` outputs with ``p_a = p_b = q``.

Signs of ``r₁ - e^t r₂ + r₃`` (rationals, rational ``t``) are exact when
``r₂ = 0`` or ``t = 0``; otherwise the value is never 0 (``e^t`` is
transcendental for rational ``t ≠ 0``) and balls are refined until they
decide, from the certificate's precision up to ``MAX_PREC``.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Callable

from flint import arb

from certdp.verifier.ball import MAX_PREC, to_ball, working_precision
from certdp.verifier.exact import exact

#: Claim kinds this module checks (dispatched by ``certdp verify``).
KINDS = ("adp_not_prdp",)

#: Largest explicit table accepted (entries).
MAX_TABLE_ENTRIES = 1_000_000


class _Invalid(Exception):
    pass


def check(doc: dict, kernel: str = "flint") -> tuple[bool, str | None]:
    """Check an ``adp_not_prdp`` certificate: ``(True, None)`` if valid,
    else ``(False, first failing step)``.  ``kernel="mpmath"``: every sign is decided
    with mpmath intervals (and a penalty δ̂ = g(x) by the iv expression backend),
    nothing with python-flint."""
    try:
        _check(doc, kernel)
    except _Invalid as err:
        return False, str(err)
    except (ValueError, ArithmeticError, TypeError, KeyError, AttributeError) as err:
        return False, f"malformed certificate: {err}"
    return True, None


def _need(cond: bool, msg: str) -> None:
    if not cond:
        raise _Invalid(msg)


def _q(obj: Any, name: str) -> Fraction:
    _need(isinstance(obj, (str, int)) and not isinstance(obj, bool), f"{name} must be an exact number string")
    return exact(obj, name)


def _check(doc: dict, kernel: str = "flint") -> None:
    _need(isinstance(doc, dict), "certificate is not a JSON object")
    _need(doc.get("format") == "certdp-certificate", "format is not certdp-certificate")
    _need(doc.get("version") == 1, f"unsupported version {doc.get('version')!r}")
    claim = doc.get("claim")
    _need(isinstance(claim, dict), "claim missing")
    _need(claim.get("kind") in KINDS, f"kind {claim.get('kind')!r} is not handled by check_prdp")
    prec = doc.get("precision", 128)
    _need(isinstance(prec, int) and not isinstance(prec, bool) and 16 <= prec <= MAX_PREC, "bad precision")

    eps, delta, eps_hat = _q(claim.get("eps"), "eps"), _q(claim.get("delta"), "delta"), _q(claim.get("eps_hat"), "eps_hat")
    _need(eps >= 0 and eps_hat >= 0, "eps and eps_hat must be >= 0")
    _need(delta >= 0, "delta must be >= 0")
    dh_exact, dh_ball = _delta_hat(claim.get("delta_hat"), kernel)

    pa_pb, pairs, witness_ok, adp_classes = _mechanism(doc.get("mechanism"))
    signer = _Signer(prec) if kernel == "flint" else _IvSigner(prec)

    # ---- step 1: (eps, delta)-ADP over every ordered neighbouring pair
    for (a, b) in pairs:
        A = B = Fraction(0)
        for pa, pb, count in adp_classes(a, b):
            if signer.sign(pa, pb, Fraction(0), eps) > 0:
                A += count * pa
                B += count * pb
        # δ - A + e^ε B >= 0   ==   (δ - A) - e^ε (-B)
        _need(
            signer.sign(delta - A, -B, Fraction(0), eps) >= 0,
            f"ADP fails: pair ({a}, {b}) has hockey-stick divergence > delta = {delta}",
        )

    # ---- step 2: not (eps_hat, delta_hat)-PrDP at the witness
    ev = doc.get("evidence")
    _need(isinstance(ev, dict) and isinstance(ev.get("prdp_witness"), dict), "evidence.prdp_witness missing")
    w = ev["prdp_witness"]
    pair, outs = w.get("pair"), w.get("outputs")
    _need(isinstance(pair, list) and len(pair) == 2, "witness pair must be [a, b]")
    a, b = pair
    _need(witness_ok(a, b), f"witness pair {pair} is not a neighbouring pair")
    _need(isinstance(outs, list) and outs and len(set(map(repr, outs))) == len(outs), "witness outputs must be a non-empty list of distinct outputs")
    mass = Fraction(0)
    for c in outs:
        pa, pb = pa_pb(a, b, c)
        _need(signer.sign(pa, pb, Fraction(0), eps_hat) > 0, f"output {c}: p_a(c) > e^eps_hat p_b(c) fails")
        mass += pa
    if dh_exact is not None:
        _need(mass > dh_exact, f"PrDP witness mass {mass} is not > delta_hat = {dh_exact}")
    else:
        _need(signer.ball_sign(lambda: signer.num(mass) - dh_ball()) > 0, "PrDP witness mass is not > delta_hat = g(x)")


def _delta_hat(obj: Any, kernel: str = "flint") -> tuple[Fraction | None, Callable[[], Any] | None]:
    if isinstance(obj, str):
        v = exact(obj, "delta_hat")
        _need(v >= 0, "delta_hat must be >= 0")
        return v, None
    _need(isinstance(obj, dict) and set(obj) == {"penalty", "x"}, "delta_hat must be a number or {penalty, x}")
    import sympy  # noqa: PLC0415

    from certdp.expr import parse_expression  # noqa: PLC0415

    g = parse_expression(obj["penalty"], variables=("x",))
    xv = _q(obj["x"], "delta_hat.x")
    _need(xv > 0, "penalty point x must be > 0")
    val = g.subs({s: sympy.Rational(xv.numerator, xv.denominator) for s in g.free_symbols})
    if isinstance(val, sympy.Rational):
        return Fraction(int(val.p), int(val.q)), None
    if kernel == "mpmath":
        from certdp.expr.ivbackend import compile_iv  # noqa: PLC0415

        f = compile_iv(val, ())
        return None, lambda: f()
    from certdp.expr import evaluate_ball  # noqa: PLC0415

    return None, lambda: evaluate_ball(val, {})


def _mechanism(m: Any):
    _need(isinstance(m, dict), "mechanism must be an explicit finite table object")
    kind = m.get("type")
    if kind == "diagonal":
        n = m.get("n")
        _need(isinstance(n, int) and not isinstance(n, bool) and n >= 2, "diagonal mechanism: n must be an integer >= 2")
        p, q = _q(m.get("p"), "p"), _q(m.get("q"), "q")
        _need(0 < p < 1 and 0 < q < 1, "diagonal mechanism: p, q must lie in (0, 1)")
        _need(p + (n - 1) * q == 1, f"diagonal mechanism: p + (n-1)q = {p + (n - 1) * q} is not 1")

        def pa_pb(a, b, c):
            for v in (a, b, c):
                _need(isinstance(v, int) and not isinstance(v, bool) and 0 <= v < n, f"{v!r} is not in [0, {n})")
            return (p if c == a else q), (p if c == b else q)

        def witness_ok(a, b):
            return all(isinstance(v, int) and not isinstance(v, bool) and 0 <= v < n for v in (a, b)) and a != b

        def classes(a, b):
            out = [(p, q, 1), (q, p, 1)]
            if n > 2:
                out.append((q, q, n - 2))
            return out

        return pa_pb, [(0, 1)], witness_ok, classes
    _need(kind == "table", f"unknown mechanism type {kind!r}")
    rows = m.get("rows")
    _need(isinstance(rows, list) and rows and all(isinstance(r, list) for r in rows), "table: rows must be a list of lists")
    width = len(rows[0])
    _need(width >= 1 and all(len(r) == width for r in rows), "table: rows must have equal, non-zero length")
    _need(len(rows) * width <= MAX_TABLE_ENTRIES, "table too large")
    table = [[_q(v, f"entry [{i}][{j}]") for j, v in enumerate(r)] for i, r in enumerate(rows)]
    for i, r in enumerate(table):
        _need(all(v >= 0 for v in r), f"table: row {i} has a negative entry")
        _need(sum(r) == 1, f"table: row {i} sums to {sum(r)}, not 1")
    k = len(table)
    nb = m.get("neighbours")
    if nb is None:
        pairs = [(i, j) for i in range(k) for j in range(k) if i != j]
    else:
        _need(isinstance(nb, list), "table: neighbours must be a list of pairs")
        s = set()
        for pr in nb:
            _need(isinstance(pr, list) and len(pr) == 2 and all(isinstance(v, int) and not isinstance(v, bool) and 0 <= v < k for v in pr), f"bad neighbour {pr!r}")
            if pr[0] != pr[1]:
                s.add((pr[0], pr[1]))
                s.add((pr[1], pr[0]))
        pairs = sorted(s)
    pair_set = set(pairs)

    def pa_pb(a, b, c):
        _need(isinstance(c, int) and not isinstance(c, bool) and 0 <= c < width, f"output {c!r} out of range")
        return table[a][c], table[b][c]

    def witness_ok(a, b):
        return (a, b) in pair_set

    def classes(a, b):
        return [(table[a][c], table[b][c], 1) for c in range(width)]

    return pa_pb, pairs, witness_ok, classes


class _Signer:
    """Certified signs, starting at the certificate's precision."""

    def __init__(self, prec: int) -> None:
        self.prec = prec

    @staticmethod
    def num(q: Fraction) -> arb:
        return to_ball(q)

    def sign(self, r1: Fraction, r2: Fraction, r3: Fraction, t: Fraction) -> int:
        """Sign of ``r1 - e^t r2 + r3``."""
        if r2 == 0 or t == 0:
            v = r1 - r2 + r3
            return (v > 0) - (v < 0)
        return self.ball_sign(lambda: to_ball(r1) - to_ball(t).exp() * to_ball(r2) + to_ball(r3))

    def ball_sign(self, f: Callable[[], arb]) -> int:
        prec = self.prec
        while True:
            with working_precision(prec):
                v = f()
                if v > 0:
                    return 1
                if v < 0:
                    return -1
            _need(prec < MAX_PREC, "a comparison stayed undecided at the maximum precision")
            prec = min(2 * prec, MAX_PREC)


class _IvSigner(_Signer):
    """The same signs in mpmath interval arithmetic (the second kernel)."""

    @staticmethod
    def num(q: Fraction) -> Any:
        from certdp.verifier.iv import point  # noqa: PLC0415

        return point(q)

    def sign(self, r1: Fraction, r2: Fraction, r3: Fraction, t: Fraction) -> int:
        if r2 == 0 or t == 0:
            v = r1 - r2 + r3
            return (v > 0) - (v < 0)
        from mpmath import iv  # noqa: PLC0415

        return self.ball_sign(lambda: self.num(r1) - iv.exp(self.num(t)) * self.num(r2) + self.num(r3))

    def ball_sign(self, f: Callable[[], Any]) -> int:
        from mpmath import iv  # noqa: PLC0415

        prec, old = self.prec, iv.prec
        try:
            while True:
                iv.prec = prec
                v = f()
                if v.a > 0:
                    return 1
                if v.b < 0:
                    return -1
                _need(prec < MAX_PREC, "a comparison stayed undecided at the maximum precision")
                prec = min(2 * prec, MAX_PREC)
        finally:
            iv.prec = old

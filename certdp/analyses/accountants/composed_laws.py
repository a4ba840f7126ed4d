"""The exact loss law of a composition of finite pairs, for Poisson sampling of a composition.

``subsample(compose(M, k), rate=γ)`` draws one sample and runs k mechanisms on it: its pair is
Poisson sampling (Zhu, Dong & Wang 2022 Thm 11) of the **product** pair of the k steps, not a
composition of sampled steps.  When every step's law is finite (randomized response, pure and
approximate DP, the discrete Laplace and Gaussian: :class:`~certdp.analyses.accountants.loss_laws.AtomLaw`),
the product is finite too: its atoms are the multisets of the steps' atoms (losses add up, masses
multiply; equal multisets have equal losses and are merged), P(L = +∞) = 1 − Π(1 − P_i(+∞)) and
Q(L = −∞) = 1 − Π(1 − Q_i(−∞)) (under P no step has loss −∞, under Q none has +∞).  The product of
symmetric pairs is symmetric, as :class:`~certdp.analyses.accountants.loss_laws.SubsampledLaw`
requires.  Exact (two-sided); refused beyond :data:`MAX_ATOMS` atoms.
"""

from __future__ import annotations

import math
from fractions import Fraction

from flint import arb

from certdp.analyses.accountants.loss_laws import Atom, AtomLaw, LossLaw, as_ball
from certdp.errors import InputError

#: the most atoms a product law may have
MAX_ATOMS = 1 << 14


def _frac_gcd(a: Fraction, b: Fraction) -> Fraction:
    return Fraction(math.gcd(a.numerator, b.numerator), math.lcm(a.denominator, b.denominator))


def product_law(parts: list[tuple[LossLaw, int]], label: str) -> AtomLaw:
    """The law of the composition of ``count`` copies of each finite ``law`` in ``parts``."""
    atoms_of: list[tuple[Atom, ...]] = []
    for law, _ in parts:
        if not isinstance(law, AtomLaw) or law.has_continuous():
            raise InputError(f"{label}: a composition inside Poisson sampling needs finite steps (randomized "
                             "response, pure/approximate DP, discrete Laplace/Gaussian) or Gaussian steps only")
        atoms_of.append(law.atoms())
    width = sum(len(a) for a in atoms_of)
    dist: dict[tuple[int, ...], tuple[arb, arb]] = {(0,) * width: (arb(1), arb(1))}
    base = 0
    for atoms, (_, count) in zip(atoms_of, parts):
        for _ in range(count):
            nxt: dict[tuple[int, ...], tuple[arb, arb]] = {}
            for key, (p, q) in dist.items():
                for j, t in enumerate(atoms):
                    k = list(key)
                    k[base + j] += 1
                    kk = tuple(k)
                    old = nxt.get(kk)
                    pp, qq = p * t.p, q * t.q
                    nxt[kk] = (pp, qq) if old is None else (old[0] + pp, old[1] + qq)
            if len(nxt) > MAX_ATOMS:
                raise InputError(f"{label}: the composition inside Poisson sampling has more than {MAX_ATOMS} "
                                 "distinct outcomes (compose fewer steps inside the sample)")
            dist = nxt
        base += len(atoms)
    flat = [t for atoms in atoms_of for t in atoms]
    exact = all(isinstance(t.loss, Fraction) for t in flat)
    out: list[Atom] = []
    for key, (p, q) in dist.items():
        if exact:
            loss: Fraction | arb = sum((c * t.loss for c, t in zip(key, flat) if c), Fraction(0))  # type: ignore[misc]
        else:
            loss = sum((c * as_ball(t.loss) for c, t in zip(key, flat) if c), arb(0))
            if all(c == 0 or t.loss == 0 for c, t in zip(key, flat)):
                loss = Fraction(0)
        out.append(Atom(loss, p, q))
    keep_p, keep_q = arb(1), arb(1)
    for law, count in parts:
        keep_p *= (1 - law.p_inf()) ** count
        keep_q *= (1 - law.q_minf()) ** count
    anchor = None
    anchors = [law.anchor for law, _ in parts]
    if exact and all(a is not None for a in anchors):
        anchor = anchors[0]
        for a in anchors[1:]:
            anchor = _frac_gcd(anchor, a)  # type: ignore[arg-type]
    return AtomLaw(tuple(out), 1 - keep_p, 1 - keep_q, anchor)


__all__ = ["product_law", "MAX_ATOMS"]

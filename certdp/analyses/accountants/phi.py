r"""Certified characteristic-function accountant (Zhu, Dong & Wang 2022, "AFA", made rigorous).

The accountant keeps the composition symbolically — a multiset of dominating
pairs with counts, i.e. log φ = Σ_j k_j log φ_j (Zhu, Dong & Wang 2022 Algorithm 1,
Prop 12) — so composing is O(1) per mechanism.  A query δ(ε) is answered as an
:class:`Enclosure` by one of two rigorous routes; δ is the max over the
"remove" and "add" directions (Zhu, Dong & Wang 2022 §4.1, Lemma 36), computed separately
only when some pair is asymmetric.

Notation: L is the privacy loss of the composed pair in one direction,
δ(ε) = E[(1 − e^{ε−L})⁺] = P(L = +∞) + E[(1 − e^{ε−L})⁺; L finite]
(Gomez et al. 2025 Thm A.7, Zhu, Dong & Wang 2022 Lemma 36).  The mass at +∞ composes as
P(L = ∞) = 1 − Π_j (1 − m_j)^{k_j} (Zhu, Dong & Wang 2022 Prop 37) and everything below
uses the finite (sub-probability) part only.

Route 1, exact atoms ⊗ Gaussian ("exact").  Gaussians compose to the Gaussian
loss G ~ N(μ²/2, μ²), μ² = Σ k_j/σ_j².  Finite pairs (randomized response,
pmf pairs of Def 35) compose by exact discrete convolution: the k-fold
composition of an m-atom pair is the multinomial law of the count vector,
loss Σ n_o ℓ_o, probability multinomial(k; n) Π p_o^{n_o} (a k-fold randomized
response is binomial).  Then, conditioning on the atom a,
E[(1 − e^{ε−a−G})⁺] = δ_μ(ε − a) (δ_μ(x) = Φ(−x/μ+μ/2) − e^x Φ(−x/μ−μ/2),
valid for every real x), so
    δ(ε) = P(L=∞) + Σ_a w_a δ_μ(ε − a)      (μ > 0),
    δ(ε) = P(L=∞) + Σ_a w_a (1 − e^{ε−a})⁺  (no Gaussian; exact optimal
                                              composition for ε0-DP pairs).
All terms are non-negative, every term is a ball: no truncation at all.

Route 1b, exact Laplace ⊗ atoms ("laplace"; no Gaussian present).  The
Laplace loss law is e^{z/2}ν(dz) with ν symmetric (atoms ±a plus a uniform
piece), tilting commutes with convolution, and the uniform pieces convolve to
box splines; δ is then a finite sum of closed-form integrals of
exponential × polynomial (see :meth:`PhiAccountant._delta_laplace`).  Cost
grows like k⁴ in the number k of Laplace pairs; above ``MAX_LAPLACE_WORK``
(≈ 50 Laplace pairs) the accountant refuses rather than guess.

Route 2, contour-shifted MGF inversion ("integral"; needed for Laplace, used
when the atom count would explode).  With g(x) = (1 − e^{−x})⁺ one has for
Re s > 0: ∫_ℝ g(x) e^{−sx} dx = ∫_0^∞ (1 − e^{−x}) e^{−sx} dx = 1/(s(s+1)).
g is continuous and its transform is absolutely integrable on Re s = c > 0,
so the Laplace inversion g(x) = (1/2πi) ∫_{c−i∞}^{c+i∞} e^{sx}/(s(s+1)) ds
holds pointwise.  With x = L − ε, taking E (Fubini: E e^{cL} = M(c) < ∞ and
∫ |ds|/|s(s+1)| < ∞) and using M(s̄) = conj M(s):
    δ_fin(ε) = (1/π) ∫_0^∞ Re[ M(c+iy) e^{−(c+iy)ε} / ((c+iy)(c+iy+1)) ] dy,
M(s) = E[e^{sL}; L finite] = Π_j M_j(s)^{k_j}.  No principal value, no pole
on the path.  The finite part [0, Y] is integrated with ``acb.integral``
(rigorous error bound; the complex integrand is meromorphic so Re is taken
after integration).  Tail: |M(c+iy)| <= e^{η_G(c(c+1) − y²)} Π_{non-Gauss}
M_j(c)^{k_j} (triangle inequality, exact modulus for Gaussians, η_G = μ²/2),
|s||s+1| >= y², and ∫_Y^∞ e^{−η y²}/y² dy <= e^{−ηY²}/(2ηY³), so
    |tail| <= e^{−cε} B(c) e^{η_G c(c+1)} e^{−η_G Y²}/(2π η_G Y³).
This needs η_G > 0 (at least one Gaussian); compositions without a Gaussian
(|φ| does not decay: the cut-off could not be bounded usefully) use route 1 /
1b (exact) or are refused with an InputError.
c is chosen near the minimiser of log M(c) − cε (saddle point / Chernoff).
"""

from __future__ import annotations

import math
from fractions import Fraction
from itertools import product as cartesian
from typing import Any, Iterable

import sympy
from flint import acb, arb

from certdp.analyses.accountants.base import Accountant, RELATIONS, Relation, check_count, check_eps
from certdp.analyses.accountants.pairs import (
    FINITE_TYPES,
    ApproxDPPair,
    FinitePair,
    GaussianPair,
    LaplacePair,
    Pair,
    RRPair,
    SubsampledFinitePair,
)
from certdp.errors import InputError, PrecisionError, check_budget
from certdp.numerics.ball import to_ball, upper_bound, working_precision
from certdp.numerics.decide import refine
from certdp.numerics.enclosure import Enclosure
from certdp.numerics.gdp import delta_mu_ball

#: Largest number of atoms route 1 enumerates before switching to route 2.
MAX_ATOMS = 20000
#: Largest operation count route 1b (exact Laplace) attempts.
MAX_LAPLACE_WORK = 1_200_000
#: Default relative accuracy target (bits) of δ enclosures (≈ 1e-10).
DEFAULT_REL_BITS = 34

T = sympy.Symbol("t", real=True)

PAIR_TYPES = (GaussianPair, LaplacePair, FinitePair, RRPair, ApproxDPPair, SubsampledFinitePair)


def ball_max(balls: Iterable[arb]) -> arb:
    """A ball containing max(x₁, …, xₙ) for every choice xᵢ in the balls:
    [max lower(xᵢ), max upper(xᵢ)] (exact endpoints, compared exactly —
    never by midpoints)."""
    bs = list(balls)
    if not bs:
        raise ValueError("ball_max of no balls")
    if not all(b.is_finite() for b in bs):
        return arb("nan")
    lo = bs[0].lower()
    hi = bs[0].upper()
    for b in bs[1:]:
        lb, ub = b.lower(), b.upper()
        if lb > lo:
            lo = lb
        if ub > hi:
            hi = ub
    return lo.union(hi)



def _pair_builders() -> dict[type, Any]:
    """Dominating pair (Zhu, Dong & Wang 2022, Table 2 / App. D) of each catalog mechanism
    class the φ accountant supports, looked up along the class's MRO (so a
    subclass such as Gaussian overrides GaussianDP)."""
    from certdp.mechanisms import basic  # noqa: PLC0415

    return {
        basic.Gaussian: lambda m: GaussianPair(Fraction(m.sigma) / Fraction(m.sensitivity)),
        basic.GaussianDP: lambda m: GaussianPair(1 / Fraction(m.mu)),
        basic.Laplace: lambda m: LaplacePair(Fraction(m.scale) / Fraction(m.sensitivity)),
        basic.RandomizedResponse: lambda m: RRPair(p=m.p),
        basic.RandomizedResponseK: lambda m: FinitePair(*m.pmf_pair()),
        basic.PureDP: lambda m: RRPair(eps0=m.eps),
        basic.DiscreteLaplace: lambda m: RRPair(eps0=1 / Fraction(m.scale)),  # Δ = 1 only (see pair_builder)
        basic.ApproxDP: lambda m: ApproxDPPair(m.eps, m.delta),
    }


def _subsampled_finite(mechanism: object) -> Any:
    """subsample(M, γ) of a mechanism with a symmetric finite pair: its builder, else None."""
    inner = pair_builder(mechanism.mechanism)  # type: ignore[attr-defined]
    if inner is None:
        return None
    rate = Fraction(mechanism.rate)  # type: ignore[attr-defined]
    base = inner(mechanism.mechanism)  # type: ignore[attr-defined]
    if rate == 1:
        return lambda m: base
    if not isinstance(base, (FinitePair, RRPair, ApproxDPPair)) or not base.symmetric:
        return None
    return lambda m: SubsampledFinitePair(base, rate)


def pair_builder(mechanism: object) -> Any:
    """The registered pair builder for ``mechanism``'s class, or None."""
    from certdp.mechanisms.transforms import Subsample  # noqa: PLC0415

    if isinstance(mechanism, Subsample):
        return _subsampled_finite(mechanism)
    if getattr(mechanism, "name", None) == "discrete_laplace" and mechanism.sensitivity != 1:  # type: ignore[attr-defined]
        return None  # Δ + 1 atoms: the PLD engine holds it exactly on its lattice
    builders = _pair_builders()
    for cls in type(mechanism).__mro__:
        if cls in builders:
            return builders[cls]
    return None


def supports(mechanism: object) -> bool:
    """Can the φ accountant compose this mechanism (a pair, or a registered class)?"""
    return isinstance(mechanism, PAIR_TYPES) or pair_builder(mechanism) is not None


def to_pair(mechanism: object) -> Pair:
    """The dominating pair of a catalog mechanism (or a pair itself).

    gaussian(sigma, sensitivity) -> N(Δ,σ²) vs N(0,σ²) ≅ GaussianPair(σ/Δ);
    gaussian_dp(mu) -> GaussianPair(1/μ); laplace(scale, sensitivity) ->
    LaplacePair(b/Δ); randomized_response(p); pure_dp(eps) -> RR(eps0);
    approx_dp(eps, delta) -> ApproxDPPair.
    """
    if isinstance(mechanism, PAIR_TYPES):
        return mechanism
    build = pair_builder(mechanism)
    if build is None:
        raise InputError(f"the phi accountant has no dominating pair for mechanism {mechanism!r}")
    return build(mechanism)


def _positive_part(t: arb) -> arb:
    """Ball containing max(0, x) for every x in the ball t."""
    if t >= 0:
        return t
    if t < 0:
        return arb(0)
    return arb(0).union(upper_bound(t))


def _compositions(k: int, m: int) -> Iterable[tuple[int, ...]]:
    if m == 1:
        yield (k,)
        return
    for first in range(k, -1, -1):
        for rest in _compositions(k - first, m - 1):
            yield (first,) + rest


def _kfold_atoms(atoms: list[tuple[arb, arb]], k: int) -> list[tuple[arb, arb]]:
    """Atoms of the k-fold composition (multinomial law of the count vector)."""
    out = []
    lf = [arb(0)]
    for i in range(1, k + 1):
        lf.append(lf[-1] + arb(i).log())
    logs = [(loss, prob.log() if prob > 0 else None) for loss, prob in atoms]
    for counts in _compositions(k, len(atoms)):
        if any(n > 0 and lp is None for n, (_, lp) in zip(counts, logs)):
            continue
        loss = arb(0)
        logp = lf[k]
        for n, (ell, lp) in zip(counts, logs):
            if n:
                loss += n * ell
                logp += n * lp - lf[n]
        out.append((loss, logp.exp()))
    return out


class PhiAccountant(Accountant):
    """Certified characteristic-function accountant (immutable).

    >>> acc = PhiAccountant().compose(GaussianPair(1))
    >>> acc.delta("0.277").certainly_less_than("0.3")
    True
    """

    def __init__(self, entries: Iterable[tuple[Pair, int]] = (), *,
                 rel_bits: int = DEFAULT_REL_BITS, method: str = "auto") -> None:
        if method not in ("auto", "exact", "integral"):
            raise InputError(f"method must be auto, exact or integral, got {method!r}")
        counts: dict[Pair, int] = {}
        for pair, k in entries:
            counts[pair] = counts.get(pair, 0) + k
        self._counts = counts
        self.rel_bits = rel_bits
        self.method = method

    # -- composition ------------------------------------------------------
    def compose(self, mechanism: object, count: int = 1) -> "PhiAccountant":
        pair = to_pair(mechanism)
        k = check_count(count)
        return PhiAccountant(list(self._counts.items()) + [(pair, k)],
                             rel_bits=self.rel_bits, method=self.method)

    @property
    def entries(self) -> tuple[tuple[Pair, int], ...]:
        return tuple(self._counts.items())

    def _relations(self) -> tuple[Relation, ...]:
        return ("remove",) if all(p.symmetric for p in self._counts) else RELATIONS

    def log_phi_expr(self, relation: Relation = "remove") -> sympy.Expr:
        """Σ k_j log φ_j(t) (sympy, symbol :data:`T`), finite part only."""
        return sympy.Add(*[k * sympy.log(p.phi_expr(T, relation)) for p, k in self._counts.items()])

    @property
    def mu_squared(self) -> Fraction:
        """μ² = Σ k/σ² of the Gaussian part."""
        return sum((Fraction(k) / p.sigma**2 for p, k in self._counts.items()
                    if isinstance(p, GaussianPair)), Fraction(0))

    def _inf_mass(self, relation: Relation) -> arb:
        keep = arb(1)
        for p, k in self._counts.items():
            if isinstance(p, FINITE_TYPES):
                keep *= (1 - p.inf_mass(relation)) ** k
        return 1 - keep

    def delta_at_infinity(self) -> Enclosure:
        """lim_{ε→∞} δ(ε): the larger of the two relations' masses at +∞
        (Lemma 36 of Zhu, Dong & Wang 2022), as a sound ball maximum (never by midpoints)."""
        with working_precision(128):
            return Enclosure.from_ball(ball_max(self._inf_mass(r) for r in self._relations()))

    def _atom_count(self) -> int:
        n = 1
        for p, k in self._counts.items():
            if isinstance(p, FINITE_TYPES):
                m = len(p.atoms("remove"))
                n *= math.comb(k + m - 1, m - 1)
        return n

    def _laplace_work(self) -> int:
        """Rough operation count of route 1b (exact Laplace ⊗ atoms)."""
        work = 1
        for p, k in self._counts.items():
            if isinstance(p, LaplacePair):
                work *= (k + 1) * (k + 2) * (k + 3) // 6 + 1
        total_k = sum(k for p, k in self._counts.items() if isinstance(p, LaplacePair))
        return work * self._atom_count() * (total_k + 1)

    def _choose_method(self) -> str:
        has_laplace = any(isinstance(p, LaplacePair) for p in self._counts)
        gauss = self.mu_squared > 0
        if self.method == "exact":
            if has_laplace and gauss:
                raise InputError("the exact route cannot handle Laplace together with Gaussian pairs")
            return "laplace" if has_laplace else "exact"
        if self.method == "integral":
            return "integral"
        if not has_laplace and self._atom_count() <= MAX_ATOMS:
            return "exact"
        if gauss:
            return "integral"
        if has_laplace and self._atom_count() <= MAX_ATOMS and self._laplace_work() <= MAX_LAPLACE_WORK:
            return "laplace"
        raise InputError(
            "this composition has no Gaussian factor (|phi| does not decay, so the inversion "
            "integral cannot be truncated) and is too large for exact convolution "
            f"(atoms {self._atom_count()}, Laplace work {self._laplace_work()}); not supported")

    def fits(self) -> bool:
        """Can this composition be answered (a route within the work limits exists)?"""
        try:
            self._choose_method()
        except InputError:
            return False
        return True

    # -- δ(ε) -------------------------------------------------------------
    def delta(self, eps: object) -> Enclosure:
        e = check_eps(eps)
        method = self._choose_method()
        results = [self._delta_adaptive(e, r, method) for r in self._relations()]
        lo = max((x.lo for x in results), key=lambda v: v)
        hi = max((x.hi for x in results), key=lambda v: v)
        if lo < 0:  # δ >= 0 always: a ball's midpoint-radius rounding can dip below 0 where δ = 0
            lo = arb(0)
        return Enclosure(lo, hi)

    def _delta_adaptive(self, eps: Fraction, relation: Relation, method: str) -> Enclosure:
        """δ(ε) for one relation, refined by the one loop until ``rel_bits`` bits
        (or containing 0 both ways); at 4096 bits the last finite ball."""
        unit = arb(0).union(arb(1))

        def compute(prec: int) -> arb:
            check_budget("the φ accountant's δ(ε)")
            if method == "exact":
                b = self._delta_exact(to_ball(eps), relation)
            elif method == "laplace":
                b = self._delta_laplace(to_ball(eps), relation)
            else:
                b = self._delta_integral(eps, relation, prec)
            return b.intersection(unit) if b.is_finite() and b.overlaps(unit) else b

        def good(b: arb) -> bool:
            return b.rad() == 0 or b.rad() <= abs(b.mid()) * arb(2) ** (-self.rel_bits - 1) or \
                (b.upper() <= 0 and b.lower() >= 0)

        return Enclosure.from_ball(refine(compute, good, start=64 + self.rel_bits, cap=max(4096, 64 + self.rel_bits),
                                          what=f"enclosing delta({eps})"))

    def _delta_exact(self, eps: arb, relation: Relation) -> arb:
        atoms = [(arb(0), arb(1))]
        for p, k in self._counts.items():
            if isinstance(p, FINITE_TYPES):
                fold = _kfold_atoms(p.atoms(relation), k)
                atoms = [(l1 + l2, w1 * w2) for (l1, w1), (l2, w2) in cartesian(atoms, fold)]
        mu2 = self.mu_squared
        total = self._inf_mass(relation)
        if mu2 > 0:
            mu = to_ball(mu2).sqrt()
            for loss, w in atoms:
                total += w * _positive_part(delta_mu_ball(mu, eps - loss))
        else:
            for loss, w in atoms:
                total += w * _positive_part(1 - (eps - loss).exp())
        return total

    # -- route 1b: exact Laplace ⊗ atoms (no Gaussian) -----------------------
    def _finite_atoms(self, relation: Relation) -> list[tuple[arb, arb]]:
        atoms = [(arb(0), arb(1))]
        for p, k in self._counts.items():
            if isinstance(p, FINITE_TYPES):
                fold = _kfold_atoms(p.atoms(relation), k)
                atoms = [(l1 + l2, w1 * w2) for (l1, w1), (l2, w2) in cartesian(atoms, fold)]
        return atoms

    def _delta_laplace(self, eps: arb, relation: Relation) -> arb:
        r"""Exact δ for Laplace pairs (any scales) ⊗ finite pairs, no Gaussian.

        With a = 1/λ the Laplace loss law (remove = add) is e^{z/2} ν(dz),
        ν = ½e^{−a/2}(δ_a + δ_{−a}) + ¼e^{−a/2}·Leb|(−a,a) (atoms +a: ½,
        −a: ½e^{−a}; density ¼e^{−a/2}e^{z/2} on (−a,a), from Zhu, Dong & Wang 2022 Lemma 33's
        L(o) = (|o−1|−|o|)/λ).  Tilting commutes with convolution, so the
        composed law is e^{z/2} (*_g ν_g^{*k_g})(dz).  Expanding each ν_g^{*k_g}
        binomially (m_g continuous factors, i_g atoms at +a_g) gives shifts
        x0 = Σ (k_g−m_g−2i_g)a_g with weights Π C(k_g,m_g)C(k_g−m_g,i_g)
        (½e^{−a_g/2})^{k_g−m_g}(¼e^{−a_g/2})^{m_g}, convolved with the box
        spline B = *_g Leb(−a_g,a_g)^{*m_g}, whose density (M = Σ m_g >= 1) is
        B(t) = Σ_r Π_g (−1)^{r_g} C(m_g,r_g) (t + b_r)_+^{M−1}/(M−1)!,
        b_r = Σ_g (m_g−2r_g)a_g, supported on [−S, S], S = Σ m_g a_g.  Then
        E[(1−e^{y−t})⁺ e^{(x0+t)/2}; t ~ B] = Σ_r coef_r ∫_{max(y,−b_r)}^{S}
        (e^{(x0+t)/2} − e^{y+x0/2−t/2})(t+b_r)^{M−1} dt, each integral in closed
        form via ∫ e^{βw} w^n dw = e^{βw} Σ_j (−1)^j n!/(n−j)! w^{n−j}/β^{j+1}.
        Finite atoms (ℓ, w) shift ε: δ = P(L=∞) + Σ w·D(ε − ℓ).  Every step is
        ball arithmetic; the alternating sums are exact identities evaluated
        with enough precision (the caller raises precision until tight).
        """
        groups = [(1 / to_ball(p.scale), k) for p, k in self._counts.items()
                  if isinstance(p, LaplacePair)]
        # configurations: (weight, x0, m-vector)
        configs: list[tuple[arb, arb, tuple[int, ...]]] = [(arb(1), arb(0), ())]
        for a, k in groups:
            alpha = (-a / 2).exp() / 2
            beta = alpha / 2
            new = []
            for m in range(k + 1):
                wm = arb(math.comb(k, m)) * alpha ** (k - m) * beta**m
                for i in range(k - m + 1):
                    w = wm * math.comb(k - m, i)
                    shift = (k - m - 2 * i) * a
                    for (w0, x0, ms) in configs:
                        new.append((w0 * w, x0 + shift, ms + (m,)))
            configs = new
        splines: dict[tuple[int, ...], tuple[int, arb, list[tuple[arb, arb]]]] = {}
        for _, _, ms in configs:
            if ms in splines:
                continue
            big_m = sum(ms)
            big_s = sum((m * a for m, (a, _) in zip(ms, groups)), arb(0))
            terms = [(arb(1), arb(0))]
            for m, (a, _) in zip(ms, groups):
                terms = [(c * ((-1) ** r * math.comb(m, r)), b + (m - 2 * r) * a)
                         for c, b in terms for r in range(m + 1)]
            if big_m:
                fact = arb(math.factorial(big_m - 1))
                terms = [(c / fact, b) for c, b in terms]
            splines[ms] = (big_m, big_s, terms)
        total = self._inf_mass(relation)
        for loss, wa in self._finite_atoms(relation):
            x = eps - loss
            acc = arb(0)
            for w, x0, ms in configs:
                big_m, big_s, terms = splines[ms]
                y = x - x0
                if big_m == 0:
                    acc += w * (x0 / 2).exp() * _positive_part(1 - y.exp())
                    continue
                part = arb(0)
                for coef, b in terms:
                    part += coef * _tilted_piece(x, x0, y, b, big_s, big_m - 1)
                acc += w * part
            total += wa * acc
        return total

    # -- route 2 ------------------------------------------------------------
    def _mgf_function(self, relation: Relation):
        """s -> M(s) with all constants precomputed at the current precision."""
        eta = to_ball(self.mu_squared / 2)
        gauss = self.mu_squared > 0
        finite = []
        for p, k in self._counts.items():
            if isinstance(p, FINITE_TYPES):
                atoms = p.atoms(relation)
                if len(atoms) == 2 and atoms[0][0].overlaps(-atoms[1][0]) and \
                        isinstance(p, (RRPair, ApproxDPPair)):
                    # ±ℓ atoms: w1 e^{sℓ} + w2 / e^{sℓ}  (one exp)
                    finite.append(("pm", atoms[0][0], atoms[0][1], atoms[1][1], k))
                else:
                    finite.append(("gen", atoms, None, None, k))
        laplace = [(1 / to_ball(p.scale), (-1 / to_ball(p.scale)).exp(), k)
                   for p, k in self._counts.items() if isinstance(p, LaplacePair)]

        def mgf(s: acb) -> acb:
            m = (eta * s * (s + 1)).exp() if gauss else acb(1)
            for kind, ell, w1, w2, k in finite:
                if kind == "pm":
                    e = (s * ell).exp()
                    f = w1 * e + w2 / e
                else:
                    f = acb(0)
                    for loss, prob in ell:
                        f += prob * (s * loss).exp()
                m *= f if k == 1 else f**k
            if laplace:
                inv = 1 / (2 * s + 1)
                for a, ema, k in laplace:
                    e1 = (s * a).exp()
                    e2 = ema / e1  # e^{-(s+1)a} = e^{-a} / e^{sa}
                    f = (e1 + e2 + (e1 - e2) * inv) / 2
                    m *= f if k == 1 else f**k
            return m

        return mgf


    def _log_bound_nongauss(self, c: arb, relation: Relation) -> arb:
        total = arb(0)
        for p, k in self._counts.items():
            if not isinstance(p, GaussianPair):
                total += k * upper_bound(p.mgf_real_upper(c, relation)).log()
        return total

    def _choose_c(self, eps: Fraction, relation: Relation) -> Fraction:
        """c near the minimiser of log M(c) − cε − log(c(c+1)) (float search only;
        any c > 0 gives a valid formula)."""
        with working_precision(53):
            mgf = self._mgf_function(relation)
            eps_f = float(eps)

            def f(c: float) -> float:
                m = mgf(acb(c)).real
                return float(m.mid().log()) - c * eps_f - math.log(c * (c + 1))

            lo, hi = 1e-3, 1.0
            while hi < 1e4 and f(hi * 2) < f(hi):
                hi *= 2
            hi *= 2
            for _ in range(40):  # golden section
                m1, m2 = lo + (hi - lo) * 0.382, lo + (hi - lo) * 0.618
                if f(m1) < f(m2):
                    hi = m2
                else:
                    lo = m1
        c = max((lo + hi) / 2, 1e-3)
        return Fraction(round(c * 2**20), 2**20)  # dyadic: an exact ball

    def _delta_integral(self, eps_q: Fraction, relation: Relation, prec: int) -> arb:
        if self.mu_squared <= 0:
            raise InputError("the integral route needs at least one Gaussian factor")
        c_q = self._choose_c(eps_q, relation)
        c, eps = to_ball(c_q), to_ball(eps_q)
        eta = to_ball(self.mu_squared / 2)
        # tail constant K = e^{-cε} B(c) e^{η c(c+1)} / (2π η)
        log_k = -c * eps + self._log_bound_nongauss(c, relation) + eta * c * (c + 1)
        log_k_f = float(log_k.mid())
        eta_f = float(eta.mid())
        s0 = acb(c, 0)
        mgf = self._mgf_function(relation)
        i_unit = acb(0, 1)

        def integrand(y: acb, _analytic: bool) -> acb:
            s = s0 + i_unit * y
            return mgf(s) * (-s * eps).exp() / (s * (s + 1))

        # a first estimate of the size of δ_fin guides Y (search only)
        target_rel = 2.0 ** (-self.rel_bits - 3)
        y_max = math.sqrt(max(1.0, (log_k_f + 40) / eta_f))
        est = None
        for _ in range(8):
            tol_abs = arb(2) ** (-prec) * (est if est else 1.0)
            y_b = to_ball(Fraction(math.ceil(y_max * 2**10), 2**10))  # dyadic: exact endpoint
            val = acb.integral(integrand, 0, y_b,
                               rel_tol=arb(2) ** (-self.rel_bits - 6), abs_tol=tol_abs)
            tail = (log_k - eta * y_b * y_b).exp() / (2 * eta * y_b**3 * arb.pi())
            main = val.real / arb.pi()
            est = abs(float(main.mid())) if est is None else est
            if float(tail.upper()) <= target_rel * max(abs(float(main.mid())), 1e-300):
                return self._inf_mass(relation) + main + _sym(tail)
            need = log_k_f - math.log(target_rel * max(est, 1e-300))
            y_max = max(y_max * 1.5, math.sqrt(max(1.0, need / eta_f)))
        raise PrecisionError("could not make the inversion tail small enough")


def _sym(t: arb) -> arb:
    """The ball [-t, t] for an upper bound t >= 0."""
    u = upper_bound(t)
    return (-u).union(u)


def _antiderivative(beta: arb, n: int, w: arb) -> arb:
    """A(w) with A' = e^{βw} w^n: e^{βw} Σ_j (−1)^j n!/(n−j)! w^{n−j} / β^{j+1}."""
    total = arb(0)
    coef = 1 / beta  # (−1)^j n!/(n−j)! / β^{j+1} built incrementally
    power = [arb(1)]
    for _ in range(n):
        power.append(power[-1] * w)
    for j in range(n + 1):
        total += coef * power[n - j]
        coef = -coef * (n - j) / beta
    return (beta * w).exp() * total


def _tilted_piece(x: arb, x0: arb, y: arb, b: arb, big_s: arb, n: int) -> arb:
    """∫_{max(y,−b)}^{S} (e^{(x0+t)/2} − e^{x − (x0+t)/2}) (t+b)^n dt, 0 if empty.

    Ambiguous ball comparisons take the union of the candidate values (the
    true value is one of them for every point of the balls)."""
    half = arb(1) / 2

    def value(lo: arb) -> arb:
        w1, w2 = lo + b, big_s + b
        plus = _antiderivative(half, n, w2) - _antiderivative(half, n, w1)
        minus = _antiderivative(-half, n, w2) - _antiderivative(-half, n, w1)
        return ((x0 - b) / 2).exp() * plus - (x - (x0 - b) / 2).exp() * minus

    if y > -b:
        cands = [y]
    elif y < -b:
        cands = [-b]
    else:
        cands = [y, -b]
    out: arb | None = None
    for lo in cands:
        if lo >= big_s:
            v = arb(0)
        elif lo < big_s:
            v = value(lo)
        else:
            v = value(lo).union(arb(0))
        out = v if out is None else out.union(v)
    return out

"""Independent re-derivation of an upper bound on δ(ε) for
``compose(subsample(M, rate=γ), k=n)`` with M a Laplace mechanism, randomized response
or a pure-DP guarantee — evidence ``pld_law`` of a ``dp`` certificate: the per-relation
loss laws the generic PLD engine composes, so the certificate states the engine's own
upper end (the symmetric profile pair of ``pld_profile`` dominates both relations at
once and is looser for a subsampled mechanism: 7.11 against 6.15 for Laplace at
γ = 1/10, n = 200).

Mathematics (each step can only increase F_ε(ν) = ∫(1 − e^{ε−y})⁺ dν(y)):

* The base pairs (loss law under P, with the Q-masses):
  - Laplace (Zhu, Dong & Wang 2022 Lemma 33), a = Δ/b: P = Lap(0, 1/a), Q = Lap(1, 1/a) in units of
    the sensitivity; loss +a for x <= 0 (P-mass 1/2, Q-mass e^{−a}/2), −a for x >= 1
    (e^{−a}/2, 1/2) and (1 − 2x)a on (0, 1), so L > w on (0, x_w), x_w =
    clip((1 − w/a)/2, 0, 1): P-mass (1 − e^{−a x_w})/2, Q-mass (e^{(x_w − 1)a} − e^{−a})/2;
  - randomized_response(p), r = max(p, 1 − p) (Zhu, Dong & Wang 2022 Lemma 32): atoms ±log(r/(1 − r))
    with P-masses r, 1 − r (Q-masses swapped); one atom at 0 when r = 1/2;
  - discrete_laplace(t, Δ): the Δ + 1 exact atoms of :class:`certdp.verifier.mechs.DiscreteLaplace`;
  - discrete_gaussian(σ, Δ): the atoms |x| <= N of :class:`certdp.verifier.mechs.DiscreteGaussian`,
    the tails' P-mass at +∞ and Q-mass at −∞ (:meth:`_Base.infinite`);
  - pure_dp(ε0) / approx_dp(ε0, δ0): the tight pair of the guarantee, atoms ±ε0 with
    P-masses (1 − δ0)e^{ε0}/(1 + e^{ε0}), (1 − δ0)/(1 + e^{ε0}) and P(L = +∞) = Q(L = −∞) =
    δ0 (Zhu, Dong & Wang 2022 Lemma 32; Liu et al. 2022 Thm 3.1; it dominates every mechanism meeting
    the guarantee, so the claim holds for the guarantee).  Subsampled, +∞ stays +∞ with
    P-mass γδ0 (remove) and the −∞ atom becomes the finite atom log(1 − γ) with (P, Q) =
    ((1 − γ)δ0, δ0); add: the +∞ atom becomes −log(1 − γ) with (δ0, (1 − γ)δ0), the −∞
    atom keeps no P-mass.
* Poisson subsampling at rate γ < 1 (Zhu, Dong & Wang 2022 Thm 11(1)): remove — X ~ γP + (1−γ)Q
  against Q, loss g(L) = log(1 − γ + γe^L); add — X ~ P against (1−γ)P + γQ, loss
  −g(−L).  δ_M(ε) is the larger of the two relations' δ (Zhu, Dong & Wang 2022 Thm 6).
* One step, connect-the-dots (Doroshenko et al. 2022 Thm 3.4) on the stated grid
  indices [i_lo, i_hi] of each relation: the P-mass of the losses in (ω_j, ω_{j+1}] is
  split between ω_j and ω_{j+1} keeping the Q-mass; an atom between two grid points
  the same way (onto the point when it lies on one); the mass below the range goes up
  to ω_{i_lo}, above it to +∞; masses rounded up to multiples of 2^−bits.  The split
  pair is a post-processing-dominating pair, and any range is sound.
* Composition and F_ε: :func:`certdp.verifier.check_pld.compose` and ``f_eps``.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Mapping

from flint import arb

from certdp.verifier.pld_compose import MAX_BITS, MAX_COUNT, MAX_GRID, _compose_lower, compose, f_eps
from certdp.verifier.schema import MalformedCertificate, _fields, number_string
from certdp.verifier.errors import InputError, PrecisionError, check_budget
from certdp.verifier.ball import fixed_point_units, lower_bound, to_ball, upper_bound, working_precision
from certdp.verifier.exact import exact

# -- the grid and the connect-the-dots split (also the library's loss-law discretisation,
#    :mod:`certdp.analyses.accountants.discretise`; here, not in ball.py, so that a check of
#    another kind does not load them) ------------------------------------------------------


def clip01(t: arb) -> arb:
    """The ball {min(max(x, 0), 1) : x ∈ t} (clipping is monotone: clip the ends)."""
    lo, hi = lower_bound(t), upper_bound(t)
    lo = arb(0) if lo < 0 else (arb(1) if lo > 1 else lo)
    hi = arb(0) if hi < 0 else (arb(1) if hi > 1 else hi)
    return lo.union(hi)


def _short(q: Fraction) -> str:
    """q for a message: exact when short, else about 6 digits."""
    text = str(q)
    return text if len(text) <= 24 else f"about {float(q):.6g}" if abs(q) < 10**300 else "beyond 1e300"


def grid_bracket(x: "Fraction | arb", h: Fraction) -> tuple[int, int]:
    """(a, b) with a·h < x < b·h proved, or (k, k) when the exact x is k·h (the midpoint
    guides the search; PrecisionError when x is not finite or 64 steps from the guide do
    not separate it)."""
    if isinstance(x, Fraction):
        k = math.floor(x / h)
        return (k, k) if k * h == x else (k, k + 1)
    if not x.is_finite():
        raise PrecisionError(f"cannot place {x} on the grid h = {_short(h)}: the ball is not finite")
    hb = to_ball(h)
    guide = (x.mid() / hb).mid().floor().unique_fmpz()  # exact floor of the guide (no float overflow)
    if guide is None:
        raise PrecisionError(f"cannot place {x} on the grid h = {_short(h)}")
    k = int(guide)
    lo, hi = k, k + 1
    for _ in range(64):
        if lo * hb < x:
            break
        lo -= 1
    for _ in range(64):
        if hi * hb > x:
            break
        hi += 1
    if not (lo * hb < x and hi * hb > x):
        raise PrecisionError(f"cannot bracket {x} on the grid h = {_short(h)}")
    return lo, hi


def split_keeping_q(p: arb, q: arb, ea: arb, eb: arb) -> tuple[arb, arb]:
    """Connect-the-dots (Doroshenko et al. 2022 Thm 3.4): P-mass p with Q-mass q, its
    losses between ω_a < ω_b, split as (A, p − A) onto ω_a, ω_b so that the Q-mass is
    kept: A e^{−ω_a} + (p − A) e^{−ω_b} = q, i.e. A = (q − e^{−ω_b} p)/(e^{−ω_a} − e^{−ω_b})
    (``ea``, ``eb`` = e^{−ω_a}, e^{−ω_b})."""
    A = (q - eb * p) / (ea - eb)
    return A, p - A


def connect_the_dots(pt: list[arb], qt: list[arb], i_lo: int, h: Fraction) -> list[arb]:
    """P-masses on the grid points ω_{i_lo}, ..., ω_{i_lo+n−1} (ω_i = ih) of the mass whose
    losses lie in the cells (ω_j, ω_{j+1}], from the P- and Q-tails above each grid point
    (``pt``, ``qt``), each cell split by :func:`split_keeping_q`."""
    n = len(pt)
    masses = [arb(0)] * n
    for j in range(n - 1):
        ea, eb = to_ball(-(i_lo + j) * h).exp(), to_ball(-(i_lo + j + 1) * h).exp()
        lo_part, hi_part = split_keeping_q(pt[j] - pt[j + 1], qt[j] - qt[j + 1], ea, eb)
        masses[j] += lo_part
        masses[j + 1] += hi_part
    return masses



EVIDENCE_FIELDS = {"h", "bits", "tau", "remove", "add"}
SIGNS = {"remove": 1, "add": -1}


def parse_evidence(ev: Any) -> tuple[Fraction, int, Fraction, dict[int, tuple[int, int]]]:
    """(h, bits, τ, relation sign → grid index range) of ``evidence.pld_law``."""
    ev = _fields(ev, "evidence.pld_law", EVIDENCE_FIELDS, set())
    try:
        h = exact(number_string(ev["h"], "evidence.pld_law.h"), "evidence.pld_law.h")
        tau = exact(number_string(ev["tau"], "evidence.pld_law.tau"), "evidence.pld_law.tau")
    except InputError as err:
        raise MalformedCertificate(str(err)) from None
    bits = ev["bits"]
    if type(bits) is not int or not 8 <= bits <= MAX_BITS:
        raise MalformedCertificate(f"evidence.pld_law.bits must be an integer in [8, {MAX_BITS}]")
    if not (Fraction(1, 2**40) <= h <= 2**20 and 0 <= tau < 1):
        raise MalformedCertificate("evidence.pld_law: need 2^-40 <= h <= 2^20 and 0 <= tau < 1")
    ranges: dict[int, tuple[int, int]] = {}
    for rel, sign in SIGNS.items():
        r = ev[rel]
        if (not isinstance(r, list) or len(r) != 2 or any(type(i) is not int for i in r)
                or not r[0] < r[1] or r[1] - r[0] >= MAX_GRID or max(abs(r[0]), abs(r[1])) > 2**62):
            raise MalformedCertificate(f"evidence.pld_law.{rel} must be [i_lo, i_hi], integers with "
                                       f"i_lo < i_hi and fewer than {MAX_GRID} points")
        ranges[sign] = (r[0], r[1])
    return h, bits, tau, ranges


#: The bases this evidence takes (the module doc gives their pairs).
BASES = ("laplace", "discrete_laplace", "discrete_gaussian", "randomized_response", "pure_dp", "approx_dp")


def subsampled_base(mech: Any) -> tuple["_Base", Fraction, int]:
    """(base pair, γ, n) of M / subsample(M, γ) / compose(…, k=n) for M in :data:`BASES`;
    else MalformedCertificate."""
    count = 1
    while getattr(mech, "name", None) == "compose":
        count *= int(mech.k)
        mech = mech.mechanism
    rate = Fraction(1)
    if getattr(mech, "name", None) == "subsample":
        rate, mech = Fraction(mech.rate), mech.mechanism
    base = _base_of(mech)
    if base is None or not 1 <= count <= MAX_COUNT:
        raise MalformedCertificate("evidence.pld_law certifies compose(subsample(M, rate=q), k=n) for M one of "
                                   f"{', '.join(BASES)} only")
    return base, rate, count


class _Base:
    """A symmetric base pair: atoms (loss, P-mass, Q-mass) and, for Laplace, a continuous
    part; balls are made when asked for, at the working precision of the caller."""

    def __init__(self, kind: str, value: Fraction, mech: Any = None, delta0: Fraction = Fraction(0)) -> None:
        # ("laplace", a), ("rr", r), ("pure", ε0, δ0), ("dl", 0, m)
        self.kind, self.value, self.mech, self.delta0 = kind, value, mech, delta0

    def tails(self, w: arb | None) -> tuple[arb, arb]:
        """(P, Q)-mass of the continuous part with loss > w (None: all of it); 0 for an atom law."""
        if self.kind != "laplace":
            return arb(0), arb(0)
        a = to_ball(self.value)
        x = arb(1) if w is None else clip01((1 - w / a) / 2)
        return (1 - (-x * a).exp()) / 2, (((x - 1) * a).exp() - (-a).exp()) / 2

    def atoms(self) -> list[tuple[Fraction | arb, arb, arb]]:
        v = self.value
        if self.kind in ("dl", "dg"):  # the mechanism's own exact atoms (mechs.DiscreteLaplace / Gaussian)
            return self.mech.atoms()
        if self.kind == "laplace":
            e = (-to_ball(v)).exp() / 2
            return [(v, arb(1) / 2, e), (-v, e, arb(1) / 2)]
        if self.kind == "rr":  # r = max(p, 1 − p) >= 1/2
            if v == Fraction(1, 2):
                return [(Fraction(0), arb(1), arb(1))]
            hi, lo = to_ball(v), to_ball(1 - v)
            return [((hi / lo).log(), hi, lo), (-(hi / lo).log(), lo, hi)]
        keep = 1 - to_ball(self.delta0)  # (ε0, δ0): the rest sits at ±∞ (:meth:`infinite`)
        if v == 0:  # pure_dp(0)
            return [(Fraction(0), keep, keep)]
        w = to_ball(v).exp()
        return [(v, keep * w / (1 + w), keep / (1 + w)), (-v, keep / (1 + w), keep * w / (1 + w))]

    def infinite(self) -> tuple[arb, arb]:
        """(P-mass at loss +∞, Q-mass at loss −∞): δ0 for an (ε0, δ0) pair; for the discrete
        Gaussian its two tails beyond the kept atoms, P-mass sent to +∞ and Q-mass to −∞ —
        a pair the true one is a post-processing of (split the +∞ output by P, the −∞
        output by Q over the tail), as balls [0, bound]: a lower bound keeps none of it."""
        if self.kind == "dg":
            return self.mech.tails(), self.mech.tails()
        if self.kind == "pure":
            return to_ball(self.delta0), to_ball(self.delta0)
        return arb(0), arb(0)


def _base_of(m: Any) -> _Base | None:
    name = getattr(m, "name", None)
    if name == "laplace":
        return _Base("laplace", Fraction(m.sensitivity) / Fraction(m.scale))
    if name == "randomized_response":
        return _Base("rr", max(Fraction(m.p), 1 - Fraction(m.p)))
    if name in ("discrete_laplace", "discrete_gaussian"):
        return _Base("dl" if name == "discrete_laplace" else "dg", Fraction(0), m)
    if name in ("pure_dp", "approx_dp"):
        return _Base("pure", Fraction(m.eps), delta0=Fraction(m.params.get("delta", 0)))
    return None


class _Law:
    """The loss law of one relation (sign +1 remove, −1 add) of subsample(base, γ)."""

    def __init__(self, base: _Base, gamma: Fraction, sign: int) -> None:
        self.base, self.gamma, self.sign = base, to_ball(gamma), sign
        self.sub = gamma < 1

    def _base_tails(self, w: arb | None) -> tuple[arb, arb]:
        return self.base.tails(w)

    def p_inf(self) -> arb:
        """P-mass at loss +∞: δ0 of an (ε0, δ0) pair, γδ0 subsampled (remove; add: 0)."""
        d0 = self.base.infinite()[0]
        if not self.sub:
            return d0
        return self.gamma * d0 if self.sign > 0 else arb(0)

    def tails(self, w: Fraction | None) -> tuple[arb, arb]:
        """(P, Q)-mass of this law's continuous part with loss > w (None: all of it)."""
        if not self.sub:
            return self._base_tails(None if w is None else to_ball(w))
        g, c = self.gamma, 1 - self.gamma
        u = arb(0) if w is None else (to_ball(w) if self.sign > 0 else -to_ball(w))
        t = u.exp() - c  # remove: L > g⁻¹(w); add: L > −g⁻¹(−w)
        if w is None:
            bp, bq = self._base_tails(None)
        elif t > 0:
            v = (t / g).log()
            bp, bq = self._base_tails(v if self.sign > 0 else -v)
        elif t < 0:  # u below g's range
            bp, bq = self._base_tails(None) if self.sign > 0 else (arb(0), arb(0))
        else:  # undecided at the end of the range: the whole [0, total]
            tp, tq = self._base_tails(None)
            bp, bq = arb(0).union(tp), arb(0).union(tq)
        if self.sign > 0:
            return g * bp + c * bq, bq
        return bp, c * bp + g * bq

    def atoms(self) -> list[tuple[Fraction | arb, arb, arb]]:
        """(loss, P-mass, Q-mass) of the atoms: the base's, mapped by g (remove) or −g(−·)
        (add); a loss 0 stays exactly 0 (g(0) = 0), exact losses stay exact without
        subsampling."""
        base = self.base.atoms()
        if not self.sub:
            return list(base)
        g, c = self.gamma, 1 - self.gamma
        out: list[tuple[Fraction | arb, arb, arb]] = []
        for ell, p, q in base:
            zero = isinstance(ell, Fraction) and ell == 0
            b = to_ball(ell)
            if self.sign > 0:
                out.append((Fraction(0) if zero else (c + g * b.exp()).log(), g * p + c * q, q))
            else:
                out.append((Fraction(0) if zero else -(c + g * (-b).exp()).log(), p, c * p + g * q))
        p_inf, q_minf = self.base.infinite()
        # the ±∞ atoms made finite by subsampling (last); kept unless certainly empty — a
        # ball [0, b] (the discrete Gaussian's tails) is kept: an upper bound needs its mass
        if self.sign > 0 and not q_minf == 0:
            out.append((c.log(), c * q_minf, q_minf))
        if self.sign < 0 and not p_inf == 0:
            out.append((-c.log(), p_inf, c * p_inf))
        return out


def one_step(law: _Law, h: Fraction, bits: int, i_lo: int, i_hi: int) -> tuple[int, list[int], int]:
    """(offset, fixed-point P-masses on (offset + k)h, units at +∞), rounded up (module doc)."""
    n = i_hi - i_lo + 1
    if law.base.kind != "laplace":  # an atom law: no continuous part to spread
        masses, inf = [arb(0)] * n, law.p_inf()
    else:
        pt, qt = [], []
        for i in range(i_lo, i_hi + 1):
            if not (i - i_lo) % 512:
                check_budget("re-deriving the one-step loss-law PLD", i - i_lo, n)
            p, q = law.tails(i * h)
            pt.append(p)
            qt.append(q)
        masses = connect_the_dots(pt, qt, i_lo, h)
        masses[0] += law.tails(None)[0] - pt[0]  # below the range: up to its first point
        inf = pt[-1] + law.p_inf()
    for ell, p, q in law.atoms():
        a, b = grid_bracket(ell, h)
        if a == b and i_lo <= a <= i_hi:
            masses[a - i_lo] += p
            continue
        if not (i_lo <= a and b <= i_hi):
            # outside the stated range: up to the first point, or to +∞
            if b <= i_lo:
                masses[0] += p
            else:
                inf += p
            continue
        ea, eb = to_ball(-a * h).exp(), to_ball(-b * h).exp()
        lo_part, hi_part = split_keeping_q(p, q, ea, eb)
        masses[a - i_lo] += lo_part
        masses[b - i_lo] += hi_part
    scale = arb(2) ** bits
    coeffs = [fixed_point_units(m, scale, True) for m in masses]
    return i_lo, coeffs, fixed_point_units(inf, scale, True)


def upper_plds(mech: Any, ev: Mapping[str, Any], prec: int) -> dict[int, tuple[int, list[int], int]]:
    """Both relations' composed upper PLDs from ``evidence.pld_law`` (raises PrecisionError
    when an atom cannot be placed at this precision)."""
    h, bits, tau, ranges = parse_evidence(ev)
    base, gamma, count = subsampled_base(mech)
    tau_units = int(tau * (1 << bits))
    out = {}
    with working_precision(max(prec, bits + 64)):
        for sign, (i_lo, i_hi) in ranges.items():
            out[sign] = compose(one_step(_Law(base, gamma, sign), h, bits, i_lo, i_hi), count, bits, tau_units)
    return out


def delta_upper(mech: Any, eps: Fraction, ev: Mapping[str, Any], prec: int) -> arb | str:
    """max over the relations of F_ε of the composed upper PLDs: a certified upper bound
    on δ_M(ε) — or the step that is not proved (str)."""
    h, bits = parse_evidence(ev)[:2]
    try:
        plds = upper_plds(mech, ev, prec)
    except PrecisionError:
        return "an atom's loss could not be placed between two grid points at this precision"
    with working_precision(prec):
        best = arb(0)
        for pld in plds.values():
            d = upper_bound(f_eps(pld, h, bits, eps))
            best = d if d > best else best
        return best


# ---------------------------------------------------------------------------
# lower bounds: evidence pld_law_lower (refutations, kind not_dp)
# ---------------------------------------------------------------------------

LOWER_FIELDS = {"h", "bits", "tau", "shift", "remove", "add"}
MAX_REGIONS = 8


def parse_lower_evidence(ev: Any) -> tuple[Fraction, int, Fraction, Fraction, dict[int, tuple]]:
    """(h, bits, τ, shift, relation sign → ((i_lo, i_hi), ((atom index, u, v), ...))) of
    ``evidence.pld_law_lower``."""
    ev = _fields(ev, "evidence.pld_law_lower", LOWER_FIELDS, set())
    h, bits, tau, _ = parse_evidence({"h": ev["h"], "bits": ev["bits"], "tau": ev["tau"],
                                      "remove": ev["remove"].get("range") if isinstance(ev["remove"], dict) else None,
                                      "add": ev["add"].get("range") if isinstance(ev["add"], dict) else None})
    try:
        shift = exact(number_string(ev["shift"], "evidence.pld_law_lower.shift"), "evidence.pld_law_lower.shift")
    except InputError as err:
        raise MalformedCertificate(str(err)) from None
    if not 0 <= shift < Fraction(1, 2):
        raise MalformedCertificate("evidence.pld_law_lower.shift must lie in [0, 1/2)")
    out: dict[int, tuple] = {}
    for rel, sign in SIGNS.items():
        r = _fields(ev[rel], f"evidence.pld_law_lower.{rel}", {"range", "regions"}, set())
        regions = r["regions"]
        if not isinstance(regions, list) or len(regions) > MAX_REGIONS:
            raise MalformedCertificate(f"evidence.pld_law_lower.{rel}.regions must be a list of at most "
                                       f"{MAX_REGIONS} [atom, u, v]")
        parsed = []
        for item in regions:
            if (not isinstance(item, list) or len(item) != 3 or type(item[0]) is not int
                    or item[0] not in (0, 1)):
                raise MalformedCertificate(f"evidence.pld_law_lower.{rel}.regions: each is [atom 0 or 1, u, v]")
            try:
                u, v = (exact(number_string(x, "region end"), "region end") for x in item[1:])
            except InputError as err:
                raise MalformedCertificate(str(err)) from None
            if not u < v or any(not (v <= a or u >= b) or i == item[0] for i, a, b in parsed):
                raise MalformedCertificate(f"evidence.pld_law_lower.{rel}.regions: need u < v, disjoint "
                                           "regions, one per atom")
            parsed.append((item[0], u, v))
        out[sign] = (tuple(r["range"]), tuple(parsed))
    return h, bits, tau, shift, out


def _floor_index(x: Fraction | arb, h: Fraction) -> int:
    """The largest grid index k with k·h <= x, proved (PrecisionError when undecided:
    the checker then raises its precision)."""
    a, _ = grid_bracket(x, h)
    return a


def one_step_lower(law: _Law, h: Fraction, bits: int, shift: Fraction, i_lo: int, i_hi: int,
                   regions: tuple[tuple[int, Fraction, Fraction], ...]) -> tuple[int, list[int], int]:
    """A dominated one-step PLD: outputs merged (a post-processing: every F_ε falls) —
    the continuous part into the cells (b_{j−1}, b_j], b_j = (i_lo + j + 1/2 + shift)h, less
    the regions; each stated atom with the continuous mass of its region (u, v] — and every
    merged loss ℓ = log(P/Q) moved DOWN to the grid point proved below it (else to one below
    its lowest member); the other atoms down to ⌊ℓ/h⌋h; mass below b_{−1} dropped, above
    b_{n−1} down to i_hi; masses rounded down."""
    n = i_hi - i_lo + 1
    bounds = [(i_lo + j + Fraction(1, 2) + shift) * h for j in range(-1, n)]
    first, last = bounds[0], bounds[-1]
    atoms = law.atoms()
    if law.base.kind != "laplace":  # an atom law: no continuous part, every atom on its own
        regions = ()  # (Laplace has its two atoms: the parser takes indices 0 and 1 only)
    regs = [(idx, max(u, first), min(v, last)) for idx, u, v in regions]
    regs = [(idx, u, v) for idx, u, v in regs if u < v]
    cuts = sorted(set(bounds) | {x for _, u, v in regs for x in (u, v)}) if law.base.kind == "laplace" else []
    tails = {}
    for c, x in enumerate(cuts):
        if not c % 512:
            check_budget("re-deriving the lower one-step loss-law PLD", c, len(cuts))
        tails[x] = law.tails(x)
    groups: dict[object, list] = {}  # ("cell", j) or ("region", r) -> [P, Q, fallback index]
    j = 0
    for x, y in zip(cuts, cuts[1:]):
        while bounds[j + 1] < y:
            j += 1
        key = next((("region", r) for r, (_, u, v) in enumerate(regs) if u <= x and y <= v), ("cell", j))
        g = groups.setdefault(key, [arb(0), arb(0), math.floor(x / h)])
        g[0] += tails[x][0] - tails[y][0]
        g[1] += tails[x][1] - tails[y][1]
        g[2] = min(g[2], math.floor(x / h))  # every member loss is > x
    masses = [arb(0)] * n
    merged = set()
    for key, (P, Q, fallback) in groups.items():
        if key[0] == "region":
            idx = regs[key[1]][0]
            ell, p, q = atoms[idx]
            merged.add(idx)
            P, Q = P + p, Q + q
            fallback = min(fallback, _floor_index(ell, h))
        if not P > 0:
            continue
        k = fallback  # below every member's loss
        if Q > 0:
            try:
                k = max(k, _floor_index((P / Q).log(), h))
            except PrecisionError:
                pass
        k = min(k, i_hi)
        if k >= i_lo:
            masses[k - i_lo] += P
    if tails:
        masses[-1] += tails[last][0]  # above the last end: down to i_hi
    for idx, (ell, p, _) in enumerate(atoms):
        if idx in merged:
            continue
        k = min(_floor_index(ell, h), i_hi)
        if k >= i_lo:
            masses[k - i_lo] += p
    scale = arb(2) ** bits
    coeffs = [fixed_point_units(m, scale, False) for m in masses]
    return i_lo, coeffs, fixed_point_units(law.p_inf(), scale, False)  # δ0 at +∞, rounded down


def delta_lower(mech: Any, eps: Fraction, ev: Mapping[str, Any], prec: int) -> arb:
    """A ball whose lower end bounds δ_M(ε) from below: the larger of the two relations'
    F_ε of their composed dominated PLDs (``evidence.pld_law_lower``)."""
    h, bits, tau, shift, rels = parse_lower_evidence(ev)
    base, gamma, count = subsampled_base(mech)
    tau_units = int(tau * (1 << bits))
    best = arb(0)
    with working_precision(max(prec, bits + 64)):
        for sign, ((i_lo, i_hi), regions) in rels.items():
            step = one_step_lower(_Law(base, gamma, sign), h, bits, shift, i_lo, i_hi, regions)
            pld = _compose_lower(step, count, bits, tau_units)
            d = lower_bound(f_eps(pld, h, bits, eps))
            best = d if d > best else best
    return best

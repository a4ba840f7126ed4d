"""Independent re-derivation of a certified upper bound on δ(ε) for a
composition of Poisson-subsampled Gaussian mechanisms (DP-SGD): the evidence
``pld`` of a ``dp`` certificate.

The checker does not call the accountant (:mod:`certdp.analyses.accountants.pld`);
it rebuilds, from the mechanism spec and the stated discretisation only
(grid step h, fixed-point bits, truncation τ, a range guide z), a dominating
discrete privacy-loss distribution and evaluates it in ball arithmetic.

Mathematics (each step can only *increase* F_ε(ν) = ∫(1 − e^{ε−y})⁺ dν(y),
so the final value bounds δ(ε) of the composition from above):

* Dominating pairs of the subsampled Gaussian (Zhu, Dong & Wang 2022,
  "Optimal accounting of differential privacy via characteristic function",
  Thm 6/Lemma 34): remove P = (1−q)N(0,σ²) + qN(1,σ²), Q = N(0,σ²), loss
  L(x) = log(1 − q + q e^{(2x−1)/(2σ²)}); add (x ↦ −x) P = N(0,σ²),
  Q = (1−q)N(0,σ²) + qN(−1,σ²), L(x) = −log(1 − q + q e^{(−2x−1)/(2σ²)}).
  Both losses increase in x; δ_M(ε) = max over the two of E_P(1 − e^{ε−L})⁺.
* One step, connect-the-dots (Doroshenko, Ghazi, Kamath, Kumar, Manurangsi
  2022, "Connect the dots: tighter discrete approximations of privacy loss
  distributions", Thm 3.4): the P-mass of each x-interval whose loss lies in
  [ω_j, ω_{j+1}] (ω_j = jh) is split between ω_j and ω_{j+1} with
  A = (Q(I) − e^{−ω_{j+1}} P(I)) / (e^{−ω_j} − e^{−ω_{j+1}}) and P(I) − A;
  losses below the grid go up to its first point, above it to +∞; masses are
  rounded up to multiples of 2^−bits.
* Composition: exact integer polynomial products (one GMP product of the masses
  packed into one integer, :class:`_Packed`), divided by 2^bits rounding up (⌈c/2^b⌉ <= ⌊c/2^b⌋ + 1); after each product
  the bottom tail of mass <= τ moves up onto the first kept point and the top
  tail of mass <= τ to +∞.
* F_ε of the result: Σ_{y_k > ε} c_k (1 − e^{ε−y_k}) + c_∞, times 2^−bits.

Floats only choose the grid range (any range is sound: mass outside it is
moved up, never dropped).
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction
from typing import Any, Mapping

from flint import arb

from certdp.verifier.schema import MalformedCertificate, _fields, number_string
from certdp.verifier.errors import InputError, check_budget
from certdp.verifier.ball import (dyadic_to_fraction, fixed_point_units, lower_bound, to_ball, upper_bound,
                                  working_precision)
from certdp.verifier.exact import exact
from certdp.verifier.gauss import Phi_ball, Phi_upper_ball
from certdp.verifier.pld_compose import (MAX_BITS, MAX_COUNT, MAX_GRID, _Packed, _compose_lower,  # noqa: F401
                                         _product, compose, cut_step, f_eps)

#: Limits on the stated discretisation (a certificate cannot ask for more work); MAX_BITS,
#: MAX_GRID and MAX_COUNT are the composition's (:mod:`certdp.verifier.pld_compose`).
MAX_Z = 40

EVIDENCE_FIELDS = {"h", "bits", "tau", "z"}


def parse_evidence(ev: Any) -> tuple[Fraction, int, Fraction, float]:
    """(h, bits, tau, z) of ``evidence.pld`` (MalformedCertificate when out of range)."""
    ev = _fields(ev, "evidence.pld", EVIDENCE_FIELDS, {"cut"})
    try:
        h = exact(number_string(ev["h"], "evidence.pld.h"), "evidence.pld.h")
        tau = exact(number_string(ev["tau"], "evidence.pld.tau"), "evidence.pld.tau")
        z = exact(number_string(ev["z"], "evidence.pld.z"), "evidence.pld.z")
    except InputError as err:
        raise MalformedCertificate(str(err)) from None
    bits = ev["bits"]
    if type(bits) is not int or not 8 <= bits <= MAX_BITS:
        raise MalformedCertificate(f"evidence.pld.bits must be an integer in [8, {MAX_BITS}]")
    if not (Fraction(1, 2**40) <= h <= 2**20 and 0 <= tau < 1 and 1 <= z <= MAX_Z):
        raise MalformedCertificate("evidence.pld: need 2^-40 <= h <= 2^20, 0 <= tau < 1, 1 <= z <= 40")
    return h, bits, tau, float(z)


def parse_cut(ev: Any) -> tuple[tuple[int, int, int, int], ...] | None:
    """``evidence.pld.cut`` (optional; :func:`certdp.verifier.pld_compose.cut_step`) as (remove, add)."""
    if ev.get("cut") is None:
        return None
    cut = _fields(ev["cut"], "evidence.pld.cut", {"remove", "add"}, set())
    for v in cut.values():
        if not (isinstance(v, list) and len(v) == 4 and all(type(x) is int and abs(x) < 1 << 1100 for x in v)
                and 0 <= v[1] - v[0] < MAX_GRID and min(v[2:]) >= 0):
            raise MalformedCertificate("evidence.pld.cut: [lo, hi, below, above], integers, 0 <= hi - lo < MAX_GRID")
    return tuple(tuple(cut[r]) for r in ("remove", "add"))


def subsampled_gaussians(mech: Any) -> tuple[Fraction, Fraction, int]:
    """(σ/Δ, q, count) of gaussian / subsample(gaussian) / compose(…, k), gaussian_dp(μ) as
    σ/Δ = 1/μ; else Malformed."""
    name = getattr(mech, "name", None)
    count = 1
    if name == "compose":
        count, mech, name = int(mech.k), mech.mechanism, getattr(mech.mechanism, "name", None)
    rate = Fraction(1)
    if name == "subsample":
        rate, mech, name = Fraction(mech.rate), mech.mechanism, getattr(mech.mechanism, "name", None)
    if name == "gaussian_dp" and 1 <= count <= MAX_COUNT:
        # μ-GDP is dominated by the Gaussian pair (N(μ, 1), N(0, 1)) in both orders: σ/Δ = 1/μ
        return 1 / Fraction(mech.mu), rate, count
    if name != "gaussian" or not 1 <= count <= MAX_COUNT:
        raise MalformedCertificate("evidence.pld certifies compose(subsample(gaussian(...) or gaussian_dp(...), "
                                   "rate=q), k=T) only")
    return Fraction(mech.sigma) / Fraction(mech.sensitivity), rate, count


class _Pair:
    """One relation's dominating pair; ``sign`` +1 remove, −1 add."""

    def __init__(self, sigma: Fraction, q: Fraction, sign: int) -> None:
        self.sigma, self.q, self.sign = sigma, q, sign
        if sign > 0:
            self.p = ((1 - q, 0), (q, 1))
            self.qq = ((Fraction(1), 0),)
        else:
            self.p = ((Fraction(1), 0),)
            self.qq = ((1 - q, 0), (q, -1))

    def loss_float(self, x: float) -> float:
        s2, q = float(self.sigma) ** 2, float(self.q)
        t = (2 * self.sign * x - 1) / (2 * s2)
        if q == 1:
            return self.sign * t
        v = math.log(q) + t + math.log1p((1 - q) / q * math.exp(-t)) if t > 700 else math.log(1 - q + q * math.exp(t))
        return self.sign * v

    def grid(self, h: Fraction, z: float) -> tuple[int, int]:
        """Grid indices [lo, hi] covering the loss over the z-σ range of P (a guide)."""
        s = float(self.sigma)
        cs = [c for _, c in self.p]
        a, b = self.loss_float(min(cs) - z * s), self.loss_float(max(cs) + z * s)
        hf = float(h)
        lo, hi = math.floor(max(a, -1e15) / hf) - 1, math.ceil(min(b, 1e15) / hf) + 1
        if hi - lo + 1 > MAX_GRID:
            raise MalformedCertificate(f"evidence.pld: the grid would need {hi - lo + 1} points (cap {MAX_GRID})")
        return lo, hi

    def x_of_loss(self, w: arb) -> arb | None:
        """x with L(x) = w; None when w is certainly at/below (remove) or at/above
        (add) the loss range, i.e. no x has a smaller (larger) loss."""
        u = w if self.sign > 0 else -w
        q = to_ball(self.q)
        if self.q == 1:
            t = u
        else:
            arg = u.expm1() + q
            if arg <= 0:
                return None
            if not arg > 0:
                raise _Undecided
            t = (arg / q).log()
        x = t * to_ball(self.sigma) ** 2 + arb(1) / 2
        return x if self.sign > 0 else -x


class _Masses:
    """Mixture masses between ends x_j (None: −∞ as a left end, +∞ as a right end).  Each
    end's standardised z = (x_j − c)/σ per Gaussian centre c, its sign and its Φ or Φ̄
    ball are made once and shared by the two cells beside it and by P and Q (which share
    N(0, σ²)); a cell's mass is Σ w·m_c with, per component, the side of the ends that
    keeps relative accuracy: Φ̄(za) − Φ̄(zb) when za > 0, Φ(zb) − Φ(za) when zb < 0, else
    1 − Φ(za) − Φ̄(zb)."""

    def __init__(self, pair: _Pair, xs: list[arb | None], keys: Any = None, shared: dict | None = None) -> None:
        # ``shared``: Φ balls of both relations, keyed in the remove frame (the add pair mirrors
        # the remove pair: x_add(kh) = −x_rem(−kh), so z_add(c) = −z_rem(−c)); ``keys``: grid indices
        self.sign, self.keys, self.memo = pair.sign, keys, {} if shared is None else shared
        s = to_ball(pair.sigma)
        self.centres = sorted({c for _, c in pair.p + pair.qq})
        w = {v: to_ball(v) for v, _ in pair.p + pair.qq}
        self.pw, self.qw = [(w[v], c) for v, c in pair.p], [(w[v], c) for v, c in pair.qq]
        self.z: list[Any] = []
        for x in xs:
            row = None if x is None else {c: (x - c) / s for c in self.centres}
            self.z.append(row and {c: (v, 1 if v > 0 else (-1 if v < 0 else 0)) for c, v in row.items()})

    def _phi(self, j: int, c: int, up: bool) -> arb:
        sg = self.sign
        key = (j, c, up) if self.keys is None else (sg * self.keys[j], sg * c, up if sg > 0 else not up)
        v = self.memo.get(key)
        if v is None:
            z = self.z[j][c][0]
            v = self.memo[key] = Phi_upper_ball(z) if up else Phi_ball(z)
        return v

    def pq(self, ja: int | None, jb: int | None, want_q: bool = True) -> tuple[arb, arb]:
        """(P, Q) mass between ends ja and jb (an index whose x is None, or None: infinite)."""
        ja = None if ja is None or self.z[ja] is None else ja
        jb = None if jb is None or self.z[jb] is None else jb
        vals = {}
        for c in self.centres:
            if ja is not None and self.z[ja][c][1] == 1:
                vals[c] = self._phi(ja, c, True) - (0 if jb is None else self._phi(jb, c, True))
            elif jb is not None and self.z[jb][c][1] == -1:
                vals[c] = self._phi(jb, c, False) - (0 if ja is None else self._phi(ja, c, False))
            else:
                vals[c] = (1 - (0 if ja is None else self._phi(ja, c, False))
                           - (0 if jb is None else self._phi(jb, c, True)))
        P, Q = arb(0), arb(0)
        for w, c in self.pw:
            P += w * vals[c]
        for w, c in (self.qw if want_q else ()):
            Q += w * vals[c]
        return P, Q


class _Undecided(Exception):
    """A ball comparison of the one-step construction is undecided at this precision."""


def one_step(pair: _Pair, h: Fraction, bits: int, z: float, span: tuple[int, int] | None = None,
             shared: dict | None = None) -> tuple[int, list[int], int]:
    """(offset, fixed-point masses on (offset + j)h, mass at +∞), all rounded up; on the
    grid indices ``span`` when given (any range is sound), else the z-σ range; ``shared``
    (one dict for both relations at one precision) shares the ends' x and Φ balls."""
    lo, hi = pair.grid(h, z) if span is None else span
    xs = {} if shared is None else shared.setdefault("x", {})  # remove-frame x of the loss kh
    n = hi - lo + 1
    hb = to_ball(h)
    ends: list[Any] = []  # x of loss jh; "lo"/"hi" when below/above the loss range
    for j in range(n):
        if not j % 1024:
            check_budget("re-deriving the one-step PLD", j, n)
        k = pair.sign * (lo + j)
        if k not in xs:
            x = pair.x_of_loss((lo + j) * hb)
            xs[k] = x if x is None or pair.sign > 0 else -x
        x = xs[k] if xs[k] is None or pair.sign > 0 else -xs[k]
        ends.append(x if x is not None else ("below" if pair.sign > 0 else "above"))
    masses = [arb(0)] * n
    cells = _Masses(pair, [None if isinstance(e, str) else e for e in ends], None if shared is None else
                    range(lo, hi + 1), None if shared is None else shared.setdefault("phi", {}))
    if ends[0] != "below":  # losses <= ω_0 go up to ω_0 ("above": all of them)
        masses[0] = cells.pq(None, 0, False)[0]
    ehm = (-hb).exp()
    e_next = (-(lo * hb)).exp()
    for j in range(n - 1):
        e_j, e_next = e_next, e_next * ehm
        a, b = ends[j], ends[j + 1]
        if a == "above" or b == "below":
            continue  # empty interval
        PI, QI = cells.pq(j, j + 1)
        A = (QI - e_next * PI) / (e_j - e_next)
        masses[j] += A
        masses[j + 1] += PI - A
    top = ends[-1]
    inf_mass = arb(0) if top == "above" else cells.pq(n - 1, None, False)[0]
    scale = arb(2) ** bits
    coeffs = [fixed_point_units(m, scale, True) for m in masses]
    return lo, coeffs, fixed_point_units(inf_mass, scale, True)


LOWER_FIELDS = {"h", "bits", "tau", "remove", "add"}


def parse_lower_evidence(ev: Any) -> tuple[Fraction, int, Fraction, tuple[Fraction, ...], tuple[Fraction, ...]]:
    """(h, bits, tau, remove cuts, add cuts) of ``evidence.pld_lower``: the x-axis
    cuts of the one-step partition of each relation (strictly increasing exact numbers)."""
    ev = _fields(ev, "evidence.pld_lower", LOWER_FIELDS, set())
    base = parse_evidence({"h": ev["h"], "bits": ev["bits"], "tau": ev["tau"], "z": "1"})
    cuts = []
    for rel in ("remove", "add"):
        xs = ev[rel]
        if not isinstance(xs, list) or not 1 <= len(xs) <= MAX_GRID:
            raise MalformedCertificate(f"evidence.pld_lower.{rel} must be a list of 1 to {MAX_GRID} cut points")
        try:
            vals = tuple(exact(number_string(x, f"evidence.pld_lower.{rel}"), f"evidence.pld_lower.{rel}") for x in xs)
        except InputError as err:
            raise MalformedCertificate(str(err)) from None
        if any(not u < v for u, v in zip(vals, vals[1:])) or max(abs(vals[0]), abs(vals[-1])) > 10**9:
            raise MalformedCertificate(f"evidence.pld_lower.{rel}: cuts must increase and lie in [-10^9, 10^9]")
        cuts.append(vals)
    return base[0], base[1], base[2], cuts[0], cuts[1]


def one_step_lower(pair: _Pair, h: Fraction, bits: int, cuts: tuple[Fraction, ...]) -> tuple[int, list[int], int]:
    """A dominated one-step PLD (Zhu, Dong & Wang 2022: post-processing lowers δ):
    merge the outputs of each interval J of the partition of the x-axis at ``cuts``
    into one symbol of loss ℓ_J = log(P(J)/Q(J)); place P(J) (rounded down to
    2^−bits) at the grid point ⌊lower(ℓ_J)/h⌋·h <= ℓ_J.  Intervals whose masses are
    not certainly positive are dropped.  No mass at +∞."""
    hb = to_ball(h)
    ends: list[arb | None] = [None] + [to_ball(x) for x in cuts] + [None]
    cells = _Masses(pair, ends)
    scale = arb(2) ** bits
    atoms: dict[int, int] = {}
    for j in range(len(ends) - 1):
        if not j % 1024:
            check_budget("re-deriving the lower one-step PLD", j, len(ends))
        P, Q = cells.pq(j, j + 1)
        if not (P > 0 and Q > 0):
            continue
        ell = lower_bound((P / Q).log())
        if not ell.is_finite():
            continue
        k = math.floor(dyadic_to_fraction(ell) / h)
        c = fixed_point_units(P, scale, False)
        if c > 0:
            atoms[k] = atoms.get(k, 0) + c
    if not atoms:
        raise InputError("the lower one-step PLD is empty")
    lo, hi = min(atoms), max(atoms)
    if hi - lo + 1 > MAX_GRID:
        raise MalformedCertificate(f"evidence.pld_lower: the grid would need {hi - lo + 1} points (cap {MAX_GRID})")
    coeffs = [0] * (hi - lo + 1)
    for k, c in atoms.items():
        coeffs[k - lo] = c
    del hb
    return lo, coeffs, 0


@functools.lru_cache(maxsize=4)
def _upper_plds(sigma: Fraction, q: Fraction, count: int, h: Fraction, bits: int, tau: Fraction, z: float,
                prec: int, cut: tuple[tuple[int, int, int, int], ...] | None = None
                ) -> tuple[tuple[int, tuple[int, ...], int], ...]:
    """The composed upper PLDs (remove, add) re-derived from the discretisation, each
    one-step PLD first cut as ``cut`` states (:func:`certdp.verifier.pld_compose.cut_step`;
    cached: the writer may check a few roundings of one claim)."""
    tau_units = int(tau * (1 << bits))
    out: list = []
    shared: dict = {}
    with working_precision(prec):
        for i, sign in enumerate((1, -1)):
            try:
                span = None if cut is None else (cut[i][0] - 1, cut[i][1] + 1)  # the cut's range, one point beyond
                step = one_step(_Pair(sigma, q, sign), h, bits, z, span, shared)
            except _Undecided:
                raise InputError("a grid point's loss could not be placed at this precision") from None
            if cut is not None:
                step = cut_step(step, cut[i])
            offset, cs, inf = compose(step, count, bits, tau_units)
            out.append((offset, tuple(cs), inf))
    return tuple(out)


def upper_plds(mech: Any, ev: Mapping[str, Any], prec: int) -> tuple[tuple[int, tuple[int, ...], int], ...]:
    """(offset, fixed-point masses, mass at +∞) of the composed upper PLD of each
    relation (remove, add): every F_ε of it bounds δ_M(ε) of that relation from above."""
    h, bits, tau, z = parse_evidence(ev)
    sigma, q, count = subsampled_gaussians(mech)
    return _upper_plds(sigma, q, count, h, bits, tau, z, prec, parse_cut(ev))


@functools.lru_cache(maxsize=4)
def _lower_plds(sigma: Fraction, q: Fraction, count: int, h: Fraction, bits: int, tau: Fraction,
                cuts: tuple[tuple[Fraction, ...], tuple[Fraction, ...]],
                prec: int) -> tuple[tuple[int, tuple[int, ...], int], ...]:
    tau_units = int(tau * (1 << bits))
    out = []
    with working_precision(prec):
        for sign, cs in zip((1, -1), cuts):
            offset, coeffs, _ = _compose_lower(one_step_lower(_Pair(sigma, q, sign), h, bits, cs), count, bits,
                                               tau_units)
            out.append((offset, tuple(coeffs), 0))
    return tuple(out)


def delta_lower(mech: Any, eps: Fraction, ev: Mapping[str, Any], prec: int) -> arb:
    """A ball whose lower end bounds δ_M(ε) = max over remove/add from below, from the
    dominated PLDs of ``evidence.pld_lower`` (merged outputs, losses and masses rounded
    down, composition rounded down, tails dropped: each step can only lower F_ε)."""
    h, bits, tau, rem, add = parse_lower_evidence(ev)
    sigma, q, count = subsampled_gaussians(mech)
    plds = _lower_plds(sigma, q, count, h, bits, tau, (rem, add), prec)
    with working_precision(prec):
        best = arb(0)
        for pld in plds:
            d = lower_bound(f_eps((pld[0], list(pld[1]), 0), h, bits, eps))
            best = d if d > best else best
        return best


def delta_upper(mech: Any, eps: Fraction, ev: Mapping[str, Any], prec: int) -> arb:
    """A certified upper bound on δ_M(ε) (max over add/remove), re-derived."""
    h, bits, _, _ = parse_evidence(ev)
    plds = upper_plds(mech, ev, prec)
    with working_precision(prec):
        best: arb | None = None
        for pld in plds:
            d = upper_bound(f_eps((pld[0], list(pld[1]), pld[2]), h, bits, eps))
            best = d if best is None or d > best else best
        return best

"""The one-step cut of a Poisson-subsampled Gaussian's upper PLD before composition
(issue 37): the answer's side of the rule :func:`certdp.verifier.pld_compose.cut_step`.

A small sampling rate q stretches the one-step loss far up (L ≈ q·e^{(2x−1)/(2σ²)} up to
the range guide x = zσ) with negligible mass there: at σ 1.1, q 1e-4 the upper one-step PLD
of the remove relation spans some 12,000–19,000 grid points of which the τ-truncation after
the first product keeps a quarter, and the first squaring and every multiplication by the
one-step were the costliest products.  So the one-step PLD is cut before composing, to the
grid indices [lo, hi] outside which its own mass is at most τ/:data:`CUT_DIVISOR` on each
side (a tenth of the truncation every product gets), and the certificate states the cut
(``evidence.pld.cut``) so the checker cuts its own re-derived one-step PLD at the same indices.

The answer's one-step masses (float vectors with a proved error model, cells coarsened
where little mass lies) and the checker's (balls, every grid cell) differ in the last
units, and the mass each side would move differs more (a coarse cell at the cut puts its
mass at other points than the checker's fine cells): a ``gdp_except`` claim, tight to the
answer's tail masses, then failed to re-derive (issue 37, third pass).  So the moved
masses are stated too, as certified upper bounds ``below`` and ``above`` on what the
checker's fine construction puts beyond the cut, and both sides move exactly those (the
rule checks that the removed masses do not exceed them; adding the excess is sound:
see :func:`~certdp.verifier.pld_compose.cut_step`).

The bounds: the connect-the-dots construction (Doroshenko et al. 2022) puts at the points
above hi and at +∞ the P-mass of the losses above ω_{hi+1} and the part P_I − A_I of the cell
I = (x(ω_hi), x(ω_{hi+1})) (A_I = (Q_I − e^{−ω_{hi+1}}P_I)/(e^{−ω_hi} − e^{−ω_{hi+1}}));
below lo the P-mass of the losses below ω_{lo−1} and A_J of the cell J = (x(ω_{lo−1}),
x(ω_lo)), whatever its grid range (the checker builds only [lo − 1, hi + 1], its mpmath
kernel the whole range).  Both are enclosed here in balls; each side rounds every
coefficient up by less than one unit, so the number of grid points beyond the cut (with a
margin for the checker's own grid range and wider balls) is added, and the answer's own
removed mass is taken when it is larger.  The answer's mass at +∞ after the cut is
``above``, as the checker's is.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from fractions import Fraction
from itertools import accumulate

from flint import arb, fmpz_poly

from certdp.analyses.accountants.pld_measure import DiscretePLD, MixturePair
from certdp.numerics.ball import to_ball, upper_bound, working_precision
from certdp.verifier.pld_compose import cut_step

#: The one-step PLD keeps all but τ/CUT_DIVISOR of its own mass on each side: every one of
#: the T steps carries its cut tail to +∞, so a cut at τ doubled the composed mass at +∞
#: (σ 9.4, q 0.32768, T 2000: 1.9e-11 -> 4.6e-11, the ε upper end +1.3e-7 relative); at τ/10
#: it is 2.0e-11, and the kept range grows by a third at most (σ 1.1, q 1e-4: 2,816 -> 4,096
#: of 11,901 grid points; its upper products 15 -> 17 ms, 49 ms uncut).
CUT_DIVISOR = 10

#: Units added to a stated tail beyond one per grid point past the cut: the checker's
#: grid range may run a few points further than the answer's, and its balls are wider.
CUT_MARGIN_UNITS = 1 << 12


def _units_up(x: arb, bits: int) -> int:
    u = upper_bound(x * arb(2) ** bits)
    return max(int(u.ceil().unique_fmpz()), 0)


def _loss_x(pair: MixturePair, w: arb) -> arb | str:
    """x with L(x) = w, or "below"/"above" when w lies at or beyond that end of the loss range."""
    x = pair.x_of_loss_ball(w)
    if x is not None:
        return x
    return "below" if pair.sign > 0 else "above"


def _p_above(pair: MixturePair, x: arb | str) -> arb:
    return arb(1) if x == "below" else arb(0) if x == "above" else pair.tail_P(x)


def _p_below(pair: MixturePair, x: arb | str) -> arb:
    return arb(0) if x == "below" else arb(1) if x == "above" else pair.interval_P(None, x)


def _cell(pair: MixturePair, j: int, hb: arb) -> tuple[arb, arb] | None:
    """(P_I, A_I) of the connect-the-dots cell I between the losses jh and (j + 1)h,
    or None when an end lies outside the loss range."""
    a, b = _loss_x(pair, j * hb), _loss_x(pair, (j + 1) * hb)
    if isinstance(a, str) or isinstance(b, str):
        return None
    P, Q = pair.interval_P(a, b), pair.interval_Q(a, b)
    e_a, e_b = (-(j * hb)).exp(), (-((j + 1) * hb)).exp()
    return P, (Q - e_b * P) / (e_a - e_b)


def stated_tails(pair: MixturePair, h: Fraction, bits: int, lo: int, hi: int, grid: tuple[int, int]) -> tuple[int, int]:
    """(below, above): units of 2^-bits bounding from above the masses the checker's
    one-step PLD of ``pair`` on the grid h holds at indices < lo and > hi (module doc);
    ``grid`` is the answer's grid range (i_lo, i_hi)."""
    with working_precision(max(64, bits + 32)):
        hb = to_ball(h)
        up = _p_above(pair, _loss_x(pair, (hi + 1) * hb))
        cell = _cell(pair, hi, hb)
        up += _p_above(pair, _loss_x(pair, hi * hb)) if cell is None else min_up(cell[0], cell[0] - cell[1])
        down = _p_below(pair, _loss_x(pair, (lo - 1) * hb))
        cell = _cell(pair, lo - 1, hb)
        down += _p_below(pair, _loss_x(pair, lo * hb)) if cell is None else min_up(cell[0], cell[1])
        n_above, n_below = max(grid[1] - hi, 0), max(lo - grid[0], 0)
        return (_units_up(down, bits) + n_below + CUT_MARGIN_UNITS,
                _units_up(up, bits) + n_above + CUT_MARGIN_UNITS)


def min_up(a: arb, b: arb) -> arb:
    """The smaller of the upper ends of a and b (each an upper bound of the same mass), >= 0."""
    ua, ub = upper_bound(a), upper_bound(b)
    m = ua if ua < ub else ub
    return m if m > 0 else arb(0)


def cut_one_step(pld: DiscretePLD, pair: MixturePair, tau_units: int,
                 grid: tuple[int, int]) -> tuple[DiscretePLD, tuple[int, int, int, int]]:
    """(the cut one-step PLD, the cut [lo, hi, below, above] a certificate states): lo the
    largest and hi the smallest index with at most ``tau_units`` / :data:`CUT_DIVISOR` of the
    PLD's own mass beyond them (both are support points), the tails from :func:`stated_tails`."""
    tau_units //= CUT_DIVISOR
    cs = [int(c) for c in pld.poly.coeffs()]
    n = len(cs)
    pre = list(accumulate(cs, initial=0))  # pre[k] = Σ_{j<k} c_j, non-decreasing
    total = pre[-1]
    a = min(bisect_right(pre, tau_units) - 1, n - 1)  # the largest a <= n - 1 with pre[a] <= τ
    b = max(bisect_left(pre, total - tau_units) - 1, a)  # the smallest b >= a with Σ_{j>b} c_j <= τ
    lo, hi = pld.offset + a, pld.offset + b
    below, above = stated_tails(pair, pld.h, pld.bits, lo, hi, grid)
    below, above = max(below, pre[a]), max(above, total - pre[b + 1] + pld.inf)
    cut = (lo, hi, below, above)
    offset, kept, inf = cut_step((pld.offset, cs, pld.inf), cut)
    return DiscretePLD(fmpz_poly(kept), offset, pld.h, pld.bits, inf, pld.kind), cut

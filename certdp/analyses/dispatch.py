"""Which analysis answers a question about a mechanism.

A mechanism with a closed-form privacy profile is evaluated directly
(:mod:`certdp.mechanisms.profile_values`).  A composition without one goes to a
certified accountant: Poisson-subsampled Gaussians (DP-SGD) to the PLD
accountant (:mod:`certdp.analyses.accountants.pld`), everything else to the φ
accountant (:mod:`certdp.analyses.accountants.phi`, exact for finite mechanisms).
Every answer names the method that produced it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable

from flint import arb

from certdp.errors import InputError, check_budget
from certdp.mechanisms.base import Mechanism, ProfileKind
from certdp.expr.brackets import at_closed_form
from certdp.numerics.enclosure import Enclosure
from certdp.numerics.exact import exact
from certdp.analyses.accountants.base import check_width, default_width, halvings  # noqa: F401 (default_width: re-exported)


@dataclass(frozen=True)
class Answer:
    """A certified value, the method that certified it, and what is known.

    ``kind`` is the mechanism's :class:`ProfileKind`: for an UPPER profile the
    enclosure's lower end is 0 (only the upper end is proved) and the method
    says "upper bound only".  ``assumptions`` are the unproved hypotheses the
    value rests on (recursive over nested mechanisms).
    """

    enclosure: Enclosure
    method: str
    kind: ProfileKind = ProfileKind.EXACT
    assumptions: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """Plain JSON types only (``json.dumps`` takes it): the enclosure as outward decimal strings."""
        return {"enclosure": self.enclosure.to_json(), "method": self.method, "kind": self.kind.value,
                "assumptions": list(self.assumptions)}


def _answer(mech: Mechanism, enc: Enclosure, method: str) -> Answer:
    """Wrap a two-sided enclosure in what the mechanism's profile supports."""
    kind = mech.profile_kind
    if not kind.bounds_from_below:
        enc = upper_only(enc)
        method = f"{method}; {kind.value}"
    return Answer(enc, method, kind, tuple(mech.assumptions))


def upper_only(enc: Enclosure) -> Enclosure:
    """[0, hi]: what an enclosure computed from an upper-bound profile proves
    about a non-negative quantity (δ, ε or μ)."""
    return Enclosure(arb(0), enc.hi)


def is_subsampled_gaussian(mech: Mechanism) -> bool:
    """``subsample(gaussian(...), rate=q)``: the DP-SGD step."""
    from certdp.mechanisms.basic import Gaussian  # noqa: PLC0415
    from certdp.mechanisms.transforms import Subsample  # noqa: PLC0415

    return isinstance(mech, Subsample) and isinstance(mech.mechanism, Gaussian)


def _phi_is_exact(mechs: list[Mechanism]) -> bool:
    """Do all mechanisms have a finite dominating pair or an exactly Gaussian one (the
    φ accountant's exact route: finite atoms, Zhu, Dong & Wang 2022 Def 35, convolved with
    the closed-form Gaussian δ_μ)?"""
    from certdp.analyses.accountants import phi  # noqa: PLC0415
    from certdp.analyses.accountants.pairs import FINITE_TYPES, GaussianPair  # noqa: PLC0415

    return all(phi.supports(m) and isinstance(phi.to_pair(m), (*FINITE_TYPES, GaussianPair)) for m in mechs)


def _phi_fits(items: list[tuple[Mechanism, int]]) -> bool:
    """Is the φ accountant's exact route within its work limits for ``items`` (else the PLD
    engine keeps the composition: e.g. 1000 steps of a three-atom pair, 501,501 atoms)?"""
    from certdp.analyses.accountants.phi import PhiAccountant, to_pair  # noqa: PLC0415

    acc = PhiAccountant()
    for m, k in items:
        acc = acc.compose(to_pair(m), k)  # type: ignore[attr-defined]
    return acc.fits()



def _merged_zcdp(items: list[tuple[Mechanism, int]]) -> list[tuple[Mechanism, int]]:
    """``zcdp`` parts merged into one ``zcdp(rho=Σ k·ρ)`` (zCDP composes additively, Bun &
    Steinke 2016 Lemma 2.3), placed where the first one was; other items unchanged."""
    zc = [(m, k) for m, k in items if getattr(m, "name", None) == "zcdp"]
    if len(zc) == 1 and zc[0][1] == 1 or not zc:
        return items
    from certdp.mechanisms.zcdp import ZCDP  # noqa: PLC0415

    rho = sum((Fraction(m.rho) * k for m, k in zc), Fraction(0))  # type: ignore[attr-defined]
    first = next(i for i, (m, _) in enumerate(items) if getattr(m, "name", None) == "zcdp")
    rest = [(m, k) for m, k in items if getattr(m, "name", None) != "zcdp"]
    merged = [] if rho == 0 else [(ZCDP(rho=rho), 1)]
    return rest[:first] + merged + rest[first:]


class _ProfileAccountant:
    """The accountant interface (``delta``, ``epsilon``) over one mechanism's own profile:
    a composition that reduces to one upper-bound profile (merged ``zcdp`` parts) is
    answered from it directly, as [0, upper end] (no grid to refine: not narrowed)."""

    two_sided = False

    def __init__(self, mech: Mechanism) -> None:
        self.mech = mech

    def delta(self, eps: object) -> Enclosure:
        from certdp.mechanisms.profile_values import delta_enclosure  # noqa: PLC0415

        return upper_only(delta_enclosure(self.mech, eps))

    def epsilon(self, delta: object, **_: object) -> Enclosure:
        from certdp.mechanisms.profile_values import eps_enclosure  # noqa: PLC0415

        return upper_only(eps_enclosure(self.mech, delta))

class _GaussianAccountant(_ProfileAccountant):
    """A composition of exactly Gaussian parts (trade-off G_{μ_j}) is exactly μ-GDP with
    μ² = Σ k_j μ_j² (Dong, Roth & Su 2022 Cor 3.3): its closed-form profile δ_μ, two-sided.
    The route for exactly Gaussian parts the φ accountant has no rational-σ pair for
    (``tree_aggregation``: μ² = Δ²·depth/σ² need not have a rational square root)."""

    two_sided = True

    def __init__(self, items: list[tuple[Mechanism, int]]) -> None:
        from certdp.mechanisms.transforms import Compose, ComposeAll  # noqa: PLC0415

        parts = [m if k == 1 else Compose(m, k=k) for m, k in items]
        super().__init__(parts[0] if len(parts) == 1 else ComposeAll(*parts))

    def delta(self, eps: object) -> Enclosure:
        from certdp.mechanisms.profile_values import delta_enclosure  # noqa: PLC0415

        return delta_enclosure(self.mech, eps)

    def epsilon(self, delta: object, **_: object) -> Enclosure:
        from certdp.mechanisms.profile_values import eps_enclosure  # noqa: PLC0415

        return eps_enclosure(self.mech, delta)


def _flatten(mech: Mechanism, k: int) -> tuple[Mechanism, int]:
    """compose(M, j) with k copies is M with j·k copies; subsample(M, rate=1) is M."""
    from certdp.mechanisms.transforms import Compose, Subsample  # noqa: PLC0415

    while True:
        if isinstance(mech, Compose):
            mech, k = mech.mechanism, k * int(mech.k)
        elif isinstance(mech, Subsample) and mech.rate == 1:
            mech = mech.mechanism
        else:
            return mech, k


def composition_items(mech: Mechanism) -> list[tuple[Mechanism, int]] | None:
    """The (mechanism, count) items of a composition without a closed-form profile —
    ``compose(M, k)`` or ``compose_all(M1, ..., Mn)`` — else None: the router's one
    test for the accountant route (CLI, audit and API alike)."""
    from certdp.mechanisms.transforms import Compose, ComposeAll  # noqa: PLC0415

    if getattr(mech, "accountant_only", False):  # no profile of its own: a composition of one
        return [(mech, 1)]
    if isinstance(mech, Compose) and not mech.has_closed_form:
        return [(mech.mechanism, int(mech.k))]
    if isinstance(mech, ComposeAll) and not mech.has_closed_form:
        return mech.items()
    return None


def composition_accountant(items: list[tuple[Mechanism, int]], *, rel_bits: int = 34,
                           refine: int = 0) -> tuple[object, str]:
    """(accountant holding the heterogeneous composition, its name): the one route for
    ``certdp profile`` / ``measure`` of compositions, ``certdp account``, the interop
    accountants and the API alike.

    * the certified PLD engine (:mod:`certdp.analyses.accountants.pld`) for every mix it
      holds — (subsampled) Gaussians, Laplace, randomized response, pure/approximate DP,
      Poisson subsampling of any of them, and any mechanism through the pair of its
      privacy profile (upper bound only); exact when every loss lies on its grid;
    * the φ accountant when every mechanism is exactly Gaussian (the composition is
      exactly μ-GDP with μ² = Σ μ_j², closed form) or finite or Gaussian while the PLD
      grid would not be exact (its finite route is exact: Zhu, Dong & Wang 2022 Def 35,
      convolved with the closed-form Gaussian profile).
    ``refine`` = j divides the PLD grid step by 2^j (a narrower answer; j < 0 multiplies it)."""
    if not items:
        raise InputError("nothing to compose: give at least one mechanism")
    from certdp.analyses.accountants.pld import PLDAccountant, supports  # noqa: PLC0415

    items = _merged_zcdp([_flatten(m, k) for m, k in items])
    if len(items) == 1 and items[0][1] == 1 and getattr(items[0][0], "name", None) == "zcdp":
        return _ProfileAccountant(items[0][0]), items[0][0].route
    mechs = [m for m, _ in items]
    if any(m.profile_kind is ProfileKind.UPPER and getattr(m, "accountant_only", False)
           or getattr(m, "name", None) == "zcdp" for m in mechs):
        from certdp.analyses.accountants.best_upper import best_upper  # noqa: PLC0415

        acc = best_upper(items, pld_ok=all(supports(m) for m in mechs))  # upper bounds only
        return acc, acc.method
    bad = [m.spec() for m in mechs if not supports(m)]
    gaussian = all(m.gdp_mu_squared() is not None for m in mechs)  # exactly Gaussian: μ² adds up
    pld: PLDAccountant | None = None
    if not bad and not gaussian:
        pld = PLDAccountant().compose_all(items)  # type: ignore[assignment]
        if not pld.exact_grid and _phi_is_exact(mechs) and _phi_fits(items):
            pld = None
        elif refine:  # (negative: a coarser grid, :func:`screen_delta`)
            pld = PLDAccountant(h=pld.h / Fraction(2)**refine).compose_all(items)  # type: ignore[assignment]
    if pld is not None:
        return pld, pld.method
    from certdp.analyses.accountants.phi import PhiAccountant, supports as phi_supports, to_pair  # noqa: PLC0415

    if gaussian and not all(phi_supports(m) for m in mechs):
        return _GaussianAccountant(items), "closed form (exact: Gaussian composition, μ² = Σ μ_j²)"
    if not all(phi_supports(m) for m in mechs):
        from certdp.analyses.accountants.pld import to_source  # noqa: PLC0415

        for m in mechs:
            to_source(m)  # raises the engine's own reason
        raise InputError(f"no certified accountant supports {', '.join(bad)} yet")
    acc = PhiAccountant(rel_bits=rel_bits)
    for m, k in items:
        acc = acc.compose(to_pair(m), k)  # type: ignore[attr-defined]
    return acc, ("phi accountant (exact: Gaussian composition, μ² = Σ μ_j²)" if gaussian
                 else "phi accountant (Zhu, Dong & Wang 2022; exact finite pairs, closed-form Gaussian part)")


def accountant_for(mech: Mechanism, refine: int = 0) -> tuple[object, str] | None:
    """(accountant, its name) for a composition without closed form
    (:func:`composition_items`), else None (the route of :func:`composition_accountant`)."""
    items = composition_items(mech)
    return None if items is None else composition_accountant(items, refine=refine)


def delta_of(mech: Mechanism, eps: object, *, bits: int | None = None, refine: int = 0,
             known: dict[int, Enclosure] | None = None) -> Answer:
    """Certified δ_M(ε) (relative accuracy 2^-bits where the route allows it;
    ``refine`` = j narrows accountant answers, see :func:`accountant_for`).
    ε may be a closed form (:func:`at_closed_form`).  ``known`` holds enclosures of this
    mechanism's δ(ε) already computed on the grids h/2^j (:func:`screen_delta`'s record):
    the narrowing takes them instead of recomputing (the same answer, less work)."""
    if not isinstance(eps, (Fraction, int)):
        return at_closed_form(lambda e: delta_of(mech, e, bits=bits, refine=refine), eps, "eps", zero_ok=True)
    items = composition_items(mech)
    if items is not None:
        if refine:
            acc, method = composition_accountant(items, refine=refine)
            return _answer(mech, acc.delta(eps), method)  # type: ignore[attr-defined]
        enc, method = narrowed_delta(items, eps, known=known)
        return _answer(mech, enc, method)
    from certdp.mechanisms.profile_values import delta_enclosure  # noqa: PLC0415

    return _answer(mech, delta_enclosure(mech, eps, bits=bits), mech.route)


def screen_delta(mech: Mechanism, eps: object, coarsen: int, known: dict[int, Enclosure] | None = None) -> Answer | None:
    """Certified δ_M(ε) from the PLD accountant on a grid 2^coarsen times coarser than
    its default, not narrowed; None when the mechanism's route has no PLD grid.  Every
    grid gives a certified enclosure (wider on a coarser grid), so this is a cheap first
    look that decides comparisons far from a target (:func:`certdp.analyses.calibrate.calibrate`).
    ``known`` (refine j = −coarsen → the accountant's own enclosure) records the look, so that a
    later :func:`delta_of` of the same mechanism and ε at ``known=`` reuses it."""
    items = composition_items(mech)
    if items is None or not isinstance(eps, (Fraction, int)):
        return None
    acc, method = composition_accountant(items, refine=-coarsen)
    if not hasattr(acc, "h"):
        return None
    enc = acc.delta(eps)  # type: ignore[attr-defined]
    if known is not None:
        known[-coarsen] = enc
    return _answer(mech, enc, method)


#: ``width`` requests refine an accountant's grid at most this many times (h / 2^j)
MAX_WIDTH_REFINE = 6


def narrowed_epsilon(items: list[tuple[Mechanism, int]], delta: object, width: object | None = None,
                     *, rel_bits: int = 34) -> tuple[Enclosure, str]:
    """ε enclosure of a composition, narrowed to ``width`` (absolute, exact) where the
    route allows: the PLD grid is halved (up to :data:`MAX_WIDTH_REFINE` times), the
    φ accountant's bisection tightened.  An upper-bound-only route (lower end 0)
    cannot narrow and is returned as it is; so is the best answer within the cap.
    δ may be a closed form (:func:`at_closed_form`), the width too (a rational below it is used)."""
    if not isinstance(delta, (Fraction, int)):
        return at_closed_form(lambda d: narrowed_epsilon(items, d, width, rel_bits=rel_bits), delta, "delta")
    if width is not None:
        width = check_width(width)
    acc, method = composition_accountant(items, rel_bits=rel_bits)
    enc = acc.epsilon(delta)  # type: ignore[attr-defined]
    if width is None:
        w = default_width(enc)  # the default: as narrow as DP-SGD's (issue 16)
        if enc.hi_exact - enc.lo_exact <= w or not hasattr(acc, "h"):
            return enc, method
        width = w
    w = width
    if not getattr(acc, "two_sided", True) or enc.hi_exact - enc.lo_exact <= w:
        return enc, method
    if not hasattr(acc, "h"):
        tol = w / (2 * max(enc.hi_exact, Fraction(1, 10**6)))
        return acc.epsilon(delta, rel_tol=tol), method  # type: ignore[attr-defined]
    return _refine_grid(items, rel_bits, enc, method, lambda a: a.epsilon(delta), lambda e: w,
                        MAX_WIDTH_REFINE, "refining the PLD grid to the requested width")


def _refine_grid(items: list[tuple[Mechanism, int]], rel_bits: int, enc: Enclosure, method: str,
                 answer: Callable[[Any], Enclosure], target: Callable[[Enclosure], Fraction], cap: int,
                 what: str, stop: Callable[[Enclosure, int], bool] | None = None,
                 known: dict[int, Enclosure] | None = None) -> tuple[Enclosure, str]:
    """The one grid-refinement loop of the PLD routes: while ``enc`` is wider than
    ``target(enc)`` (and ``stop`` does not say that a finer grid cannot help), recompute on
    the grid h / 2^j, j <= ``cap``: one halving first, then as many as the measured shrink
    per halving predicts (:func:`halvings`; each halving doubles the work, so skipping the
    grids in between saves most of it).  ``known[j]``, when given, is taken as the answer on
    the grid h / 2^j (computed before by the same route).  Returns the last answer and its method."""
    j, last = 0, None  # last: (width, halvings) of the previous step
    while j < cap and enc.hi_exact - enc.lo_exact > target(enc):
        if stop is not None and stop(enc, j):
            break
        width = enc.hi_exact - enc.lo_exact
        if last is None or width == 0:
            k = 1
        else:  # the measured shrink per halving (a ratio beyond floats counts as "fast": 1 more)
            shrink = last[0] / width
            k = halvings(width, target(enc), float(shrink) ** (1 / last[1]) if shrink < 10**300 else math.inf)
        k = min(k, cap - j)
        last, j = (width, k), j + k
        check_budget(what, j, cap)
        acc, method = composition_accountant(items, rel_bits=rel_bits, refine=j)  # (lazy: the work is in answer)
        enc = known[j] if known is not None and j in known else answer(acc)
    return enc, method


#: Grid halvings a δ answer gets by default (each doubles the work).
DEFAULT_DELTA_REFINE = 3


def narrowed_delta(items: list[tuple[Mechanism, int]], eps: object, *, rel_bits: int = 34,
                   known: dict[int, Enclosure] | None = None) -> tuple[Enclosure, str]:
    """δ(ε) enclosure of a composition, narrowed by default: while it is wider than
    1 % of its upper end (and its lower end is proved, i.e. the route is two-sided),
    the PLD grid is halved, at most :data:`DEFAULT_DELTA_REFINE` times, under the budget.
    ε may be a closed form (:func:`at_closed_form`).  ``known[j]``: δ(ε) on the grid h/2^j,
    already computed by this route at ``rel_bits`` 34 (:func:`screen_delta`), reused."""
    if rel_bits != 34:
        known = None  # (the looks are made at the default bits)
    if not isinstance(eps, (Fraction, int)):
        return at_closed_form(lambda e: narrowed_delta(items, e, rel_bits=rel_bits), eps, "eps", zero_ok=True)
    ends = [m.vanishes_from() for m, _ in items]
    if all(t is not None for t in ends) and eps >= sum(k * t for (_, k), t in zip(items, ends)):
        return Enclosure.exact(0), "exact: δ = 0 beyond Σ k·ε0 (pure DP composes additively)"
    acc, method = composition_accountant(items, rel_bits=rel_bits)
    enc = known[0] if known and 0 in known and hasattr(acc, "h") else acc.delta(eps)  # type: ignore[attr-defined]
    if not hasattr(acc, "h") or not getattr(acc, "two_sided", True):
        return enc, method
    def hopeless(e: Enclosure, j: int) -> bool:  # no lower end, and a finer grid cannot give one
        # (ε = 1e400 is beyond every finite loss; top_loss composes both relations: asked last)
        return e.hi_exact == 0 or (e.lo_exact == 0 and (j > 0 or Fraction(eps) >= acc.top_loss()))  # type: ignore[attr-defined]

    return _refine_grid(items, rel_bits, enc, method, lambda a: a.delta(eps), lambda e: e.hi_exact / 100,
                        DEFAULT_DELTA_REFINE, "refining the PLD grid for a narrower delta", hopeless, known)
    return enc, method


def eps_of(mech: Mechanism, delta: object, *, bits: int | None = None, width: object | None = None) -> Answer:
    """Certified smallest ε >= 0 with δ_M(ε) <= δ (raises DeltaUnattainable
    when it is proved that no ε reaches δ); ``width`` narrows accountant answers
    (:func:`narrowed_epsilon`).  δ may be a closed form (:func:`at_closed_form`)."""
    if not isinstance(delta, (Fraction, int)):
        return at_closed_form(lambda d: eps_of(mech, d, bits=bits, width=width), delta, "delta")
    items = composition_items(mech)
    if items is not None:
        enc, method = narrowed_epsilon(items, delta, width)
        return _answer(mech, enc, method)
    from certdp.mechanisms.profile_values import eps_enclosure  # noqa: PLC0415

    return _answer(mech, eps_enclosure(mech, delta, bits=bits), mech.route)


def tradeoff_of(mech: Mechanism, alpha: object) -> Answer:
    """Certified β = f(α) of the mechanism's trade-off curve (symmetric over both
    neighbouring relations); see :func:`tradeoff_values`."""
    encs, method = tradeoff_values(mech, [alpha])
    return Answer(encs[0], method, mech.profile_kind, tuple(mech.assumptions))


def profile_values(mech: Mechanism, points: list[Fraction]) -> list[Enclosure]:
    """Certified δ_M(ε) at each ε (one accountant for all points where the router
    takes one; an upper-bound-only profile gives [0, hi])."""
    found = accountant_for(mech)
    if found is None:
        from certdp.mechanisms.profile_values import delta_enclosure  # noqa: PLC0415

        out = []
        for i, x in enumerate(points):
            check_budget("the privacy profile", i, len(points))
            out.append(delta_enclosure(mech, x))
        return out
    out = []
    for i, x in enumerate(points):
        check_budget("the privacy profile", i, len(points))
        enc = found[0].delta(x)  # type: ignore[attr-defined]
        out.append(enc if mech.profile_kind.bounds_from_below else upper_only(enc))
    return out


def gdpt_values(mech: Mechanism, points: list[Fraction]) -> list[Enclosure]:
    """Certified GDPT G(ε) = μ_GDP(ε, δ_M(ε)) at each ε (Liu et al. 2022 Def 4.1):
    closed-form profiles through :func:`certdp.analyses.gdpt.gdpt`, everything else
    from the router's δ enclosures (:func:`profile_values`)."""
    from certdp.analyses.gdpt import gdpt, gdpt_of_delta  # noqa: PLC0415

    if accountant_for(mech) is None:
        out = []
        for i, x in enumerate(points):
            check_budget("the GDPT", i, len(points))
            out.append(gdpt(mech, x, width=Fraction(1, 10**9)))
        return out
    return [gdpt_of_delta(x, d) for x, d in zip(points, profile_values(mech, points))]


def tradeoff_values(mech: Mechanism, alphas: list[object]) -> tuple[list[Enclosure], str]:
    """Certified f(α) at each α (one accountant for all): exactly Gaussian mechanisms
    f_μ(α) = Φ(Φ⁻¹(1−α) − μ) in closed form (Dong, Roth & Su 2022 eq. 2.2); everything
    else through the PLD engine's upper and lower PLDs
    (:func:`certdp.analyses.fdp.tradeoff_enclosure`); an upper-bound-only profile bounds
    f from below only (β ∈ [f_L(α), 1 − α]).  An α given in closed form is bracketed
    (f is non-increasing: [f(hi).lo, f(lo).hi], see :func:`at_closed_form`)."""
    from certdp.expr.brackets import bracket  # noqa: PLC0415

    ends = [bracket(a, "alpha") for a in alphas]
    for (lo, hi), given in zip(ends, alphas):
        if not (0 <= lo and hi <= 1):
            raise InputError(f"alpha must lie in [0, 1], got {given!r}")
    if any(lo != hi for lo, hi in ends):
        flat = sorted({x for pair in ends for x in pair})
        values, method = tradeoff_values(mech, flat)
        at = dict(zip(flat, values))
        return [Enclosure(at[hi].lo, at[lo].hi) for lo, hi in ends], method
    points = [lo for lo, _ in ends]
    mu2 = mech.gdp_mu_squared()
    if mu2 is not None:
        from certdp.numerics.gdp import tradeoff_mu  # noqa: PLC0415

        mu = Enclosure.sqrt_of(mu2)  # f_μ(α) decreases in μ: evaluate at the exact ends
        encs = [Enclosure(tradeoff_mu(mu.hi_exact, a, digits=30).lo, tradeoff_mu(mu.lo_exact, a, digits=30).hi)
                for a in points]
        return encs, f"closed form: f_μ(α) = Φ(Φ⁻¹(1−α) − μ) with μ² = {mu2}"
    from certdp.analyses.accountants.pld import PLDAccountant  # noqa: PLC0415
    from certdp.analyses.fdp import tradeoff_enclosure  # noqa: PLC0415
    items = composition_items(mech) or [(mech, 1)]
    acc = PLDAccountant().compose_all([_flatten(m, k) for m, k in items])
    encs = []
    for i, a in enumerate(points):
        check_budget("the trade-off curve", i, len(points))
        encs.append(tradeoff_enclosure(acc, a))
    method = f"{acc.method}; trade-off curve of the PLDs (Gomez et al. 2025 Thm A.10)"
    if not mech.profile_kind.bounds_from_below or not acc.two_sided:
        method += "; a lower bound on f only (upper end 1 − α)"
    return encs, method


def exact_gdp_mu(mech: Mechanism) -> Enclosure | None:
    """μ (an enclosure of √(μ²) with μ² exact) when the mechanism's trade-off
    curve is exactly Gaussian (gaussian, gaussian_dp, compositions of them,
    subsample at rate 1), else None."""
    mu2 = mech.gdp_mu_squared()
    if mu2 is None:
        return None
    return Enclosure.sqrt_of(mu2)


@dataclass(frozen=True)
class GDPAnswer:
    """What is certified about a mechanism's GDP parameter.

    ``mu`` encloses the μ of the statement "δ_M(ε) <= δ_μ(ε) + η for all ε"
    with η enclosed by ``residual`` (None: η = 0, full μ-GDP proved).
    ``strict_mu_at_least`` (if set) is a certified lower bound on the strict
    GDP parameter from the tail (Liu et al. 2022 Thm 4.4).  ``measurement`` is the
    :class:`certdp.analyses.gdpt.Measurement` when one was run (it can write a certificate).
    """

    mu: Enclosure
    residual: Enclosure | None
    strict_mu_at_least: Enclosure | None
    method: str
    measurement: object | None = None
    kind: ProfileKind = ProfileKind.EXACT
    assumptions: tuple[str, ...] = ()
    spec: str = ""
    residual_exact: Fraction | None = None  # η itself when it is a known rational (PLD report)
    #: (T, μ_T): a proved upper bound μ_T on the strict (η = 0) parameter of a report with a
    #: residual, when the profile vanishes from T (T-DP, Liu et al. 2022 Thm 5.1)
    strict_mu_at_most: tuple[Fraction, Enclosure] | None = None

    def residual_at_most(self, bound: Fraction) -> bool:
        """Is the certified residual η <= ``bound``?"""
        if self.residual is None:
            return True
        if self.residual_exact is not None:
            return self.residual_exact <= bound
        return bool(self.residual.hi <= Enclosure.exact(bound).lo)

    @property
    def exact(self) -> bool:
        """Strict μ-GDP with μ known exactly (the Gaussian route)."""
        return self.method.startswith("exact")

    def to_json(self) -> dict[str, Any]:
        """Plain JSON types only (``json.dumps`` takes it); absent parts are null, η = 0 is ``"residual": null``."""
        def enc(e: Enclosure | None) -> dict[str, str] | None:
            return None if e is None else e.to_json()

        return {"spec": self.spec, "mu": enc(self.mu), "residual": enc(self.residual),
                "strict_mu_at_least": enc(self.strict_mu_at_least),
                "strict_mu_at_most": None if self.strict_mu_at_most is None else
                {"from_eps": str(self.strict_mu_at_most[0]), "mu": self.strict_mu_at_most[1].to_json()},
                "exact": self.exact, "method": self.method, "kind": self.kind.value,
                "assumptions": list(self.assumptions)}


def check_residual(x: object, name: str = "residual") -> Fraction:
    """Exact ``0 <= x <= 1``: a residual δ-mass η a user states (as in "μ-GDP
    except η"), or InputError naming ``name``.  The one rule for it: the audit's
    claims and the sweep's grids both read a residual here."""
    q = exact(x, name)
    if not 0 <= q <= 1:
        raise InputError(f"{name} must lie in [0, 1] (a δ-mass), got {name} = {x}")
    return q


def gdp_of(mech: Mechanism, width: object = Fraction(1, 10**6), residual: object | None = None, *,
           eps_max: object | None = None, eta_max: object | None = None) -> GDPAnswer:
    """Certified GDP statement for a mechanism (exact, measured, or DP-SGD report).

    ``residual`` is the η the caller allows (DP-SGD report only; default
    1e-10): the reported μ enclosure is then that of μ*(η), and its lower end
    is only a valid refutation for claims allowing at most that residual.
    Without it, a k-fold pure-DP / randomized-response composition (also
    subsampled) gets its strict μ (η = 0) from its exact binomial profile, which
    vanishes beyond the largest loss (:mod:`certdp.analyses.strict_gdp`).
    """
    mu = exact_gdp_mu(mech)
    if mu is not None:
        return GDPAnswer(mu, None, None, "exact: the trade-off curve is Gaussian (strict μ-GDP, no residual)",
                         None, mech.profile_kind, tuple(mech.assumptions), mech.spec())
    items = composition_items(mech)
    if items is None or residual is None:
        from certdp.analyses.strict_gdp import strict_measure  # noqa: PLC0415

        m = strict_measure(mech, width=width)  # bounded loss with an exact profile: the strict μ
        if m is not None:
            return GDPAnswer(m.mu, None, None, "GDPT measurement of the exact binomial profile (Kairouz, Oh & "
                             "Viswanath 2015 Thm 3.3; Liu et al. 2022 Thm 4.6, adaptive cells): strict, "
                             f"δ = 0 from ε = {m.eps_max}", m, m.profile_kind, m.assumptions, m.spec)
    if items is not None:
        from certdp.analyses.accountants.pld import PLDAccountant  # noqa: PLC0415
        from certdp.analyses.strict_gdp import pure_dp_bound  # noqa: PLC0415
        from certdp.analyses.fdp import gdp_report  # noqa: PLC0415

        items = [_flatten(m, k) for m, k in items]
        acc = PLDAccountant().compose_all(items)  # the f-DP report reads the PLDs themselves
        rep = gdp_report(acc) if residual is None else gdp_report(acc, residual=residual)
        strict = None
        inner, k = items[0]
        if len(items) == 1 and is_subsampled_gaussian(inner):
            from certdp.analyses.accountants.dpsgd import strict_mu_lower  # noqa: PLC0415

            strict = strict_mu_lower(inner.mechanism.sigma / inner.mechanism.sensitivity, k)  # type: ignore[attr-defined]
        mu = rep.mu if acc.two_sided else upper_only(rep.mu)
        return GDPAnswer(mu, rep.residual, strict, f"{acc.method}; trade-off curve μ* (Gomez et al. 2025 eq. 21)",
                         None, mech.profile_kind, tuple(mech.assumptions), mech.spec(), rep.residual_exact,
                         pure_dp_bound(mech))
    from certdp.analyses.gdpt import DEFAULT_ETA_MAX, measure  # noqa: PLC0415

    m = measure(mech, width=width, eps_max=eps_max, eta_max=DEFAULT_ETA_MAX if eta_max is None else eta_max)
    residual = None if m.tail.kind == "zero" else m.residual
    method = "GDPT measurement (Liu et al. 2022 Thm 4.6, adaptive cells)"
    if not m.profile_kind.bounds_from_below:
        method += f"; {m.profile_kind.value}"
    return GDPAnswer(m.mu, residual, m.strict_mu_at_least, method, m, m.profile_kind, m.assumptions, m.spec)

"""The certificate checker's own mechanism table: every spec name a certificate
can contain, with its closed-form privacy profile in ball arithmetic — so that
checking a certificate never loads the mechanism catalog (:mod:`certdp.mechanisms`,
with its σ-formula mechanisms, symbolic solving and analyses).

Specs are read by the shared grammar (:mod:`certdp.expr.spec_grammar`, no
eval); the profiles are the catalog's, written a second time:

* ``laplace(scale=b, sensitivity=Δ)``: δ(ε) = max(1 − e^{(ε − Δ/b)/2}, 0)
  (Liu et al. 2022 §3; Balle et al. 2020 Thm 3);
* ``gaussian(sigma, sensitivity)`` / ``gaussian_dp(mu)``: δ_μ, μ = Δ/σ (Liu et al. 2022 Thm 3.2);
* ``randomized_response(p)``: (q − (1 − q)e^ε)⁺, q = max(p, 1 − p) (Zhu, Dong & Wang 2022 Table 2);
* ``pure_dp(eps)`` / ``approx_dp(eps, delta)``: δ₀ + (1 − δ₀)(e^{ε₀} − e^ε)⁺/(1 + e^{ε₀})
  (Liu et al. 2022 Thm 3.1);
* ``subsample(M, rate=γ)``: γ δ_M(log(1 + (e^ε − 1)/γ)) (Balle, Barthe & Gaboardi 2018);
* ``compose(M, k)``: closed form for k = 1 and exactly-Gaussian M (μ√k, Dong, Roth & Su 2022);
  k-fold ``pure_dp`` / ``randomized_response``: the exact binomial profile of the optimal
  composition (Kairouz, Oh & Viswanath 2015 Thm 3.3), k <= 10 000;
  other compositions have none (DP-SGD is checked from PLD evidence, :mod:`check_pld`);
  ``dpsgd(noise, rate, steps)`` is ``compose(subsample(gaussian(sigma=noise), rate), k=steps)``;
* ``clip_reify(M, eps_h, lo, hi)``: min(δ_M, max(1 − e^{(ε − ε_h)/2}, 0)), an upper bound only
  (Liu et al. 2022 Thm 4.7);
* ``profile("...")``: a user's δ(ε), parsed by the safe expression parser and validated by
  :func:`certdp.expr.profile.validate_profile`; what it could not prove becomes an assumption.

Catalog profiles are non-increasing, so the range over [a, b] is enclosed by a
lower bound at b and an upper bound at a (two one-sided chains).  What the
checker needs besides δ: :attr:`Mech.assumptions`, :attr:`Mech.profile_kind`,
:meth:`Mech.gdp_mu_squared`, :meth:`Mech.profile` (sympy, for the
second-order cell test and the mpmath kernel).

The σ-formula mechanisms ``sgd(A, B, sigma)`` and ``icea(m, n)`` are in the table
only for their naive profile δ̂ (:class:`NaiveFamily`), which the switch-point
check (:mod:`check_optimum`) needs; every profile-based kind refuses them
(:data:`certdp.verifier.facts.NOT_CHECKABLE`), as it refuses ``tradeoff``
(whose δ̂ needs symbolic solving).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from flint import arb

from certdp.verifier.errors import InputError
from certdp.verifier.spec_grammar import SpecParser
from certdp.verifier.ball import dyadic_to_fraction, lower_bound, to_ball, upper_bound
from certdp.verifier.exact import exact
from certdp.verifier.gauss import delta_mu_ball


def _symbolic() -> tuple[Any, Any]:
    """(sympy, EPS), loaded on first use: only :meth:`Mech.profile` (the second-order
    cell test, the mpmath kernel) and ``profile("...")`` specs need them; the ball
    evaluation of every closed form here is sympy-free."""
    import sympy  # noqa: PLC0415

    from certdp.expr.symbols import EPS  # noqa: PLC0415

    return sympy, EPS


#: Longest accepted ``profile("...")`` expression (as the catalog).
MAX_EXPRESSION_LENGTH = 10_000


class Kind:
    """What a profile is: ``exact``, ``exact for the stated guarantee`` or ``upper bound only``."""

    ORDER = ("exact", "exact for the stated guarantee", "upper bound only")

    def __init__(self, value: str) -> None:
        self.value = value

    @property
    def bounds_from_below(self) -> bool:
        return self.value != "upper bound only"


EXACT, GUARANTEE, UPPER = (Kind(v) for v in Kind.ORDER)

#: Declared parameters: name -> ((param, kind, default or _REQ), ...).
_REQ = object()
PARAMS: dict[str, tuple[tuple[str, str, Any], ...]] = {
    "laplace": (("scale", "number", _REQ), ("sensitivity", "number", 1)),
    "gaussian": (("sigma", "number", _REQ), ("sensitivity", "number", 1)),
    "gaussian_dp": (("mu", "number", _REQ),),
    "randomized_response": (("p", "number", _REQ),),
    "discrete_laplace": (("scale", "number", _REQ), ("sensitivity", "integer", 1)),
    "discrete_gaussian": (("sigma", "number", _REQ), ("sensitivity", "integer", 1)),
    "pure_dp": (("eps", "number", _REQ),),
    "approx_dp": (("eps", "number", _REQ), ("delta", "number", _REQ)),
    "subsample": (("mechanism", "mechanism", _REQ), ("rate", "number", _REQ)),
    "compose": (("mechanism", "mechanism", _REQ), ("k", "integer", _REQ)),
    "clip_reify": (("mechanism", "mechanism", _REQ), ("eps_h", "number", _REQ), ("lo", "number", _REQ),
                   ("hi", "number", _REQ)),
    "profile": (("expression", "string", _REQ),),
    "dpsgd": (("noise", "number", _REQ), ("rate", "number", _REQ), ("steps", "integer", _REQ)),
    "compose_all": (),  # variadic: compose_all(M1, M2, ...), see ComposeAll
    "sgd": (("A", "number", _REQ), ("B", "number", _REQ), ("sigma", "number", _REQ)),
    "icea": (("m", "number", _REQ), ("n", "number", _REQ)),
}


def _bind(name: str, positional: list[Any], keywords: dict[str, Any]) -> dict[str, Any]:
    """Exact parameter values by name (InputError on unknown, missing, repeated or ill-typed ones)."""
    decl = PARAMS[name]
    names = [p[0] for p in decl]
    if len(positional) > len(decl):
        raise InputError(f"{name}: takes at most {len(decl)} arguments, got {len(positional)}")
    values = dict(zip(names, positional))
    for key, v in keywords.items():
        if key not in names:
            raise InputError(f"{name}: unknown parameter {key!r} (parameters: {', '.join(names)})")
        if key in values:
            raise InputError(f"{name}: parameter {key!r} given twice")
        values[key] = v
    out: dict[str, Any] = {}
    for pname, kind, default in decl:
        if pname not in values:
            if default is _REQ:
                raise InputError(f"{name}: missing parameter {pname!r}")
            values[pname] = default
        v, what = values[pname], f"{name}: parameter {pname}"
        if kind == "mechanism":
            if not isinstance(v, Mech):
                raise InputError(f"{what} must be a mechanism, got {v!r}")
        elif kind == "string":
            if not isinstance(v, str):
                raise InputError(f"{what} must be a string, got {v!r}")
        else:
            if isinstance(v, (Mech, str)):
                raise InputError(f"{what} must be a {kind}, got {v!r}")
            v = exact(v, what)
            if kind == "integer":
                if v.denominator != 1:
                    raise InputError(f"{what} must be an integer, got {v}")
                v = int(v)
        out[pname] = v
    return out


def _positive_part(x: arb) -> arb:
    if x >= 0:
        return x
    if x <= 0:
        return arb(0)
    return arb(0).union(x.upper())


def _min_ball(x: arb, y: arb) -> arb:
    if x <= y:
        return x
    if y <= x:
        return y
    return x.min(y)


def _q(x: Fraction) -> sympy.Rational:
    sympy = _symbolic()[0]
    return sympy.Rational(x.numerator, x.denominator)


def _gdp_expr(mu: sympy.Expr) -> sympy.Expr:
    """δ_μ(ε) with Φ(x) = erfc(−x/√2)/2."""
    sympy, EPS = _symbolic()

    def Phi(x: sympy.Expr) -> sympy.Expr:
        return sympy.erfc(-x / sympy.sqrt(2)) / 2

    return Phi(-EPS / mu + mu / 2) - sympy.exp(EPS) * Phi(-EPS / mu - mu / 2)


class Mech:
    """A mechanism of the table: ``name`` and exact ``params`` (children are Mechs)."""

    own_kind = EXACT

    def __init__(self, name: str, params: dict[str, Any]) -> None:
        self.name, self.params = name, params
        self.check()

    def __getattr__(self, key: str) -> Any:
        params = self.__dict__.get("params")
        if params is not None and key in params:
            return params[key]
        raise AttributeError(key)

    def check(self) -> None:
        """Validate the parameter values (InputError)."""

    def children(self) -> tuple["Mech", ...]:
        return tuple(v for v in self.params.values() if isinstance(v, Mech))

    @property
    def profile_kind(self) -> Kind:
        kinds = {self.own_kind.value, *(c.profile_kind.value for c in self.children())}
        return UPPER if UPPER.value in kinds else GUARANTEE if GUARANTEE.value in kinds else EXACT

    def own_assumptions(self) -> tuple[str, ...]:
        return ()

    @property
    def assumptions(self) -> tuple[str, ...]:
        out: list[str] = []
        for a in (*self.own_assumptions(), *(a for c in self.children() for a in c.assumptions)):
            if a not in out:
                out.append(a)
        return tuple(out)

    def gdp_mu_squared(self) -> Fraction | None:
        """μ² when the trade-off curve is exactly Gaussian, else None."""
        return None

    def profile(self) -> sympy.Expr:
        raise NotImplementedError  # pragma: no cover - every entry defines it

    # -- ball evaluation: non-increasing profiles --------------------------
    def point(self, eps: arb) -> arb:
        raise NotImplementedError  # pragma: no cover

    def upper_at(self, eps: arb) -> arb:
        return self.point(eps)

    def lower_at(self, eps: arb) -> arb:
        return self.point(eps)

    def delta_ball(self, eps: arb) -> arb:
        """Ball containing δ(ε) for all ε in ``eps`` ∩ [0, ∞)."""
        if not eps.is_finite():
            raise InputError(f"eps ball {eps} is not finite")
        if eps.is_exact():
            if eps < 0:
                raise InputError(f"eps must be >= 0, got {eps}")
            return self.point(eps)
        hi = upper_bound(eps)
        if hi < 0:
            raise InputError(f"eps must be >= 0, got the ball {eps}")
        lo = lower_bound(eps)
        return self.lower_at(hi).lower().union(self.upper_at(lo if lo >= 0 else arb(0)).upper())


def _upper_over(m: Mech, x: arb) -> arb:
    if isinstance(m, UserProfile):
        return m.delta_ball(x)
    lo = lower_bound(x)
    return m.upper_at(lo if lo >= 0 else arb(0))


def _lower_over(m: Mech, x: arb) -> arb:
    return m.delta_ball(x) if isinstance(m, UserProfile) else m.lower_at(upper_bound(x))


class Laplace(Mech):
    def check(self) -> None:
        if self.scale <= 0 or self.sensitivity <= 0:
            raise InputError("laplace: scale and sensitivity must be > 0")

    def profile(self) -> sympy.Expr:
        sympy, EPS = _symbolic()
        return sympy.Max(1 - sympy.exp(EPS / 2 - _q(self.sensitivity / self.scale) / 2), 0)

    def point(self, eps: arb) -> arb:
        return _positive_part(-((eps - to_ball(self.sensitivity / self.scale)) / 2).expm1())


class GaussianDP(Mech):
    own_kind = GUARANTEE

    def check(self) -> None:
        if self.mu <= 0:
            raise InputError("gaussian_dp: mu must be > 0")

    def gdp_mu_squared(self) -> Fraction:
        return Fraction(self.mu) ** 2

    def profile(self) -> sympy.Expr:
        return _gdp_expr(_q(self.mu))

    def point(self, eps: arb) -> arb:
        return delta_mu_ball(to_ball(self.mu), eps)


class Gaussian(GaussianDP):
    own_kind = EXACT

    def check(self) -> None:
        if self.sigma <= 0 or self.sensitivity <= 0:
            raise InputError("gaussian: sigma and sensitivity must be > 0")

    @property
    def mu(self) -> Fraction:
        return self.sensitivity / self.sigma


class RandomizedResponse(Mech):
    def check(self) -> None:
        if not 0 < self.p < 1:
            raise InputError("randomized_response: p must satisfy 0 < p < 1")

    def profile(self) -> sympy.Expr:
        sympy, EPS = _symbolic()
        q = _q(max(self.p, 1 - self.p))
        return sympy.Max(q - (1 - q) * sympy.exp(EPS), 0)

    def point(self, eps: arb) -> arb:
        q = max(self.p, 1 - self.p)
        return _positive_part(to_ball(q) - to_ball(1 - q) * eps.exp())


class DiscreteLaplace(Mech):
    """P(x) ∝ e^{−|x|/t} on the integers, integer sensitivity Δ: with r = e^{−1/t},
    c = (1 − r)/(1 + r) the loss (|x − Δ| − |x|)/t takes Δ + 1 values — Δ/t (P-mass
    1/(1 + r), Q-mass r^Δ/(1 + r)), −Δ/t (swapped) and (Δ − 2x)/t for 0 < x < Δ (c r^x,
    c r^{Δ−x}) — and δ(ε) = Σ (P − e^ε Q)⁺ over them (Canonne, Kamath & Steinke 2020 §2)."""

    def check(self) -> None:
        if self.scale <= 0 or not 1 <= self.sensitivity <= 1000:
            raise InputError("discrete_laplace: need scale > 0 and an integer sensitivity in [1, 1000]")

    def atoms(self, exp: Any = None, one: Any = None) -> list[tuple[Fraction, Any, Any]]:
        """(loss, P-mass, Q-mass), the engine's order; ``exp`` is sympy.exp (``one`` a sympy 1)
        or (default) a ball exp."""
        exp, one = (exp, one) if exp is not None else ((lambda x: x.exp()), arb(1))
        d, t = int(self.sensitivity), Fraction(self.scale)
        r = exp(-one / (to_ball(t) if isinstance(one, arb) else _q(t)))
        c = (1 - r) / (1 + r)
        out = [(Fraction(d) / t, 1 / (1 + r), r**d / (1 + r)), (-Fraction(d) / t, r**d / (1 + r), 1 / (1 + r))]
        return out + [(Fraction(d - 2 * x) / t, c * r**x, c * r**(d - x)) for x in range(1, d)]

    def profile(self) -> sympy.Expr:
        sympy, EPS = _symbolic()
        return sympy.Add(*[sympy.Max(p - q * sympy.exp(EPS), 0)
                           for ell, p, q in self.atoms(sympy.exp, sympy.Integer(1)) if ell > 0])

    def point(self, eps: arb) -> arb:
        """The atoms with loss > ε (exact comparison: at ℓ = ε the term is exactly 0)."""
        e, at = eps.exp(), dyadic_to_fraction(eps)
        tot = arb(0)
        for ell, p, q in self.atoms(lambda x: x.exp(), arb(1)):
            if ell > at:
                tot += _positive_part(p - e * q)
        return tot


class DiscreteGaussian(Mech):
    """P(x) = w(x)/Z on the integers, w(x) = e^{−x²/(2σ²)}, integer sensitivity Δ (Canonne,
    Kamath & Steinke 2020, Def 1, Thm 7).  The loss (Δ² − 2Δx)/(2σ²) falls with x and
    exceeds ε iff x < c = Δ/2 − εσ²/Δ, so with m = ⌈c⌉ − 1

        δ(ε) = Σ_{x <= m} (w(x) − e^ε w(x − Δ)) / Z,

    every term positive.  Terms with |x| <= N are summed in balls; beyond N the terms
    fall at least geometrically (w(x+1)/w(x) = e^{−(2x+1)/(2σ²)}), so each tail
    Σ_{x>N} w(x) is in [0, w(N+1)/(1 − e^{−(2N+3)/(2σ²)})], N chosen for 2^−(prec+64)."""

    def check(self) -> None:
        if self.sigma <= 0 or not 1 <= self.sensitivity <= 1000 or self.sigma > 5000:
            # the sum has about 2·28σ terms at the highest precision the checker retries at;
            # the catalog refuses σ beyond ~4250 (200 000 atoms)
            raise InputError("discrete_gaussian: need 0 < sigma <= 5000 and an integer sensitivity in [1, 1000]")

    def profile(self) -> sympy.Expr:
        raise InputError("discrete_gaussian has no closed-form profile (an infinite sum): the ball "
                         "kernel sums it with bounded tails")

    def _parts(self) -> tuple[int, Any, arb, arb]:
        """(N, w, [0, Σ_{x>N} w(x)] (= Σ_{x<−N} w(x)), Z) at the working precision."""
        import math  # noqa: PLC0415

        from flint import ctx  # noqa: PLC0415

        s, d = Fraction(self.sigma), int(self.sensitivity)
        n = int(math.ceil(float(s) * math.sqrt(2 * (ctx.prec + 64) * math.log(2)))) + d + 1
        s2 = to_ball(2 * s * s)
        w = lambda x: (-(to_ball(x * x)) / s2).exp()  # noqa: E731
        tail = w(n + 1) / (1 - (-(to_ball(2 * n + 3)) / s2).exp())  # Σ_{x>n} w(x), also Σ_{x<−n}
        spread = arb(0).union(tail)
        return n, w, spread, sum((w(x) for x in range(-n, n + 1)), arb(0)) + 2 * spread

    def atoms(self) -> list[tuple[Fraction, arb, arb]]:
        """(loss, P-mass, Q-mass) for x = −N..N (:meth:`tails` holds the rest)."""
        n, w, _, z = self._parts()
        d, s2 = int(self.sensitivity), 2 * Fraction(self.sigma) ** 2
        return [(Fraction(d * d - 2 * d * x) / s2, w(x) / z, w(x - d) / z) for x in range(-n, n + 1)]

    def tails(self) -> arb:
        """[0, bound] on the P-mass of x ∉ [−N, N] and on the Q-mass there (each <= 2·tail/Z;
        Q's: Σ_{x<−N} w(x − Δ) + Σ_{x>N} w(x − Δ) <= Σ_{|y|>N−Δ} w(y), N > Δ + tail)."""
        n, w, spread, z = self._parts()
        d = int(self.sensitivity)
        extra = sum((w(y) for y in range(n - d + 1, n + 1)), arb(0))  # Q's tail starts Δ earlier
        return arb(0).union(2 * (spread.upper() + extra) / z.lower())

    def point(self, eps: arb) -> arb:
        n, w, spread, z = self._parts()
        s, d = Fraction(self.sigma), int(self.sensitivity)
        c = Fraction(d, 2) - dyadic_to_fraction(eps) * s * s / d
        m = -((-c.numerator) // c.denominator) - 1  # ⌈c⌉ − 1
        e = eps.exp()
        top = min(m, n)
        a = sum((w(x) - e * w(x - d) for x in range(-n, top + 1)), arb(0)) if top >= -n else arb(0)
        a += spread  # the terms x < −n: each in [0, w(x)]
        return _positive_part(a / z)


class ApproxDP(Mech):
    own_kind = GUARANTEE

    def check(self) -> None:
        if self.eps < 0 or not 0 <= self.delta0 < 1:
            raise InputError(f"{self.name}: need eps >= 0 and 0 <= delta < 1")

    @property
    def delta0(self) -> Fraction:
        return self.params.get("delta", Fraction(0))

    def profile(self) -> sympy.Expr:
        sympy, EPS = _symbolic()
        e0, d0 = sympy.exp(_q(self.eps)), _q(self.delta0)
        return d0 + (1 - d0) * sympy.Max(e0 - sympy.exp(EPS), 0) / (1 + e0)

    def point(self, eps: arb) -> arb:
        e0 = to_ball(self.eps)
        term = _positive_part(eps.exp() * (e0 - eps).expm1()) / (1 + e0.exp())
        if self.delta0 == 0:
            return term
        d0 = to_ball(self.delta0)
        return d0 + (1 - d0) * term


class Subsample(Mech):
    own_kind = property(lambda self: GUARANTEE if isinstance(self.mechanism, RandomizedResponse) else EXACT)  # RR: its add/remove guarantee

    def check(self) -> None:
        if not 0 < self.rate <= 1:
            raise InputError("subsample: rate must satisfy 0 < rate <= 1")

    def gdp_mu_squared(self) -> Fraction | None:
        return self.mechanism.gdp_mu_squared() if self.rate == 1 else None

    def profile(self) -> sympy.Expr:
        sympy, EPS = _symbolic()
        inner = self.mechanism.profile()
        if self.rate == 1:
            return inner
        g = _q(self.rate)
        return g * inner.subs(EPS, sympy.log(1 + (sympy.exp(EPS) - 1) / g))

    def _inner_eps(self, eps: arb) -> arb:
        return (eps.expm1() / to_ball(self.rate)).log1p()

    def point(self, eps: arb) -> arb:
        if self.rate == 1:
            return self.mechanism.delta_ball(eps)
        return self.lower_at(eps).lower().union(self.upper_at(eps).upper())

    def upper_at(self, eps: arb) -> arb:
        if self.rate == 1:
            return _upper_over(self.mechanism, eps)
        return to_ball(self.rate) * _upper_over(self.mechanism, self._inner_eps(eps))

    def lower_at(self, eps: arb) -> arb:
        if self.rate == 1:
            return _lower_over(self.mechanism, eps)
        return to_ball(self.rate) * _lower_over(self.mechanism, self._inner_eps(eps))


#: Largest k for which compose(pure_dp / randomized_response, k) is evaluated as a binomial sum.
MAX_BINOMIAL_K = 10_000


def _pure_loss(m: Mech) -> tuple[Fraction, Fraction | None] | None:
    """(ε₀ or None, q) for a pure-DP-type mechanism whose dominating pair is binary
    randomized response with P-probabilities (q, 1 − q) and losses ±ℓ:
    ``pure_dp(eps=ε₀)`` (ℓ = ε₀, q = e^{ε₀}/(1 + e^{ε₀})) and ``randomized_response(p)``
    (q = max(p, 1 − p), ℓ = log(q/(1 − q))); None otherwise."""
    if m.name == "pure_dp":
        return m.eps, None
    if m.name == "randomized_response":
        return None, max(m.p, 1 - m.p)
    return None


class Compose(Mech):
    def __init__(self, name: str, params: dict[str, Any]) -> None:
        inner = params["mechanism"]
        if isinstance(inner, Compose) and params["k"] >= 1:  # nested compositions flatten
            params = {"mechanism": inner.mechanism, "k": inner.k * params["k"]}
        super().__init__(name, params)

    def check(self) -> None:
        if self.k < 1:
            raise InputError("compose: k must be an integer >= 1")

    @property
    def binomial(self) -> bool:
        """k-fold composition of pure ε₀-DP (or of randomized response): the exact
        binomial profile (Kairouz, Oh & Viswanath 2015, Thm 3.3: optimal composition)."""
        return 1 < self.k <= MAX_BINOMIAL_K and _pure_loss(self.mechanism) is not None

    @property
    def has_closed_form(self) -> bool:
        return self.k == 1 or self.mechanism.gdp_mu_squared() is not None or self.binomial

    def gdp_mu_squared(self) -> Fraction | None:
        inner = self.mechanism.gdp_mu_squared()
        return None if inner is None else self.k * inner

    def _closed(self) -> None:
        if not self.has_closed_form:
            raise InputError("compose: this composition has no closed-form privacy profile")

    def profile(self) -> sympy.Expr:
        sympy, EPS = _symbolic()
        self._closed()
        if self.k == 1:
            return self.mechanism.profile()
        if self.binomial:
            e0, q = _pure_loss(self.mechanism)
            if e0 is not None:
                r = sympy.exp(_q(e0))  # q/(1 − q) = e^{ε₀}, q^i (1 − q)^{k−i} = e^{iε₀}/(1 + e^{ε₀})^k
                w = [sympy.exp(i * _q(e0)) / (1 + r) ** self.k for i in range(self.k + 1)]
            else:
                r = _q(q) / (1 - _q(q))
                w = [_q(q) ** i * (1 - _q(q)) ** (self.k - i) for i in range(self.k + 1)]
            return sympy.Add(*(sympy.binomial(self.k, i) * w[i] * sympy.Max(r ** (self.k - 2 * i) - sympy.exp(EPS), 0, evaluate=False)
                               for i in range((self.k + 1) // 2)))
        return _gdp_expr(sympy.sqrt(_q(self.gdp_mu_squared())))

    def point(self, eps: arb) -> arb:
        self._closed()
        if self.k == 1:
            return self.mechanism.delta_ball(eps)
        if self.binomial:
            return self._binomial_ball(eps)
        return delta_mu_ball(to_ball(self.gdp_mu_squared()).sqrt(), eps)

    def _binomial_ball(self, eps: arb) -> arb:
        """δ_k(ε) = Σ_{i < k/2} C(k, i) q^i (1 − q)^{k−i} e^ε (e^{(k−2i)ℓ − ε} − 1)⁺: the privacy loss
        of k binary randomized-response steps is (k − 2i)ℓ with probability C(k, i) q^{k−i}(1 − q)^i
        under P, and δ(ε) = E_P[(1 − e^{ε − L})⁺] (Gomez et al. 2025 Thm A.7)."""
        e0, q = _pure_loss(self.mechanism)
        k = self.k
        if e0 is not None:
            ell = to_ball(e0)
            qb = 1 / (1 + (-ell).exp())  # e^{ε₀}/(1 + e^{ε₀})
            lq, l1q = -((-ell).exp().log1p()), -(ell.exp().log1p())  # log q, log(1 − q)
        else:
            if q == Fraction(1, 2):
                return arb(0)  # δ ≡ 0
            qb = to_ball(q)
            ell = (qb / to_ball(1 - q)).log()
            lq, l1q = qb.log(), to_ball(1 - q).log()
        del qb
        total = arb(0)
        log_binom = arb(0)  # log C(k, i)
        eps_q = dyadic_to_fraction(eps) if e0 is not None and eps.is_exact() else None
        for i in range((k + 1) // 2):
            if eps_q is not None and (k - 2 * i) * e0 <= eps_q:
                break  # decided exactly: the loss (k − 2i)ε₀ is <= ε, so this and later terms are 0
            if i:
                log_binom += (arb(k - i + 1) / i).log()
            t = ((k - 2 * i) * ell - eps).expm1()
            if t <= 0:
                break  # this and every later term (smaller loss) vanish
            w = (log_binom + i * lq + (k - i) * l1q + eps).exp()
            total += w * _positive_part(t)
        return total
class ClipReify(Mech):
    own_kind = UPPER

    def check(self) -> None:
        if self.eps_h <= 0 or not self.lo < self.hi:
            raise InputError("clip_reify: need eps_h > 0 and lo < hi")

    def profile(self) -> sympy.Expr:
        sympy, EPS = _symbolic()
        lap = sympy.Max(1 - sympy.exp(EPS / 2 - _q(self.eps_h) / 2), 0)
        return sympy.Min(self.mechanism.profile(), lap)

    def _lap(self, eps: arb) -> arb:
        return _positive_part(-((eps - to_ball(self.eps_h)) / 2).expm1())

    def point(self, eps: arb) -> arb:
        lap = self._lap(eps)
        return lap if lap.is_zero() else _min_ball(self.mechanism.delta_ball(eps), lap)

    def upper_at(self, eps: arb) -> arb:
        lap = self._lap(eps)
        return lap if lap.is_zero() else _min_ball(_upper_over(self.mechanism, eps), lap)

    def lower_at(self, eps: arb) -> arb:
        lap = self._lap(eps)
        return lap if lap.is_zero() else _min_ball(_lower_over(self.mechanism, eps), lap)


class UserProfile(Mech):
    """``profile("...")``: an upper bound only; unproved hypotheses become assumptions."""

    own_kind = UPPER

    def check(self) -> None:
        from certdp.expr.parser import parse_expression  # noqa: PLC0415
        from certdp.expr.profile import validate_profile  # noqa: PLC0415

        text = self.expression
        if len(text) > MAX_EXPRESSION_LENGTH:
            raise InputError(f"profile: expression of {len(text)} characters is too long")
        if not text.strip():
            raise InputError("profile: empty expression")
        self._expr = parse_expression(text, variables=("eps",))
        self._unproved = tuple(validate_profile(self._expr).unproved)
        self._compiled: Any = None

    def own_assumptions(self) -> tuple[str, ...]:
        quoted = '"' + self.expression.replace("\\", "\\\\").replace('"', '\\"') + '"'
        return tuple(f"profile({quoted}): {u}" for u in self._unproved)

    def profile(self) -> sympy.Expr:
        return self._expr

    def delta_ball(self, eps: arb) -> arb:
        """Range of the expression over ``eps`` ∩ [0, ∞) (no monotonicity assumed)."""
        EPS = _symbolic()[1]
        from certdp.expr.evaluate import compile_ball  # noqa: PLC0415

        if self._compiled is None:
            self._compiled = compile_ball(self._expr, (EPS,))
        if eps < 0:
            raise InputError(f"eps must be >= 0, got {eps}")
        if not eps >= 0:
            eps = arb(0).union(eps.upper())
        return self._compiled(eps)


class ComposeAll(Mech):
    """``compose_all(M1, ..., Mn)``: the heterogeneous composition (any order) of the
    listed mechanisms — each may itself be ``compose(M, k)``.  The checker's spec for
    the answers of ``certdp account`` with several ``--mechanism``; no closed-form
    profile (evidence ``pld_items``, :mod:`certdp.verifier.check_profile_pld`)."""

    has_closed_form = False

    def children(self) -> tuple[Mech, ...]:
        return tuple(self.params["mechanisms"])

    def point(self, eps: arb) -> arb:
        raise InputError("compose_all(...) has no closed-form profile (its certificates carry pld_items)")

    def profile(self) -> sympy.Expr:
        raise InputError("compose_all(...) has no closed-form profile (its certificates carry pld_items)")


class NaiveFamily(Mech):
    """A σ-formula mechanism whose naive profile δ̂(ε) (σ = f(ε, δ) solved for δ)
    has a closed form that is positive and non-increasing on ε > 0 (Liu et al. 2022 §2):

    * ``sgd``: σ = A ε⁻¹ √log(B/δ) ⇔ δ̂ = B exp(−(σε/A)²), A, B, σ > 0;
    * ``icea``: m = 10 log(n/(εδ)) ⇔ δ̂ = n e^{−m/10}/ε, m, n > 0.

    No profile (the refined profile needs a search): δ̂ and δ̂' in balls are
    :func:`certdp.verifier.switch.naive_ball` / ``dnaive_ball``, the only check that needs them."""

    def check(self) -> None:
        if any(v <= 0 for v in self.params.values()):
            raise InputError(f"{self.name}: parameters must be positive, got "
                             + ", ".join(f"{k}={v}" for k, v in self.params.items()))


TABLE: dict[str, type[Mech]] = {
    "laplace": Laplace, "gaussian": Gaussian, "gaussian_dp": GaussianDP,
    "randomized_response": RandomizedResponse, "pure_dp": ApproxDP, "approx_dp": ApproxDP,
    "discrete_laplace": DiscreteLaplace, "discrete_gaussian": DiscreteGaussian,
    "subsample": Subsample, "compose": Compose, "clip_reify": ClipReify, "profile": UserProfile,
    "sgd": NaiveFamily, "icea": NaiveFamily,
}


class _Parser(SpecParser):
    def resolve(self, name: str, pos: int) -> str:
        if name not in PARAMS:
            raise InputError(f"unknown mechanism {name!r} at position {pos} (the checker knows: {', '.join(PARAMS)})")
        return name

    def build(self, target: str, name: str, positional: list[Any], keywords: dict[str, Any]) -> Mech:
        if name == "compose_all":
            if keywords or len(positional) < 2 or not all(isinstance(m, Mech) for m in positional):
                raise InputError("compose_all: takes two or more mechanisms (positional), nothing else")
            return ComposeAll(name, {"mechanisms": tuple(positional)})
        v = _bind(name, positional, keywords)
        if name == "dpsgd":
            g = Gaussian("gaussian", {"sigma": v["noise"], "sensitivity": Fraction(1)})
            return Compose("compose", {"mechanism": Subsample("subsample", {"mechanism": g, "rate": v["rate"]}),
                                       "k": v["steps"]})
        return TABLE[name](name, v)


def parse(text: str, exclude: tuple[str, ...] = ()) -> Mech:
    """The mechanism of a spec string (InputError on any problem)."""
    return _Parser(text, exclude).parse()

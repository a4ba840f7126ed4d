"""The rule set of the asymptotic engine (see :mod:`certdp.analyses.limits.asymptotics`)."""

from __future__ import annotations

import sympy

from certdp.analyses.limits.asymptotics import (
    OO,
    ZERO,
    ZERO_ORDER,
    Asym,
    Mono,
    Undecided,
    asym_from,
    cmp_order,
    dominates,
    sign_of,
    sum_leading,
)
from certdp.analyses.limits.monotone import erfc_pair_data, split_erfc_term
from certdp.analyses.limits.thresholds import Threshold, certify

_I0, _I1 = sympy.Integer(0), sympy.Integer(1)


def _mono_const(c: sympy.Expr) -> Mono:
    return Mono(c, _I0, _I0)


class Engine:
    """Analyse expressions in ``eps`` as ε → ∞, recording a proof trace."""

    def __init__(self, eps: sympy.Symbol) -> None:
        self.eps = eps
        self.trace: list[tuple[str, str]] = []
        self._memo: dict[sympy.Expr, Asym] = {}
        self.thresholds: list[Threshold] = []

    # -- trace -------------------------------------------------------------
    def note(self, step: str, rule: str) -> None:
        if (step, rule) not in self.trace:
            self.trace.append((step, rule))

    def limit_of(self, e: sympy.Expr) -> sympy.Expr:
        return self.an(e).limit

    # -- dispatcher --------------------------------------------------------
    def an(self, e: sympy.Expr) -> Asym:
        hit = self._memo.get(e)
        if hit is not None:
            return hit
        r = self._an(e)
        self._memo[e] = r
        return r

    def _an(self, e: sympy.Expr) -> Asym:
        eps = self.eps
        if eps not in e.free_symbols:
            if e.has(sympy.nan, sympy.zoo) or not e.is_finite and e.is_finite is not None:
                raise Undecided(f"non-finite constant {e}")
            s = sign_of(e)
            if s == 0:
                return Asym(0, None, None, _I0)
            return Asym(s, _mono_const(e), _mono_const(sympy.log(sympy.Abs(e))), e)
        if e == eps:
            return Asym(1, Mono(_I1, _I1, _I0), Mono(_I1, _I0, _I1), OO)
        if e.is_Add:
            return self._add(e)
        if e.is_Mul:
            return self._mul(e)
        if e.is_Pow:
            return self._pow(e)
        f = e.func
        if f is sympy.exp:
            return self._exp(e)
        if f is sympy.log:
            return self._log(e)
        if f is sympy.erfc:
            return self._erfc(e)
        if f is sympy.erf:
            self.note(f"{e} = 1 - erfc({e.args[0]})", "identity erf = 1 - erfc")
            return self.an(1 - sympy.erfc(e.args[0]))
        if f in (sympy.Max, sympy.Min):
            return self._maxmin(e)
        if f is sympy.Abs:
            a = self.an(e.args[0])
            if a.sign == 0:
                return ZERO
            lead = None if a.lead is None else Mono(sympy.Abs(a.lead.k), a.lead.p, a.lead.q)
            return asym_from(1, lead, a.llead, sympy.Abs(a.limit))
        if f is sympy.Piecewise:
            return self._piecewise(e)
        raise Undecided(f"no asymptotic rule for {f.__name__} in {e}")

    # -- rules ---------------------------------------------------------------
    def _add(self, e: sympy.Expr) -> Asym:
        terms = list(e.args)
        A = [self.an(t) for t in terms]
        nz = [(t, a) for t, a in zip(terms, A) if a.sign != 0]
        if not nz:
            return ZERO
        if len(nz) == 1:
            if len(nz) < len(terms):
                self.note(f"{e} = {nz[0][0]} for all large eps (other terms eventually 0)", "eventually-zero terms")
            return nz[0][1]
        # 1. all limits finite with nonzero sum
        if all(a.limit.is_finite or (a.limit not in (OO, -OO) and not a.limit.has(OO)) for _, a in nz):
            total = sympy.Add(*[a.limit for _, a in nz])
            s = sign_of(total)
            if s != 0:
                self.note(f"{e} -> {total} (sum of the limits of its terms)", "limit of a sum")
                return Asym(s, _mono_const(total), _mono_const(sympy.log(sympy.Abs(total))), total)
        # 2. a dominant term
        for i, (t, a) in enumerate(nz):
            if all(dominates(a, b) for j, (_, b) in enumerate(nz) if j != i):
                others = [u for j, (u, _) in enumerate(nz) if j != i]
                self.note(f"in {e}, the term {t} dominates ({', '.join(map(str, others))}) = o({t})",
                          "dominant term: log-ratio -> +oo, so A + B = A(1 + o(1))")
                return a
        # 3. same sign, comparable maximal terms
        signs = {a.sign for _, a in nz}
        if len(signs) == 1:
            s = signs.pop()
            maximal = [(t, a) for t, a in nz if not any(dominates(b, a) for u, b in nz if u is not t)]
            lleads = [a.llead for _, a in maximal]
            if all(m is not None for m in lleads):
                ll = lleads[0]
                same = all(cmp_order(m.order, ll.order) == 0 and
                           (ll.order == ZERO_ORDER or sign_of(m.k - ll.k) == 0) for m in lleads)
                if same and cmp_order(ll.order, ZERO_ORDER) > 0:
                    leads = [a.lead for _, a in maximal]
                    lead = sum_leading(leads) if all(x is not None for x in leads) else None
                    self.note(f"{e}: terms of one sign with log|.| ~ {ll.show()} each, so log of the sum "
                              f"~ {ll.show()}", "sum of positive terms: log(A + B) = max(log A, log B) + O(1)")
                    return asym_from(s, lead, ll)
            leads = [a.lead for _, a in nz]
            if all(x is not None for x in leads):
                lead = sum_leading(leads)
                if lead is not None:
                    return asym_from(s, lead, None)
        # 4a. k·exp(g) − k with g → 0:  e^g − 1 = g(1 + O(g))
        if len(nz) == 2:
            r = self._expm1(e, nz)
            if r is not None:
                return r
        # 4. the erfc-pair (δ_μ) cancellation rule
        r = self._erfc_pair(e, nz)
        if r is not None:
            return r
        leads = [a.lead for _, a in nz]
        if all(x is not None for x in leads):
            lead = sum_leading(leads)
            if lead is not None:
                s = sign_of(lead.k)
                self.note(f"{e} ~ {lead.show()} (sum of power-type leading terms)", "leading terms add")
                return asym_from(s, lead, None)
        raise Undecided(f"possible cancellation between the terms of {e}")

    def _expm1(self, e: sympy.Expr, nz: list) -> Asym | None:
        (t1, _), (t2, _) = nz
        for u, c in ((t1, t2), (t2, t1)):
            if self.eps in c.free_symbols:
                continue
            k = -c
            g = sympy.Mul(*[f for f in sympy.Mul.make_args(u) if f.func is sympy.exp])
            if g.func is not sympy.exp or sympy.simplify(u / g - k) != 0:
                continue
            arg = g.args[0]
            if self.an(arg).limit != 0:
                continue
            res = self.an(k * arg)
            if res.sign == 0 or (res.lead is None and res.llead is None):
                return None
            self.note(f"{e} = ({k})*(exp(g) - 1) ~ ({k})*g with g = {arg} -> 0", "exp(g) - 1 = g(1 + O(g)), g -> 0")
            return asym_from(res.sign, res.lead, res.llead, sympy.Integer(0))
        return None

    def _mul(self, e: sympy.Expr) -> Asym:
        A = [self.an(a) for a in e.args]
        if any(a.sign == 0 for a in A):
            return ZERO
        s = 1
        for a in A:
            s *= a.sign
        lead = None
        if all(a.lead is not None for a in A):
            k, p, q = _I1, _I0, _I0
            for a in A:
                k, p, q = k * a.lead.k, p + a.lead.p, q + a.lead.q
            lead = Mono(k, p, q)
        llead = None
        if all(a.llead is not None for a in A):
            llead = sum_leading([a.llead for a in A], exact_const=True)
        if lead is None and llead is None:
            raise Undecided(f"cannot combine the factors of {e}")
        return asym_from(s, lead, llead)

    def _pow(self, e: sympy.Expr) -> Asym:
        b, x = e.args
        if self.eps in x.free_symbols:
            ab = self.an(b)
            if ab.sign != 1:
                raise Undecided(f"power with eps in the exponent and a base not eventually positive: {e}")
            return self.an(sympy.exp(x * sympy.log(b)))
        a = self.an(b)
        if a.sign == 0:
            if sign_of(x) > 0:
                return ZERO
            raise Undecided(f"negative power of an eventually-zero base in {e}")
        if a.sign < 0 and not x.is_Integer:
            raise Undecided(f"non-integer power of a negative base in {e}")
        s = (a.sign if int(x) % 2 else 1) if x.is_Integer else 1
        lead = None if a.lead is None else Mono(a.lead.k ** x, a.lead.p * x, a.lead.q * x)
        llead = None
        if a.llead is not None:
            llead = Mono(a.llead.k * x, a.llead.p, a.llead.q) if a.llead.p != OO else \
                Mono(sympy.Integer(sign_of(x) * sign_of(a.llead.k)), OO, _I0)
        return asym_from(s, lead, llead)

    def _exp(self, e: sympy.Expr) -> Asym:
        g = self.an(e.args[0])
        if g.sign == 0:
            return Asym(1, _mono_const(_I1), _mono_const(_I0), _I1)
        if g.limit not in (OO, -OO):
            return Asym(1, _mono_const(sympy.exp(g.limit)), _mono_const(g.limit), sympy.exp(g.limit))
        if g.lead is not None:
            return asym_from(1, None, g.lead, OO if g.limit == OO else _I0)
        if g.llead is not None and g.llead.p != 0 and sign_of(g.llead.p) > 0 and sign_of(g.llead.k) > 0:
            # log|g| >= c ε^p (p > 0) eventually: |g| grows faster than every power of ε
            return asym_from(1, None, Mono(sympy.Integer(g.sign), OO, _I0), OO if g.limit == OO else _I0)
        raise Undecided(f"unknown growth of the exponent in {e}")

    def _log(self, e: sympy.Expr) -> Asym:
        arg = e.args[0]
        g = self.an(arg)
        if g.sign != 1:
            raise Undecided(f"log of an argument that is not eventually positive: {e}")
        ll = g.llead
        if ll is None:
            raise Undecided(f"unknown growth of the argument of {e}")
        if cmp_order(ll.order, ZERO_ORDER) > 0:
            return asym_from(sign_of(ll.k), ll, None) if ll.p != OO else \
                Asym(sign_of(ll.k), None, None, OO * sign_of(ll.k))
        if ll.k != 0 and sign_of(ll.k) != 0:
            return asym_from(sign_of(ll.k), _mono_const(ll.k), None, ll.k)
        h = self.an(sympy.expand(arg - 1))
        if h.sign == 0:
            return ZERO
        if h.lead is None:
            raise Undecided(f"cannot expand {e} near 1")
        self.note(f"{e} ~ {h.lead.show()}", "log(1 + u) ~ u as u -> 0")
        return asym_from(h.sign, h.lead, None)

    def _erfc(self, e: sympy.Expr) -> Asym:
        x = self.an(e.args[0])
        if x.limit == OO:
            if x.lead is not None:
                ll = Mono(-x.lead.k ** 2, 2 * x.lead.p, 2 * x.lead.q)
                self.note(f"log {e} = -x**2 - log(x) - log(sqrt(pi)) + o(1) with x = {e.args[0]} ~ "
                          f"{x.lead.show()}, so log {e} ~ {ll.show()}",
                          "erfc tail: log erfc(x) = -x^2 - log x - log sqrt(pi) + o(1), x -> +oo "
                          "(Abramowitz-Stegun 7.1.23; Liu et al. 2022 Lemma A.1)")
                return asym_from(1, None, ll, _I0)
            raise Undecided(f"unknown growth of the argument of {e}")
        if x.limit == -OO:
            self.note(f"{e} -> 2", "erfc(x) -> 2 as x -> -oo")
            return Asym(1, _mono_const(sympy.Integer(2)), _mono_const(sympy.log(2)), sympy.Integer(2))
        c = sympy.erfc(x.limit)
        return Asym(1, _mono_const(c), _mono_const(sympy.log(c)), c)

    # -- the δ_μ cancellation rule ----------------------------------------------
    def _erfc_pair(self, e: sympy.Expr, nz: list) -> Asym | None:
        pairs = [t for t, _ in nz if split_erfc_term(t, self.eps) is not None]
        if len(pairs) != 2:
            return None
        data = erfc_pair_data(pairs[0], pairs[1], self.eps)
        if data is None:
            return None
        c1, F1, x1, c2, F2, x2, d, D, kappa = data
        if self.an(x1).limit != OO or self.an(x2).limit != OO:
            return None
        t1, t2 = pairs if sign_of(split_erfc_term(pairs[0], self.eps)[0]) > 0 else pairs[::-1]
        rest = [(t, a) for t, a in nz if t is not t1 and t is not t2]
        x1_lead = self.an(x1).lead
        if x1_lead is None:
            return None
        if sign_of(kappa + 1) == 0:
            if sign_of(d) <= 0:
                return None
            core = sympy.Mul(*F1) * sympy.exp(-sympy.expand(x1 ** 2)) * x1 ** -2
            res = self.an(core)
            self.note(
                f"{t1} + ({t2}) = {c1}*F*exp(-x1**2)*(erfcx(x1) - erfcx(x2)) with x1 = {x1}, "
                f"x2 - x1 = {d} > 0, F = {sympy.Mul(*F1)}; erfcx(x1) - erfcx(x2) = (x2 - x1)|erfcx'(xi)| "
                f"and erfcx'(xi) = -1/(sqrt(pi) xi**2)(1 + O(xi**-2)), so log of the sum = "
                f"log F - x1**2 - 2 log x1 + O(1) ~ {res.llead.show() if res.llead else '?'}",
                "erfc-pair identity (delta_mu = phi(a)(R(-a) - R(-b)), R(x) = 1/x - 1/x^3 + O(x^-5); "
                "Liu et al. 2022 Lemma A.1)")
            pair = asym_from(1, None, res.llead, _I0)
        else:
            s = sign_of(c1 * (1 + kappa))
            core = sympy.Mul(*F1) * sympy.exp(-sympy.expand(x1 ** 2)) / x1
            res = self.an(core)
            self.note(f"{t1} + ({t2}) = {c1}*F*exp(-x1**2)*erfcx(x1)*(1 + ({kappa}) (1 + o(1))), "
                      f"1 + kappa != 0: no cancellation", "erfc-pair ratio (erfcx(x2)/erfcx(x1) -> 1)")
            pair = asym_from(s, None, res.llead, _I0)
        for _, b in rest:
            if not dominates(pair, b):
                return None
        return pair

    # -- branches -----------------------------------------------------------
    def _eventual_sign(self, d: sympy.Expr) -> int:
        return self.an(d).sign

    def _maxmin(self, e: sympy.Expr) -> Asym:
        try:
            return self._maxmin_branch(e)
        except Undecided as err:
            r = self._maxmin_logscale(e)
            if r is None:
                raise err
            return r

    def _maxmin_logscale(self, e: sympy.Expr) -> Asym | None:
        """For positive branches, log Max(a, b) = max(log a, log b) exactly (and
        min for Min): if one branch's log dominates, its leading log term is
        the answer -- no branch threshold is needed for the limit."""
        is_max = e.func is sympy.Max
        A = [(a, self.an(a)) for a in e.args]
        if any(x.sign != 1 or x.llead is None for _, x in A):
            return None
        for a, x in A:
            if all(o is a or (dominates(x, y) if is_max else dominates(y, x)) for o, y in A):
                name = "Max" if is_max else "Min"
                self.note(f"log {e} = {'max' if is_max else 'min'} of the logs of its (positive) branches, and "
                          f"log({a}) ~ {x.llead.show()} {'dominates' if is_max else 'is dominated by'} the others; "
                          f"so log {e} ~ {x.llead.show()} (no branch threshold was certified; none is needed "
                          f"for the limit)", f"log {name}(a, b) = {'max' if is_max else 'min'}(log a, log b)")
                return Asym(1, x.lead, x.llead, x.limit)
        ll = A[0][1].llead
        if cmp_order(ll.order, ZERO_ORDER) > 0 and all(
                cmp_order(y.llead.order, ll.order) == 0 and sign_of(y.llead.k - ll.k) == 0 for _, y in A):
            self.note(f"log {e} lies between the logs of its (positive) branches, which all are "
                      f"~ {ll.show()}; so log {e} ~ {ll.show()}",
                      "log Max/Min(a, b) is between log a and log b")
            return asym_from(1, None, ll)
        return None

    def _maxmin_branch(self, e: sympy.Expr) -> Asym:
        is_max = e.func is sympy.Max
        args = list(e.args)
        best = args[0]
        for other in args[1:]:
            s = self._eventual_sign(other - best)
            if (s > 0) if is_max else (s < 0):
                best = other
        name = "Max" if is_max else "Min"
        for other in args:
            if other is best:
                continue
            d = best - other if is_max else other - best
            s = self._eventual_sign(d)
            if s < 0:
                raise Undecided(f"no eventually-{'largest' if is_max else 'smallest'} branch in {e}")
            if s == 0 and self.an(d).sign == 0:
                pass
            hints = tuple(t.point for t in self.thresholds if t.point is not None)
            th = certify(d, self.eps, 1, self.limit_of, hints, self._eventual_sign)
            self.thresholds.append(th)
            where = f"for eps >= {th.point}" if th.point is not None else "for all large eps"
            self.note(f"{where}, {name}({', '.join(map(str, args))}) is attained by {best}: {th.argument}",
                      f"eventual branch of {name} (certified threshold)")
        res = self.an(best)
        return res

    def _cond_eventually(self, c) -> bool:
        if c is sympy.true or c == True:  # noqa: E712
            return True
        if c is sympy.false or c == False:  # noqa: E712
            return False
        if isinstance(c, sympy.And):
            return all(self._cond_eventually(a) for a in c.args)
        if isinstance(c, sympy.Or):
            return any(self._cond_eventually(a) for a in c.args)
        if isinstance(c, sympy.Not):
            return not self._cond_eventually(c.args[0])
        if isinstance(c, sympy.core.relational.Relational):
            if isinstance(c, (sympy.Eq, sympy.Ne)):
                raise Undecided(f"equality condition in Piecewise: {c}")
            d = c.gts - c.lts  # the condition says d > 0 (strict) or d >= 0
            s = self._eventual_sign(d)
            strict = isinstance(c, (sympy.StrictGreaterThan, sympy.StrictLessThan))
            if s == 0:
                return not strict
            ok = s > 0
            th = certify(d, self.eps, s, self.limit_of, (), self._eventual_sign)
            # certify gives s·d >= 0 from the point on; the condition's eventual value needs s·d > 0
            # when (true and strict) or (false and non-strict): then the point itself is excluded
            if th.point is not None and ok == strict:
                th = Threshold(th.point, th.argument, th.crossing, strict=True)
            self.thresholds.append(th)
            where = f"for eps > {th.point}" if th.point is not None else "for all large eps"
            self.note(f"{where}, the condition {c} is {ok}: {th.argument}", "eventual truth of a condition")
            return ok
        raise Undecided(f"unsupported Piecewise condition {c}")

    def _piecewise(self, e: sympy.Expr) -> Asym:
        for expr, cond in e.args:
            if self._cond_eventually(cond):
                self.note(f"for all large eps, {e} = {expr}", "eventual Piecewise branch")
                return self.an(expr)
        raise Undecided(f"no Piecewise branch holds for large eps in {e}")


__all__ = ["Engine", "Undecided"]

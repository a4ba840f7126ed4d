"""The monotonicity of a σ-formula as a Coq proof: the sign calculus's derivation, node by node.

:mod:`certdp.verifier.formula_monotone` proves f(ε, δ) non-increasing in ε and in δ on
ε > 0, 0 < δ < 1 by giving every node of the formula's tree a range and a direction in each
variable.  This module replays that derivation in Coq with the lemmas of proofs/coq/Mono.v,
one per rule: for each node a definition ``mn_i`` (its term, built from its children's) and a
lemma ``Mn_i : mnode mn_i R se sd`` (R the node's range, se / sd its directions) from its
children's lemmas; the side conditions (range arithmetic, signs, 1/u, ranges through ln, exp,
sqrt and powers with their rounded ends) are closed by nra and Interval.  The root gives
``f_mono : nonincr2 f`` (``mono_nonincr2``), so ``certdp_claim`` needs no premise.

The calculus's rules this replay does not mirror (a non-integer power, which the printer refuses
anyway) give None: the script keeps ``nonincr2 f`` as a premise.  Nothing here
is trusted: a wrong range or direction only makes coqc fail.
"""

from __future__ import annotations

from fractions import Fraction

from certdp.verifier import formula as fm
from certdp.verifier.coq.terms import q
from certdp.verifier.formula_monotone import Info, Rng, node_info, reciprocal

Op, Node = fm.Op, fm.Node
_DIR = {0: "Cst", 1: "Inc", -1: "Dec", None: "Unk"}
_NUM = "interval with (i_prec 120)"


class _NoRule(Exception):
    pass


def _rng(r: Rng) -> str:
    lo = "True" if r.lo is None else f"{q(r.lo)} {'<' if r.lo_open else '<='} v"
    hi = "True" if r.hi is None else f"v {'<' if r.hi_open else '<='} {q(r.hi)}"
    return f"(fun v => {lo} /\\ {hi})"


def _sign(i: Info) -> str:
    s = i.rng.sign()
    if s is None:
        raise _NoRule
    return "true" if s > 0 else "false"


def _through(fn: str, s: str, incr: str, a: Fraction, bound: Fraction, low: bool) -> str:
    """l <= fn(u) from a <= u (low) or fn(u) <= l from u <= a, with l vs fn(a) by Interval."""
    lemma = "lo_through" if low else "hi_through"
    return f"apply ({lemma} {s} {fn} {q(a)} {q(bound)} u {incr}); [cbv beta; lra | cbv beta; lra | lra | {_NUM}]"


class _Proof:
    def __init__(self) -> None:
        self.lines: list[str] = []
        self.n = 0

    def node(self, body: str, info: Info, tactic: str) -> str:
        i, self.n = self.n, self.n + 1
        self.lines.append(f"Definition mn_{i} (eps delta : R) : R := {body}.\n"
                          f"Lemma Mn_{i} : mnode mn_{i} {_rng(info.rng)} {_DIR[info.d_eps]} {_DIR[info.d_delta]}.\n"
                          f"Proof. {tactic}. Qed.")
        return f"mn_{i}"

    def emit(self, n: Node) -> tuple[str, Info]:
        info = node_info(n)
        if info is None:
            raise _NoRule
        R = _rng(info.rng)
        op = n.op
        if op is Op.NUM:
            assert n.q is not None
            return self.node(q(n.q), info, f"apply (m_const {q(n.q)} {R}); mono_rng"), info
        if op in (Op.PI, Op.E):
            c = "PI" if op is Op.PI else "(exp 1)"
            return self.node(c, info, f"apply (m_const {c} {R}); cbv beta; split; {_NUM}"), info
        if op is Op.VAR:
            lemma = "m_eps" if n.name == "eps" else "m_delta"
            return self.node(n.name or "", info, f"apply ({lemma} {R}); mono_rng"), info
        a, ia = self.emit(n.kids[0])
        A = f"{a} {_rng(ia.rng)} {_DIR[ia.d_eps]} {_DIR[ia.d_delta]}"
        M = "M" + a[1:]
        if op is Op.NEG:
            return self.node(f"- {a} eps delta", info, f"apply (m_neg {A} {R} {M}); mono_rng"), info
        if op in (Op.ADD, Op.SUB, Op.MUL):
            b, ib = self.emit(n.kids[1])
            B = f"{b} {_rng(ib.rng)} {_DIR[ib.d_eps]} {_DIR[ib.d_delta]}"
            MB = "M" + b[1:]
            if op is Op.MUL:
                tac = (f"apply (m_mul {A} {B} {R} {_sign(ia)} {_sign(ib)} {M} {MB}); "
                       "mono_rng")
                return self.node(f"{a} eps delta * {b} eps delta", info, tac), info
            lemma, sym = ("m_add", "+") if op is Op.ADD else ("m_sub", "-")
            return self.node(f"{a} eps delta {sym} {b} eps delta", info,
                             f"apply ({lemma} {A} {B} {R} {M} {MB}); mono_rng"), info
        if op is Op.DIV:
            b, ib = self.emit(n.kids[1])
            inv, iinv = self._inv(b, ib)
            B = f"{b} {_rng(iinv.rng)} {_DIR[iinv.d_eps]} {_DIR[iinv.d_delta]}"
            tac = (f"apply (m_div {A} {B} {R} {_sign(ia)} {_sign(iinv)} {M} M{inv[1:]}); "
                   "mono_rng")
            return self.node(f"{a} eps delta / {b} eps delta", info, tac), info
        if op is Op.POW:
            assert n.q is not None
            k = n.q
            if k.denominator != 1:
                raise _NoRule
            if k == 0:
                return self.node(f"{a} eps delta ^ 0", info, f"apply (m_pow0 {a} {R}); mono_rng"), info
            p, ip = self._pow(a, ia, abs(k.numerator)) if k < 0 else (None, None)
            if p is not None and ip is not None:
                inv, _ = self._inv(p, ip)
                return inv, info
            return self._pow(a, ia, k.numerator)[0], info
        return self._unary(n, a, ia, info), info

    def _inv(self, b: str, ib: Info) -> tuple[str, Info]:
        """The node 1/b (the divisor of a quotient, or a negative power)."""
        iinv = reciprocal(ib)
        if iinv is None:
            raise _NoRule
        pos = ib.rng.pos()
        S, dec = ("(fun u => 0 < u)", "inv_decr_pos") if pos else ("(fun u => u < 0)", "inv_decr_neg")
        B = f"{b} {_rng(ib.rng)} {_DIR[ib.d_eps]} {_DIR[ib.d_delta]}"
        tac = f"apply (m_inv {B} {S} {_rng(iinv.rng)} M{b[1:]} {dec}); [mono_rng | mono_inv]"
        return self.node(f"/ {b} eps delta", iinv, tac), iinv

    def _pow(self, a: str, ia: Info, k: int) -> tuple[str, Info]:
        """a^k, k > 0: increasing on u >= 0 (and on the line for odd k), decreasing on u <= 0 for even k."""
        r, A = ia.rng, f"{a} {_rng(ia.rng)} {_DIR[ia.d_eps]} {_DIR[ia.d_delta]}"
        if r.sign() == 1 or k % 2 == 1:
            if r.sign() == 1:
                S, incr = "(fun u => 0 <= u)", f"(pow_incr_on {k})"
                step, lt = "apply pow_incr; lra", "apply pow_lt_s; [auto with arith | lra]"
            else:
                S, incr = "(fun _ => True)", f"(pow_odd_incr {k} eq_refl)"
                step = f"apply (pow_odd_incr {k} eq_refl); [exact I | exact I | lra]"
                lt = "apply pow_odd_lt; [reflexivity | lra]"
            info = Info(Rng(None if r.lo is None else r.lo ** k, None if r.hi is None else r.hi ** k,
                            r.lo_open, r.hi_open), ia.d_eps, ia.d_delta)
            lo, hi = self._pow_ends(k, r.lo, r.lo_open, r.hi, r.hi_open, step, lt, "")
            side = "mono_rng" if r.sign() == 1 else "intros; exact I"
            tac = (f"apply (m_comp_incr {A} {S} (fun u => u ^ {k}) {_rng(info.rng)} M{a[1:]} {incr}); [{side} | "
                   f"intros u Hu; cbv beta in *; destruct Hu as [Hl Hh]; split; [{lo} | {hi}]]")
            return self.node(f"{a} eps delta ^ {k}", info, tac), info
        if r.sign() != -1 or r.hi is None:
            raise _NoRule
        # even k, a <= 0: a^k = (-a)^k, decreasing in a
        neg = r.negate()
        assert neg.lo is not None
        info = Info(Rng(neg.lo ** k, None if neg.hi is None else neg.hi ** k, neg.lo_open, neg.hi_open),
                    None if ia.d_eps is None else -ia.d_eps, None if ia.d_delta is None else -ia.d_delta)
        lo, hi = self._pow_ends(k, neg.lo, neg.lo_open, neg.hi, neg.hi_open, "apply pow_incr; lra",
                                "apply pow_lt_s; [auto with arith | lra]", f"rewrite <- (pow_opp_even {k} u eq_refl); ")
        tac = (f"apply (m_comp_decr {A} (fun u => u <= 0) (fun u => u ^ {k}) {_rng(info.rng)} M{a[1:]} "
               f"(pow_even_decr {k} eq_refl)); [mono_rng | intros u Hu; cbv beta in *; destruct Hu as [Hl Hh]; "
               f"split; [{lo} | {hi}]]")
        return self.node(f"{a} eps delta ^ {k}", info, tac), info

    @staticmethod
    def _pow_ends(k: int, lo: Fraction | None, lo_open: bool, hi: Fraction | None, hi_open: bool, step: str,
                  lt: str, pre: str) -> tuple[str, str]:
        """Tactics for lo^k <= u^k and u^k <= hi^k (strict where open); ``pre`` rewrites u^k first."""
        if lo is None:
            low = "exact I"
        elif lo_open:
            low = f"{pre}apply (Rle_lt_trans _ ({q(lo)} ^ {k})); [cbn [pow]; lra | {lt}]"
        else:
            low = f"{pre}apply (Rle_trans _ ({q(lo)} ^ {k})); [cbn [pow]; lra | {step}]"
        if hi is None:
            high = "exact I"
        elif hi_open:
            high = f"{pre}apply (Rlt_le_trans _ ({q(hi)} ^ {k})); [{lt} | cbn [pow]; lra]"
        else:
            high = f"{pre}apply (Rle_trans _ ({q(hi)} ^ {k})); [{step} | cbn [pow]; lra]"
        return low, high

    def _unary(self, n: Node, a: str, ia: Info, info: Info) -> str:
        r, out = ia.rng, info.rng
        A = f"{a} {_rng(ia.rng)} {_DIR[ia.d_eps]} {_DIR[ia.d_delta]}"
        if n.op is Op.LOG:
            fn, S, incr, side = "ln", "(fun u => 0 < u)", "ln_incr", "mono_rng"
            if out.lo is None:
                lo = "exact I"
            elif r.lo == 1:
                lo = "apply ln_pos_s; lra" if out.lo_open else "apply ln_pos_w; lra"
            else:
                assert r.lo is not None
                lo = _through(fn, S, incr, r.lo, out.lo, True)
            if out.hi is None:
                hi = "exact I"
            elif r.hi == 1:
                hi = "apply ln_neg_s; lra" if out.hi_open else "apply ln_neg_w; lra"
            else:
                assert r.hi is not None
                hi = _through(fn, S, incr, r.hi, out.hi, False)
        elif n.op is Op.EXP:
            fn, S, incr, side = "exp", "(fun _ => True)", "exp_incr", "intros; exact I"
            assert out.lo is not None
            lo = "apply exp_pos" if out.lo_open else _through(fn, S, incr, r.lo, out.lo, True)  # type: ignore[arg-type]
            hi = "exact I" if out.hi is None else _through(fn, S, incr, r.hi, out.hi, False)  # type: ignore[arg-type]
            lo, hi = lo.replace("[cbv beta; lra | cbv beta; lra |", "[exact I | exact I |"), \
                hi.replace("[cbv beta; lra | cbv beta; lra |", "[exact I | exact I |")
        else:
            assert n.op is Op.SQRT
            fn, S, incr, side = "sqrt", "(fun u => 0 <= u)", "sqrt_incr", "mono_rng"
            assert out.lo is not None
            if out.lo == 0 and (r.lo is None or r.lo == 0):
                lo = "apply sqrt_pos_s; lra" if out.lo_open else "apply sqrt_pos"
            else:
                assert r.lo is not None
                lo = _through(fn, S, incr, r.lo, out.lo, True)
            if out.hi is None:
                hi = "exact I"
            elif r.hi == 0:
                hi = "rewrite <- sqrt_0; apply sqrt_le_1_alt; lra"
            else:
                assert r.hi is not None
                hi = _through(fn, S, incr, r.hi, out.hi, False)
        tac = (f"apply (m_comp_incr {A} {S} {fn} {_rng(out)} M{a[1:]} {incr}); [{side} | intros u Hu; "
               f"cbv beta in *; destruct Hu as [Hl Hh]; split; [{lo} | {hi}]]")
        return self.node(f"{fn} ({a} eps delta)", info, tac)


def proof(f: Node) -> str | None:
    """Coq sentences ending in ``Lemma f_mono : nonincr2 f`` (``f`` defined by the script), or
    None where the calculus does not prove f non-increasing or uses a rule Mono.v does not mirror."""
    p = _Proof()
    try:
        root, info = p.emit(f)
    except _NoRule:
        return None
    if info.d_eps not in (0, -1) or info.d_delta not in (0, -1):
        return None
    p.lines.append(f"Lemma f_mono : nonincr2 f.\n"
                   f"Proof. exact (mono_nonincr2 f {_rng(info.rng)} {_DIR[info.d_eps]} {_DIR[info.d_delta]} "
                   f"M{root[1:]} I I). Qed.")
    return "\n".join(p.lines)

"""The noise refinement of a σ-formula (Liu et al. 2022 App. C, §5.2) as a Coq theorem.

The certificate (``value`` ``refined_sigma`` / ``refined_eps0`` / ``refined_delta0``, evidence
``{"bracket": [r0, r1]}``) claims where F(x) = f(x, δ0(x)) attains its minimum on the domain
{x ≥ ε, δ0(x) > 0}, δ0(x) = (δ + e^ε − (1 − δ)eˣ)/(1 + e^ε).  The formula and the target are
read by the checker's own grammar (:mod:`certdp.verifier.formula`) and printed as Coq terms
(exact rationals, ``ln``, ``exp``, ``sqrt``, ``PI``, ``exp 1``, natural powers ``^``; a
non-integer power is refused).  F' is the term of the forward-mode rules
(:func:`derivative`), and Coquelicot's ``auto_derive`` proves that it *is* F' on each run of
cells (``field`` closes the identity, ``interval`` the side conditions).  The script proves,
from proofs/coq/Refine.v:

* each cell [a, b] of [a0, r0] (a0 ≤ ε): F' < 0 (``rleft_S``) or F > Fs ≥ F(r0) (``rleft_B``);
* each cell of [r1, X] (δ0(X) ≤ 0): F' > 0 (``rright_S``) or F > Fs ≥ min(F(r0), F(r1))
  (``rright_B``), by ``interval`` or, near x_max where F cannot be enclosed, by f(X, δ0(a)) > Fs
  (``refine_mono_cell``), which needs f non-increasing in ε and in δ (``nonincr2 f``): the script
  proves it from the sign calculus's derivation (:mod:`certdp.verifier.coq.mono`, proofs/coq/Mono.v);
  it is a premise of ``certdp_claim`` only when the certificate states it in ``claim.assumptions``
  (or, defensively, were the derivation to use a rule Mono.v does not mirror);
* ``refine_bracket``: every minimiser lies in [r0, r1]; the quantity over [r0, r1] by ``interval``.

The cells are chosen here with balls (a guide, never an answer: a wrong cell only makes coqc fail).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Mapping

from flint import arb

from certdp.verifier import formula as fm
from certdp.verifier.ball import dyadic_to_fraction, lower_bound, to_ball, upper_bound, working_precision
from certdp.verifier.coq.mono import proof as mono_derivation
from certdp.verifier.coq.terms import ClaimRefused, Unsupported, q

Op, Node = fm.Op, fm.Node
#: Most cells the Coq script writes on either side of the bracket.
MAX_CELLS = 600
#: Narrowest cell the guide splits (relative).
MIN_WIDTH = Fraction(1, 2 ** 100)


def coq(n: Node, names: Mapping[str, str]) -> str:
    """The Coq term of a formula tree (variables renamed by ``names``)."""
    op, k = n.op, n.kids
    if op is Op.NUM:
        assert n.q is not None
        return q(n.q)
    if op is Op.VAR:
        assert n.name is not None
        return names[n.name]
    if op is Op.PI:
        return "PI"
    if op is Op.E:
        return "(exp 1)"
    if op is Op.NEG:
        return f"(- {coq(k[0], names)})"
    if op in (Op.ADD, Op.SUB, Op.MUL, Op.DIV):
        sym = {Op.ADD: "+", Op.SUB: "-", Op.MUL: "*", Op.DIV: "/"}[op]
        return f"({coq(k[0], names)} {sym} {coq(k[1], names)})"
    if op in (Op.LOG, Op.EXP, Op.SQRT):
        fn = {Op.LOG: "ln", Op.EXP: "exp", Op.SQRT: "sqrt"}[op]
        return f"({fn} {coq(k[0], names)})"
    assert op is Op.POW and n.q is not None
    if n.q.denominator != 1:
        raise Unsupported(f"the Coq kernel writes integer powers only (exponent {n.q})")
    e = n.q.numerator
    return f"({coq(k[0], names)} ^ {e})" if e >= 0 else f"(/ ({coq(k[0], names)} ^ {-e}))"


def _zero(n: Node) -> bool:
    return n.op is Op.NUM and n.q == 0


def _one(n: Node) -> bool:
    return n.op is Op.NUM and n.q == 1


def _add(a: Node, b: Node) -> Node:
    return b if _zero(a) else a if _zero(b) else fm.call(Op.ADD, a, b)


def _sub(a: Node, b: Node) -> Node:
    return a if _zero(b) else fm.call(Op.NEG, b) if _zero(a) else fm.call(Op.SUB, a, b)


def _mul(a: Node, b: Node) -> Node:
    if _zero(a) or _zero(b):
        return fm.num(0)
    return b if _one(a) else a if _one(b) else fm.call(Op.MUL, a, b)


def _div(a: Node, b: Node) -> Node:
    return fm.num(0) if _zero(a) else a if _one(b) else fm.call(Op.DIV, a, b)


def _pow(a: Node, e: Fraction) -> Node:
    return fm.num(1) if e == 0 else a if e == 1 else Node(Op.POW, (a,), q=e)


def derivative(n: Node, var: str = "eps") -> Node:
    """d n / d var by the forward-mode rules of :func:`certdp.verifier.formula._eval`, as a tree."""
    op, k = n.op, n.kids
    if op in (Op.NUM, Op.PI, Op.E):
        return fm.num(0)
    if op is Op.VAR:
        return fm.num(1 if n.name == var else 0)
    du = derivative(k[0], var)
    if op is Op.NEG:
        return fm.num(0) if _zero(du) else fm.call(Op.NEG, du)
    if op in (Op.ADD, Op.SUB, Op.MUL, Op.DIV):
        u, v = k
        dv = derivative(v, var)
        if op is Op.ADD:
            return _add(du, dv)
        if op is Op.SUB:
            return _sub(du, dv)
        if op is Op.MUL:
            return _add(_mul(du, v), _mul(u, dv))
        return _div(_sub(_mul(du, v), _mul(u, dv)), _pow(v, Fraction(2)))
    if op is Op.LOG:
        return _div(du, k[0])
    if op is Op.EXP:
        return _mul(n, du)
    if op is Op.SQRT:
        return _div(du, _mul(fm.num(2), n))
    assert op is Op.POW and n.q is not None
    return _mul(_mul(fm.num(n.q), _pow(k[0], n.q - 1)), du)


def _cells(fns: Any, a: Fraction, b: Fraction, fs: Fraction, sign: int, xmax_up: arb | None,
           mono: Any) -> list[tuple[str, Fraction, Fraction]]:
    """A partition of [a, b] into ("S", a, b) (sign·F' > 0 on the cell), ("B", a, b) (F > fs by
    enclosure) or ("M", a, b) (f(X, δ0(a)) > fs, the monotone bound); Unsupported past MAX_CELLS."""
    out: list[tuple[str, Fraction, Fraction]] = []
    stack, fs_b = [(a, b)], to_ball(fs)
    while stack:
        lo, hi = stack.pop()
        if len(out) + len(stack) > MAX_CELLS:
            raise Unsupported(f"the noise-refinement proof needs more than {MAX_CELLS} cells on one side")
        cell = to_ball(lo).union(to_ball(hi))
        kind = None
        g = fns.dbig_f(cell)
        if g.is_finite() and (g < 0 if sign < 0 else g > 0):
            kind = "S"
        else:
            v = fns.big_f(cell)
            if v.is_finite() and v > fs_b:
                kind = "B"
            elif xmax_up is not None and mono is not None and lo > 0:
                w = mono(to_ball(lo))
                if w.is_finite() and w > fs_b:
                    kind = "M"
        if kind is None and hi - lo <= MIN_WIDTH * max(1, abs(hi)):
            out.append(("S", lo, hi))  # written out: coqc rejects the first false cell (INVALID)
            out.extend(("S", a1, b1) for a1, b1 in reversed(stack))
            return out
        if kind is not None:
            out.append((kind, lo, hi))
            continue
        m = (lo + hi) / 2
        stack.append((m, hi))
        stack.append((lo, m))
    return out


def _above(x: arb) -> Fraction:
    """A dyadic rational above the ball x, 2^-60 relative above its upper end."""
    up = dyadic_to_fraction(x.upper())
    step = Fraction(1, 2 ** 80)
    return -((-(up + abs(up) / 2 ** 60)) // step) * step


def _runs(cells: list[tuple[str, Fraction, Fraction]]) -> list[tuple[Fraction, Fraction]]:
    """Maximal runs of consecutive S-cells (one derivative lemma each)."""
    runs: list[list[Fraction]] = []
    for kind, a, b in sorted(cells, key=lambda c: c[1]):
        if kind != "S":
            continue
        if runs and runs[-1][1] == a:
            runs[-1][1] = b
        else:
            runs.append([a, b])
    return [(a, b) for a, b in runs]


def translate_refined(s: Any, doc: Mapping[str, Any], qty: str, lo: Fraction, hi: Fraction,
                      verdict: tuple[str, Fraction, Fraction] | None) -> None:
    """Add the noise-refinement proof and ``certdp_claim`` to the script ``s``."""
    from certdp.verifier.check_optimum import assumption_step, grammar_functions, setup  # noqa: PLC0415
    from certdp.verifier.switch import bracket_of  # noqa: PLC0415

    r, needed = setup(doc)
    if r is None:
        raise Unsupported("the formula is outside the checker's own grammar (if, Piecewise, Max, erf, ...): "
                          "the Coq kernel prints formulas of that grammar only")
    step = assumption_step(needed, doc)
    if step is not None:
        raise ClaimRefused(step)
    r0, r1, _ = bracket_of(doc["evidence"], "evidence", tail=False)
    names = {"eps": "x"}
    f_term = coq(r.f, {"eps": "eps", "delta": "delta"})
    E, D = coq(r.eps, {}), coq(r.delta, {})
    big = r.big_f()
    F_term, dF_term = coq(big, names), coq(derivative(big), names)
    fns = grammar_functions(r)
    with working_precision(max(s.prec, 128) + 64):
        eb, db = fns.eps(), fns.delta()
        if not (eb.is_finite() and db.is_finite() and eb > 0 and db > 0 and db < 1):
            raise Unsupported("the Coq kernel needs the target proved eps > 0 and 0 < delta < 1")
        xmax = ((db + eb.exp()) / (1 - db)).log()
        if not (to_ball(r0) >= eb and to_ball(r1) < xmax):
            raise Unsupported("the Coq kernel needs eps <= r0 and r1 < x_max (a bracket inside the domain)")
        X = _above(xmax)
        low = dyadic_to_fraction(lower_bound(eb))  # a0 <= eps, 2^-40 below (interval proves it at any bits)
        a0 = Fraction(math.floor(low * 2 ** 40) - 1, 2 ** 40)
        f_r0, f_r1 = fns.big_f(to_ball(r0)), fns.big_f(to_ball(r1))
        if not (f_r0.is_finite() and f_r1.is_finite()):
            raise Unsupported("F cannot be enclosed at the bracket's ends")
        fs_left = _above(f_r0)  # F > Fs >= F(r0) >= min(F(r0), F(r1)) on the right cells too
        xb = to_ball(X)

        def mono(a: arb) -> arb:
            return fns.f2(xb, fns.d0b(a))

        left = _cells(fns, a0, r0, fs_left, -1, None, None) if a0 < r0 else []
        right = _cells(fns, r1, X, fs_left, +1, xb, mono) if r1 < X else []
    uses_mono = any(kind == "M" for kind, _, _ in right)
    # nonincr2 f: proved in Coq from the sign calculus's derivation (proofs/coq/Mono.v), else a premise
    # (the certificate states it in claim.assumptions, or the calculus used a rule Mono.v does not mirror)
    mono_proof = mono_derivation(r.f) if uses_mono and not needed else None
    premise = uses_mono and mono_proof is None
    hyp = "(Hf : nonincr2 f) " if premise else ""
    hf_term = "Hf" if premise else "f_mono"
    P = s.prec + 30
    num = f"interval with (i_prec {P})"
    bis = f"interval with (i_bisect y, i_depth 10, i_prec {P})"
    R0, R1, XX, A0 = q(r0), q(r1), q(X), q(a0)
    s.add(f"Definition e : R := {E}.\nDefinition d : R := {D}.\n"
          f"Definition f (eps delta : R) : R := {f_term}.\n"
          f"Definition d0 (x : R) : R := refine_d0 e d x.\n"
          f"Definition F (x : R) : R := {F_term}.\n"
          f"Definition dF (x : R) : R := {dF_term}.\n"
          f"Lemma F_is : forall x, F x = f x (d0 x). Proof. intro x. reflexivity. Qed.\n"
          f"Lemma d_lt1 : d < 1. Proof. unfold d; {num}. Qed.\n"
          f"Lemma a0_e : {A0} <= e. Proof. unfold e; {num}. Qed.\n"
          f"Lemma e_r0 : e <= {R0}. Proof. unfold e; {num}. Qed.\n"
          f"Lemma P_r0 : 0 < d0 {R0}. Proof. unfold d0, refine_d0, e, d; {num}. Qed.\n"
          f"Lemma P_r1 : 0 < d0 {R1}. Proof. unfold d0, refine_d0, e, d; {num}. Qed.\n"
          f"Lemma P_X : d0 {XX} <= 0. Proof. unfold d0, refine_d0, e, d; {num}. Qed.",
          "the formula, the target, and the domain's ends (eps <= r0, delta0(r0), delta0(r1) > 0 >= delta0(X))")
    if mono_proof is not None:
        s.add(mono_proof, "f is non-increasing in eps and in delta (the sign calculus's derivation, node by node: "
                          "proofs/coq/Mono.v)")
    side = f"repeat split; {bis}"
    runs = _runs(left + right + [("S", r0, r1)])  # F' on the bracket too: F is continuous there
    for i, (a, b) in enumerate(runs):
        s.add(f"Lemma deriv_{i} : forall y, {q(a)} <= y <= {q(b)} -> is_derive F y (dF y).\n"
              f"Proof. intros y Hy. unfold F, dF, Rminus, Rdiv. auto_derive; first [field; {side} | {side}]. Qed.",
              f"F' is the derivative of F on [{a}, {b}]")

    def deriv(a: Fraction, b: Fraction) -> str:
        i = next(j for j, (u, v) in enumerate(runs) if u <= a and b <= v)
        return f"(fun y Hy => deriv_{i} y ltac:(lra))"

    s.add(f"Definition Fs : R := {q(fs_left)}.\nLemma Fs_r0 : F {R0} <= Fs. Proof. unfold F, Fs; {num}. Qed.\n"
          f"Lemma left_{len(left)} : rleft_ok F {R0} {R0}. Proof. apply rleft_base. Qed.",
          "F(r0) <= Fs (the reference value)")
    for i in range(len(left) - 1, -1, -1):
        kind, a, b = left[i]
        A, B = q(a), q(b)
        if kind == "S":
            s.add(f"Lemma left_{i} : rleft_ok F {A} {R0}.\nProof.\n  apply (rleft_S F dF {A} {B} {R0} ltac:(lra) "
                  f"ltac:(lra) {deriv(a, b)}); [intros y Hy; unfold dF; {bis} | exact left_{i + 1}].\nQed.",
                  f"left cell {i} [{a}, {b}]: F' < 0")
        else:
            s.add(f"Lemma left_{i} : rleft_ok F {A} {R0}.\nProof.\n  apply (rleft_B F {A} {B} {R0} Fs Fs_r0); "
                  f"[intros y Hy; unfold F, Fs; {bis} | exact left_{i + 1}].\nQed.",
                  f"left cell {i} [{a}, {b}]: F > F(r0)")
    s.add(f"Definition m : R := Rmin (F {R0}) (F {R1}).\nDefinition Fm : R := Fs.\n"
          f"Lemma m_Fm : m <= Fm. Proof. unfold m, Fm. pose proof Fs_r0. pose proof (Rmin_l (F {R0}) (F {R1})). lra. Qed.\n"
          f"Lemma m_r1 : m <= F {R1}. Proof. unfold m. apply Rmin_r. Qed.\n"
          f"Lemma down : forall u v, u <= v -> 0 < d0 v -> 0 < d0 u.\n"
          f"Proof. intros u v H Pv. pose proof (refine_d0_decr e d u v d_lt1 H). unfold d0 in *. lra. Qed.\n"
          f"Lemma right_0 {hyp}: rright_ok F (fun x => 0 < d0 x) {R1} {R1} m. Proof. apply rright_base. Qed.",
          "min(F(r0), F(r1)) <= Fs")
    for i, (kind, a, b) in enumerate(right):
        A, B = q(a), q(b)
        head = f"Lemma right_{i + 1} {hyp}: rright_ok F (fun x => 0 < d0 x) {R1} {B} m.\nProof.\n"
        prev = f"(right_{i} Hf)" if premise else f"right_{i}"
        if kind == "S":
            body = (f"  apply (rright_S F dF (fun x => 0 < d0 x) {R1} {A} {B} m ltac:(lra) ltac:(lra) down m_r1 "
                    f"{deriv(a, b)}); [intros y Hy; unfold dF; {bis} | exact {prev}].\nQed.")
            what = "F' > 0"
        elif kind == "B":
            body = (f"  apply (rright_B F (fun x => 0 < d0 x) {R1} {A} {B} m Fm m_Fm); "
                    f"[intros y Hy _; unfold F, Fm, Fs; {bis} | exact {prev}].\nQed.")
            what = "F > min(F(r0), F(r1))"
        else:
            body = (f"  apply (rright_B F (fun x => 0 < d0 x) {R1} {A} {B} m Fm m_Fm); [|exact {prev}].\n"
                    f"  intros y Hy Py. rewrite F_is. apply (refine_mono_cell f e d {XX} {A} {B} Fm {hf_term} d_lt1 "
                    f"ltac:(lra)); [unfold refine_d0, e, d; {num} | exact P_X | unfold f, refine_d0, e, d, Fm, Fs; "
                    f"{num} | exact Hy | exact Py].\nQed.")
            what = "f(X, delta0(a)) > min(F(r0), F(r1)) (f non-increasing in eps and delta)"
        s.add(head + body, f"right cell {i} [{a}, {b}]: {what}")
    n = len(right)
    prem = "nonincr2 f -> " if premise else ""
    intro = "intros Hf. " if premise else ""
    rt = f"(right_{n} Hf)" if premise else f"right_{n}"
    dom = "forall x, e <= x -> 0 < d0 x -> (forall y, e <= y -> 0 < d0 y -> F x <= F y) -> "
    s.add(f"Lemma bracket : {prem}{dom}{R0} <= x <= {R1}.\n"
          f"Proof. {intro}exact (refine_bracket F e d e {R0} {R1} {A0} {XX} m d_lt1 a0_e e_r0 ltac:(lra) P_r0 P_r1 P_X "
          f"eq_refl left_0 {rt}). Qed.",
          "every minimiser of F lies in the bracket")
    L, H = q(lo), q(hi)
    value = {"refined_eps0": "x", "refined_sigma": "F x", "refined_delta0": "d0 x"}[qty]
    if qty == "refined_eps0":
        s.add(f"Lemma enclosure : {prem}{dom}{L} <= x <= {H}.\n"
              f"Proof. {intro}intros x Hx Px Hm. pose proof (bracket {'Hf ' if premise else ''}x Hx Px Hm). lra. Qed.",
              "the bracket inside [lo, hi]")
    else:
        fn = "F" if qty == "refined_sigma" else "d0"
        unf = "F" if qty == "refined_sigma" else "d0, refine_d0, e, d"
        s.add(f"Lemma on_bracket : forall y, {R0} <= y <= {R1} -> {L} <= {fn} y <= {H}.\n"
              f"Proof. intros y Hy. unfold {unf}; split; {bis}. Qed.", f"{qty} on the bracket inside [lo, hi]")
        s.add(f"Lemma enclosure : {prem}{dom}{L} <= {value} <= {H}.\n"
              f"Proof. {intro}intros x Hx Px Hm. apply on_bracket. exact (bracket {'Hf ' if premise else ''}x Hx Px Hm). Qed.")
    hf = " Hf" if premise else ""
    exists = "(exists x, e <= x /\\ 0 < d0 x /\\ forall y, e <= y -> 0 < d0 y -> F x <= F y)"
    s.add(f"Lemma exists_min : {prem}{exists}.\n"
          f"Proof. {intro}exact (refine_exists F dF e d e {R0} {R1} {A0} {XX} m d_lt1 a0_e e_r0 ltac:(lra) P_r1 P_X "
          f"eq_refl {deriv(r0, r1)} left_0 {rt}). Qed.",
          "F attains its minimum on the domain (continuous on the bracket)")
    if verdict is None:
        body, rest = f"{L} <= {value} <= {H}", f"exact (enclosure{hf})"
    else:
        v, a, b = verdict
        body = f"{q(a)} <= {value} <= {q(b)}" if v == "CONFIRMED" else f"{value} < {q(a)} \\/ {q(b)} < {value}"
        rest = f"intros x Hx Px Hm; pose proof (enclosure{hf} x Hx Px Hm); lra"
    if premise and needed:
        s.add("(* certdp_claim takes as a premise that f is non-increasing in eps and in delta on eps > 0,\n"
              "   0 < delta < 1 (nonincr2 f): the bound near x_max rests on it.  It is a stated hypothesis:\n"
              "   the certificate lists it in claim.assumptions (certdp's sign calculus does not prove it). *)")
    elif premise:
        s.add("(* certdp_claim takes as a premise that f is non-increasing in eps and in delta on eps > 0,\n"
              "   0 < delta < 1 (nonincr2 f): the bound near x_max rests on it.  certdp's sign calculus\n"
              "   (certdp.verifier.formula_monotone) proves it by a rule proofs/coq/Mono.v does not mirror:\n"
              "   Coq does not prove it. *)")
    elif uses_mono:
        s.add("(* nonincr2 f (f non-increasing in eps and in delta) is proved above (f_mono, proofs/coq/Mono.v):\n"
              "   certdp_claim has no premise. *)")
    s.add(f"Theorem certdp_claim : {prem}{exists} /\\ ({dom}{body}).\n"
          f"Proof. {intro}split; [exact (exists_min{hf}) | {rest}]. Qed.",
          "the enclosure [lo, hi]" + ("" if verdict is None else f" against the printed interval ({verdict[0]})"))

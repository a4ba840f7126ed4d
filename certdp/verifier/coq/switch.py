"""The switch point of an sgd/icea refined profile (Liu et al. 2022 App. B) as a Coq theorem.

The certificate (``value`` ``switch_eps`` / ``switch_delta``, evidence ``{"bracket": [r0, r1],
"tail": T}``) claims where q(x) = (1 − min(1, δ̂(x)))/(1 + eˣ) attains its maximum.  The
script proves, from the library's lemmas (``switch_left_S``/``_B``, ``switch_right_S``/``_B``,
``switch_right_tail``, ``switch_bracket``, proofs/coq/CertDP.v):

* on each cell [a, b] of (0, r0]: S < 0 (one ``interval`` goal over the cell, S = δ̂'(1 + eˣ)
  + (1 − δ̂)eˣ, so q increases where δ̂ < 1) or (1 − δ̂(b))/(1 + eᵃ) < qs ≤ q(r0) (δ̂ non-increasing);
* on each cell of [r1, T]: δ̂(a) < 1 and S > 0 (q decreases) or the same bound; beyond T,
  q ≤ 1/(1 + eˣ) < 1/(1 + e^T) < qs;

so that every maximiser of q on (0, ∞) lies in [r0, r1], and one exists (q is continuous on the
bracket, where δ̂(r0) < 1: ``switch_exists``); ``certdp_claim`` states that q has a maximiser and
every maximiser lies in [lo, hi] (``switch_eps``) or has min(1, δ̂) in [lo, hi] (``switch_delta``),
and the verdict against the printed number.

The cells are chosen here with balls (a guide, never an answer: a wrong cell only makes coqc fail).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Mapping

from flint import arb

from certdp.verifier.ball import to_ball, working_precision
from certdp.verifier.coq.terms import ClaimRefused, Unsupported, q

#: Most cells the Coq script writes on either side of the bracket.
MAX_CELLS = 1_500
#: Narrowest cell the guide splits (relative); a cell it cannot prove at this width is written out as
#: it is, so a bracket that misses the maximiser makes coqc fail (INVALID) instead of a refusal.
MIN_WIDTH = Fraction(1, 2 ** 120)


def _naive_terms(mech: Any) -> tuple[str, str, str]:
    """(δ̂ term, δ̂' term, the library lemma proving naive_ok) of an sgd/icea mechanism."""
    p = mech.params
    if mech.name == "sgd":
        b, c = q(p["B"]), q(Fraction(p["sigma"]) / Fraction(p["A"]))
        return f"(sgd_naive {b} {c})", f"(sgd_dnaive {b} {c})", f"(sgd_ok {b} {c} ltac:(lra) ltac:(lra))"
    k = f"({q(p['n'])} * exp ({q(-Fraction(p['m']) / 10)}))"
    return f"(icea_naive {k})", f"(icea_dnaive {k})", f"(icea_ok {k} ltac:(interval))"


def _cells(mech: Any, a: Fraction, b: Fraction, qs: Fraction, sign: int) -> list[tuple[str, Fraction, Fraction]]:
    """A partition of [a, b] into cells ("S", a, b) where sign·S > 0 on the cell (and, right of
    the bracket, δ̂(a) < 1) or ("B", a, b) where (1 − δ̂(b))/(1 + eᵃ) < qs; Unsupported past MAX_CELLS."""
    from certdp.verifier.switch import dnaive_ball, naive_ball  # noqa: PLC0415

    out: list[tuple[str, Fraction, Fraction]] = []
    stack = [(a, b)]
    qs_b = to_ball(qs)
    while stack:
        lo, hi = stack.pop()
        if len(out) + len(stack) > MAX_CELLS:
            raise Unsupported(f"the switch-point proof needs more than {MAX_CELLS} cells on one side of the bracket")
        cell = to_ball(lo).union(to_ball(hi))
        kind = None
        if lo > 0:
            s = dnaive_ball(mech, cell) * (1 + cell.exp()) + (1 - naive_ball(mech, cell)) * cell.exp()
            if s.is_finite() and (s < 0 if sign < 0 else s > 0) and (sign < 0 or naive_ball(mech, to_ball(lo)) < 1):
                kind = "S"
        if kind is None and hi > 0:
            v = (1 - naive_ball(mech, to_ball(hi))) / (1 + to_ball(lo).exp())
            if v.is_finite() and v < qs_b:
                kind = "B"
        if kind is None and hi - lo <= MIN_WIDTH * max(1, abs(hi)):
            # no proof down to this width (a bracket that misses the maximiser): this cell and the rest
            # are written out as S-cells, and coqc rejects the first false one (INVALID, never a pass)
            out.append(("S", lo, hi))
            out.extend(("S", a1, b1) for a1, b1 in reversed(stack))
            return out
        if kind is not None:
            out.append((kind, lo, hi))
            continue
        m = (lo + hi) / 2
        stack.append((m, hi))
        stack.append((lo, m))
    return out


def translate_switch(s: Any, doc: Mapping[str, Any], qty: str, lo: Fraction, hi: Fraction,
                     verdict: tuple[str, Fraction, Fraction] | None) -> None:
    """Add the switch-point proof and ``certdp_claim`` to the script ``s``."""
    from certdp.verifier.facts import assumptions_of  # noqa: PLC0415
    from certdp.verifier.switch import bracket_of, naive_mechanism, q_ball  # noqa: PLC0415

    mech = naive_mechanism(doc)
    if assumptions_of(doc):
        raise ClaimRefused("claim.assumptions lists hypotheses the mechanism does not have")
    r0, r1, tail = bracket_of(doc["evidence"], "evidence", tail=True)
    assert tail is not None
    if not 0 < r0:
        raise ClaimRefused("the bracket's left end must be positive")
    with working_precision(max(s.prec, 128) + 64):
        q0 = q_ball(mech, to_ball(r0))
        if not (q0.is_finite() and q0 > 0):
            raise Unsupported("q(r0) is not positive: the switch-point proof has no reference value")
        # qs: a dyadic number just below q(r0) (the library proves qs <= q(r0) by interval)
        qs = _below(q0)
        left = _cells(mech, Fraction(0), r0, qs, -1)
        right = _cells(mech, r1, tail, qs, +1) if r1 < tail else []
    d, dd, ok = _naive_terms(mech)
    P = s.prec + 30
    R0, R1, T, QS = q(r0), q(r1), q(tail), q(qs)
    num = f"unfold dn, dn', switch_S, sgd_naive, sgd_dnaive, icea_naive, icea_dnaive; interval with (i_prec {P})"
    s.add(f"Definition dn : R -> R := {d}.\nDefinition dn' : R -> R := {dd}.\n"
          f"Lemma ok : naive_ok dn dn'. Proof. exact {ok}. Qed.\n"
          f"Definition qs : R := {QS}.\n"
          f"Lemma q_r0 : qs <= switch_q dn {R0}.\n"
          f"Proof. apply switch_q_above; unfold qs; {num}. Qed.\n"
          f"Lemma q_r0_pos : 0 < switch_q dn {R0}. Proof. pose proof q_r0. unfold qs in *. lra. Qed.",
          "q(r0) >= qs > 0 (the reference value)")
    bisect = f"intros y Hy; {num.replace('interval with (', 'interval with (i_bisect y, i_depth 8, ')}"
    s.add(f"Lemma left_{len(left)} : left_ok dn {R0} {R0}. Proof. apply switch_left_base. Qed.")
    for i in range(len(left) - 1, -1, -1):
        kind, a, b = left[i]
        A, B = q(a), q(b)
        if kind == "S":
            s.add(f"Lemma left_{i} : left_ok dn {A} {R0}.\nProof.\n  apply (switch_left_S dn dn' {A} {B} {R0} ok "
                  f"q_r0_pos ltac:(lra) ltac:(lra) ltac:(lra)); [{bisect} | exact left_{i + 1}].\nQed.",
                  f"left cell {i} [{a}, {b}]: S < 0 (q increasing)")
        else:
            s.add(f"Lemma left_{i} : left_ok dn {A} {R0}.\nProof.\n  apply (switch_left_B dn dn' {A} {B} {R0} qs ok "
                  f"ltac:(lra) ltac:(unfold qs; lra) q_r0); [{num} | exact left_{i + 1}].\nQed.",
                  f"left cell {i} [{a}, {b}]: q < q(r0)")
    M = f"(Rmax (switch_q dn {R0}) (switch_q dn {R1}))"
    s.add(f"Definition M : R := {M}.\n"
          f"Lemma qs_M : qs <= M. Proof. unfold M. pose proof q_r0. pose proof (Rmax_l (switch_q dn {R0}) "
          f"(switch_q dn {R1})). lra. Qed.\n"
          f"Lemma right_0 : right_ok dn {R1} {R1} M. Proof. apply switch_right_base. Qed.")
    for i, (kind, a, b) in enumerate(right):
        A, B = q(a), q(b)
        if kind == "S":
            s.add(f"Lemma right_{i + 1} : right_ok dn {R1} {B} M.\nProof.\n  apply (switch_right_S dn dn' {R1} {A} {B} M ok "
                  f"ltac:(lra) ltac:(lra)); [{num} | {bisect} | unfold M; apply Rmax_r | exact right_{i}].\nQed.",
                  f"right cell {i} [{a}, {b}]: S > 0 (q decreasing)")
        else:
            s.add(f"Lemma right_{i + 1} : right_ok dn {R1} {B} M.\nProof.\n  apply (switch_right_B dn dn' {R1} {A} {B} M qs ok "
                  f"ltac:(lra) ltac:(lra) ltac:(unfold qs; lra) qs_M); [{num} | exact right_{i}].\nQed.",
                  f"right cell {i} [{a}, {b}]: q < q(r0)")
    s.add(f"Lemma beyond : forall x, {R1} < x -> switch_q dn x < M.\n"
          f"Proof. apply (switch_right_tail dn dn' {R1} {T} M qs ok ltac:(lra) ltac:(unfold qs; lra) qs_M); "
          f"[unfold qs; interval with (i_prec {P}) | exact right_{len(right)}]. Qed.",
          f"beyond the tail T = {tail}: q <= 1/(1 + e^T) < q(r0)")
    s.add(f"Lemma bracket : forall x, 0 < x -> (forall y, 0 < y -> switch_q dn y <= switch_q dn x) -> "
          f"{R0} <= x <= {R1}.\n"
          f"Proof. exact (switch_bracket dn {R0} {R1} ltac:(lra) ltac:(lra) left_0 beyond). Qed.",
          "every maximiser of q lies in the bracket")
    s.add(f"Lemma d_r0_lt1 : dn {R0} < 1. Proof. {num}. Qed.\n"
          f"Lemma exists_max : exists x, 0 < x /\\ forall y, 0 < y -> switch_q dn y <= switch_q dn x.\n"
          f"Proof. exact (switch_exists dn dn' {R0} {R1} ok ltac:(lra) ltac:(lra) d_r0_lt1 left_0 beyond). Qed.",
          "q attains its maximum (continuous on the bracket)")
    exists = "(exists x, 0 < x /\\ forall y, 0 < y -> switch_q dn y <= switch_q dn x) /\\ "
    stmt = "forall x, 0 < x -> (forall y, 0 < y -> switch_q dn y <= switch_q dn x) -> "
    L, H = q(lo), q(hi)
    if qty == "switch_eps":
        what, value = "x", "x"
        s.add(f"Lemma enclosure : {stmt}{L} <= x <= {H}.\n"
              f"Proof. intros x Hx Hm. pose proof (bracket x Hx Hm). lra. Qed.",
              "the bracket inside [lo, hi]")
    else:
        value = "Rmin 1 (dn x)"
        s.add(f"Lemma d_r1 : {L} <= dn {R1}. Proof. {num}. Qed.", "delta-hat(r1) >= lo")
        s.add(f"Lemma d_r0 : dn {R0} <= {H}. Proof. {num}. Qed.", "delta-hat(r0) <= hi")
        s.add(f"Lemma enclosure : {stmt}{L} <= {value} <= {H}.\n"
              f"Proof.\n  intros x Hx Hm. pose proof (bracket x Hx Hm). destruct ok as [_ [Hmono _]].\n"
              f"  pose proof (Hmono x {R1} Hx ltac:(lra)). pose proof (Hmono {R0} x ltac:(lra) ltac:(lra)).\n"
              f"  pose proof d_r1. pose proof d_r0. rewrite Rmin_right by lra. lra.\nQed.",
              "min(1, delta-hat) on the bracket inside [lo, hi]")
        what = value
    if verdict is None:
        s.add(f"Theorem certdp_claim : {exists}({stmt}{L} <= {value} <= {H}).\n"
              "Proof. split; [exact exists_max | exact enclosure]. Qed.")
    else:
        v, a, b = verdict
        body = f"{q(a)} <= {what} <= {q(b)}" if v == "CONFIRMED" else f"{what} < {q(a)} \\/ {q(b)} < {what}"
        s.add(f"Theorem certdp_claim : {exists}({stmt}{body}).\n"
              f"Proof. split; [exact exists_max |]. intros x Hx Hm. pose proof (enclosure x Hx Hm). lra. Qed.",
              f"the enclosure [lo, hi] against the printed interval ({v})")


def _below(x: arb) -> Fraction:
    """A dyadic rational below the ball x (x > 0), 2^-60 relative below its lower end."""
    from certdp.verifier.ball import dyadic_to_fraction  # noqa: PLC0415

    low = dyadic_to_fraction(x.lower())
    step = Fraction(1, 2 ** 80)
    return (low * (1 - Fraction(1, 2 ** 60)) // step) * step

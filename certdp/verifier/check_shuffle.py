"""Certificates of kind ``not_dp_shuffled``: "DP-SGD with shuffled batches is not
(ε, δ)-DP" under the zero-out relation (one example's clipped gradient 1 vs 0).

Re-derived from the stated finite pair, trusting nothing the producer computed:

* the pair is one of the checker's own two constructions (the target's batch sum,
  after subtracting the public sum of a batch of others, is centred at ``a`` under D
  and ``c`` under D', the other k − 1 batch sums at 0): ``others-zero`` (a, c) = (1, 0)
  and ``others-minus-one`` (2, 1) — both are explicit dataset pairs of the zero-out
  relation with clip norm 1 (other examples' gradients 0, resp. −1);
* one epoch is post-processed to the cell of max_j X_j in the stated partition; the
  cell laws are differences of F_D(t) = Φ((t−a)/σ) Φ(t/σ)^{k−1} and F_D'(t) (same
  with c), enclosed in ball arithmetic;
* epochs use independent permutations, so the E-fold product of the cell pair is a
  post-processing of the run (E = ⌊T/k⌋ full epochs): its hockey-stick divergence
  is a lower bound on the run's δ(ε);
* that divergence is bounded from below: losses ⌊log(p_lo/q_hi)·2^h⌋·2^-h, masses
  ⌊p_lo·2^bits⌋, exact integer convolutions (``fmpz_poly``) floored to ``bits``
  after every product; (1 − e^{ε−L})⁺ summed from below in blocks.
The claim holds when that lower bound is proved > δ.

Document::

    {"claim": {"kind": "not_dp_shuffled", "eps": "<decimal>", "delta": "<decimal>"},
     "mechanism": {"name": "shuffled_dpsgd", "noise": "<σ>", "batch_size": "<B>",
                   "dataset_size": "<N>", "steps": "<T>"},
     "evidence": {"pair": "others-zero" | "others-minus-one", "direction": "forward" | "reverse",
                  "first": "<t_0>", "step": "<dyadic>", "points": <m>, "h_bits": <h>, "bits": <b>},
     "precision": <bits>, ...}
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Mapping

from flint import arb, fmpz_poly

from certdp.verifier.errors import InputError
from certdp.verifier.ball import to_ball, working_precision
from certdp.verifier.exact import exact
from certdp.verifier.gauss import Phi_ball
from certdp.verifier.schema import MalformedCertificate, _fields, number_string

KINDS = ("not_dp_shuffled",)
#: The checker's own table of the explicit pairs (a, c): see the module docstring.
PAIRS = {"others-zero": (1, 0), "others-minus-one": (2, 1)}
#: Limits on untrusted sizes.
MAX_POINTS, MAX_H_BITS, MAX_BITS, MAX_EPOCHS, MAX_LENGTH = 20_000, 16, 256, 10_000, 2**22
#: Most bits for the cell masses (the producer uses 256; 20,000 points at 4,096 bits would take minutes).
MAX_PREC = 1024


def _exact(text: Any, where: str) -> Fraction:
    try:
        return exact(number_string(text, where), where)
    except InputError as err:
        raise MalformedCertificate(str(err)) from None


def _int(v: Any, where: str, lo: int, hi: int) -> int:
    if type(v) is not int or not lo <= v <= hi:
        raise MalformedCertificate(f"{where} must be an integer in [{lo}, {hi}], got {v!r}")
    return v


def _parse(doc: Mapping[str, Any]) -> dict:
    claim = _fields(doc["claim"], "claim", {"kind", "eps", "delta"}, {"assumptions"})
    mech = _fields(doc["mechanism"], "mechanism", {"name", "noise", "batch_size", "dataset_size", "steps"}, set())
    if mech["name"] != "shuffled_dpsgd":
        raise MalformedCertificate("mechanism.name must be 'shuffled_dpsgd'")
    ev = _fields(doc["evidence"], "evidence", {"pair", "direction", "first", "step", "points", "h_bits", "bits"},
                 set())
    s = _exact(mech["noise"], "mechanism.noise")
    B, N, T = (_exact(mech[k], f"mechanism.{k}") for k in ("batch_size", "dataset_size", "steps"))
    if s <= 0 or any(v.denominator != 1 or v < 1 for v in (B, N, T)) or N % B:
        raise MalformedCertificate("mechanism: σ > 0 and positive integers B | N, T are required")
    k = int(N // B)
    epochs = int(T) // k
    if not 1 <= epochs <= MAX_EPOCHS:
        raise MalformedCertificate(f"mechanism: 1 to {MAX_EPOCHS} full epochs of {k} steps are required")
    if ev["pair"] not in PAIRS or ev["direction"] not in ("forward", "reverse"):
        raise MalformedCertificate(f"evidence.pair must be one of {sorted(PAIRS)}, direction forward/reverse")
    step = _exact(ev["step"], "evidence.step")
    if step <= 0:
        raise MalformedCertificate("evidence.step must be > 0")
    eps, delta = _exact(claim["eps"], "claim.eps"), _exact(claim["delta"], "claim.delta")
    if eps < 0 or not 0 <= delta < 1:
        raise MalformedCertificate("claim: ε >= 0 and 0 <= δ < 1 are required")
    return {"s": s, "k": k, "epochs": epochs, "a_c": PAIRS[ev["pair"]], "reverse": ev["direction"] == "reverse",
            "first": _exact(ev["first"], "evidence.first"), "step": step,
            "points": _int(ev["points"], "evidence.points", 1, MAX_POINTS),
            "h_bits": _int(ev["h_bits"], "evidence.h_bits", 0, MAX_H_BITS),
            "bits": _int(ev["bits"], "evidence.bits", 16, MAX_BITS), "eps": eps, "delta": delta,
            "prec": _int(doc["precision"], "precision", 128, MAX_PREC)}


def _one_epoch(c: dict) -> tuple[int, list[int]]:
    """(offset, masses) of the one-epoch lower PLD, losses on 2^-h_bits·Z."""
    s, k = to_ball(c["s"]), c["k"]
    a, b = c["a_c"]
    fp, fq = [arb(0)], [arb(0)]
    for i in range(c["points"]):
        t = to_ball(c["first"] + i * c["step"])
        rest = Phi_ball(t / s) ** (k - 1)
        fp.append(Phi_ball((t - a) / s) * rest)
        fq.append(Phi_ball((t - b) / s) * rest)
    fp.append(arb(1))
    fq.append(arb(1))
    if c["reverse"]:
        fp, fq = fq, fp
    scale, hscale = arb(2) ** c["bits"], arb(2) ** c["h_bits"]
    cells: dict[int, int] = {}
    for i in range(len(fp) - 1):
        plo, qhi = (fp[i + 1] - fp[i]).lower(), (fq[i + 1] - fq[i]).upper()
        if not (plo > 0 and qhi > 0):
            continue
        m = int((plo * scale).floor().unique_fmpz())
        loss = ((plo.log() - qhi.log()) * hscale).lower().floor()
        if m > 0 and loss.is_finite():
            j = int(loss.unique_fmpz())
            cells[j] = cells.get(j, 0) + m
    if not cells:
        return 0, [0]
    lo = min(cells)
    if max(cells) - lo >= MAX_LENGTH:
        raise MalformedCertificate("the stated loss grid makes the one-epoch PLD too long")
    return lo, [cells.get(lo + i, 0) for i in range(max(cells) - lo + 1)]


def _mul(x: tuple[int, list[int]], y: tuple[int, list[int]], bits: int) -> tuple[int, list[int]]:
    if len(x[1]) + len(y[1]) - 1 > MAX_LENGTH:
        raise MalformedCertificate("the stated loss grid makes the composed PLD too long")
    prod = [int(v) >> bits for v in (fmpz_poly(x[1]) * fmpz_poly(y[1])).coeffs()]
    nz = [i for i, v in enumerate(prod) if v]
    if not nz:
        return 0, [0]
    return x[0] + y[0] + nz[0], prod[nz[0]:nz[-1] + 1]


def _delta_lower(offset: int, masses: list[int], h_bits: int, bits: int, eps: Fraction) -> arb:
    """Σ_{L_j > ε} m_j 2^-bits (1 − e^{ε−L_j}) from below: single terms for 4096 grid
    points, then blocks of (j − j0)/1024 valued at their lowest loss."""
    h = Fraction(1, 2**h_bits)
    j0 = max(0, int((eps / h).__floor__()) + 1 - offset)
    e, hb, total, j = to_ball(eps), to_ball(h), arb(0), j0
    while j < len(masses):
        end = min(len(masses), j + (1 if j - j0 < 4096 else (j - j0) // 1024))
        mass = sum(masses[j:end])
        if mass:
            total += mass * -(e - (offset + j) * hb).expm1()
        j = end
    return total / arb(2) ** bits


def check(doc: Mapping[str, Any]) -> tuple[bool, str | None]:
    """(valid, the failing step) of a ``not_dp_shuffled`` certificate."""
    c = _parse(doc)
    with working_precision(c["prec"]):
        base = _one_epoch(c)
        if c["epochs"] * (len(base[1]) - 1) + 1 > MAX_LENGTH:  # the composed PLD's length, at most
            raise MalformedCertificate("the stated loss grid makes the composed PLD too long")
        result: tuple[int, list[int]] | None = None
        n = c["epochs"]
        while n:
            if n & 1:
                result = base if result is None else _mul(result, base, c["bits"])
            n >>= 1
            if n:
                base = _mul(base, base, c["bits"])
        assert result is not None
        low = _delta_lower(result[0], result[1], c["h_bits"], c["bits"], c["eps"])
        if low.lower() > to_ball(c["delta"]):
            return True, None
    return False, (f"the pair's E-fold hockey stick at ε = {doc['claim']['eps']} is not proved above "
                   f"δ = {doc['claim']['delta']} (lower bound {low.lower().str(6, radius=False)})")

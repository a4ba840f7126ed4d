"""Certificates of the shuffled-batches lower bound (kind ``not_dp_shuffled``).

"DP-SGD with shuffled batches (σ, B, N, T) is not (ε, δ)-DP" under the zero-out
relation, with the explicit pair, the partition and the rounding grid as evidence.
The independent checker :mod:`certdp.verifier.check_shuffle` re-derives the cell
laws (ball-arithmetic Φ), the E-fold composition from below (``fmpz_poly``) and the
final inequality; this writer checks every document with it before returning it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from certdp.certificates.writer import envelope
from certdp.errors import InputError
from certdp.numerics.enclosure import Enclosure, decimal_string
from certdp.numerics.exact import fraction_to_str

if TYPE_CHECKING:  # pragma: no cover
    from certdp.analyses.accountants.shuffle import ShuffleResult

KIND = "not_dp_shuffled"
#: The precision the producer used for the cell masses (shuffle_pair.PREC).
PRECISION = 256


def shuffled_certificate(res: "ShuffleResult") -> dict[str, Any]:
    """The checked certificate of ``res.lower`` (InputError when nothing above the
    trivial bound was proved)."""
    from certdp.verifier.checker import check  # noqa: PLC0415

    low = res.lower
    if low.delta is None or "h_bits" not in low.settings:
        raise InputError("no lower bound above the trivial one was proved: nothing to certify")
    if res.target_delta is not None:
        eps, delta = Enclosure.exact(low.eps).lo_str(8), fraction_to_str(res.target_delta)
    else:  # δ answers: a decimal strictly below the proved δ_lower(ε)
        eps, delta = fraction_to_str(res.target_eps), decimal_string(low.delta.lo, 6, "down")
    part = low.settings["partition"]
    evidence = {"pair": low.construction, "direction": "forward" if low.direction == "D‖D'" else "reverse",
                "first": part["first"], "step": part["step"], "points": part["points"],
                "h_bits": low.settings["h_bits"], "bits": low.settings["mass_bits"]}
    mechanism = {"name": "shuffled_dpsgd", "noise": fraction_to_str(res.noise), "batch_size": str(res.batch_size),
                 "dataset_size": str(res.dataset_size), "steps": str(res.steps)}
    doc = envelope({"kind": KIND, "eps": eps, "delta": delta}, mechanism, evidence, PRECISION)  # type: ignore[arg-type]
    verdict = check(doc)
    if not verdict.valid:
        raise InputError(f"the shuffled lower bound's certificate did not check: {verdict.failed_step}")
    return doc

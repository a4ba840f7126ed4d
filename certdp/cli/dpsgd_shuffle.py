"""``certdp dpsgd --sampling shuffle``: the shuffled run's certified lower bound,
the no-amplification upper bound and the Poisson answer, side by side."""

from __future__ import annotations

import argparse

from certdp.cli.common import EXIT_OK, emit
from certdp.errors import InputError
from certdp.numerics.enclosure import Enclosure

#: Options of the Poisson answer that have no meaning for the shuffled lower bound.
_POISSON_ONLY = (("mu", "--mu"), ("upper_only", "--upper-only"), ("grid", "--grid"), ("width", "--width"),
                 ("sample_rate", "--sample-rate"), ("no_regret", "--no-regret"))


def run_shuffle(args: argparse.Namespace, steps: int | None) -> int:
    from certdp.analyses.accountants.shuffle import UPPER_WHY, WHY, shuffled_dpsgd  # noqa: PLC0415

    for attr, flag in _POISSON_ONLY:
        if getattr(args, attr, None):
            raise InputError(f"{flag} is not available with --sampling shuffle")
    res = shuffled_dpsgd(args.noise, batch_size=args.batch_size, dataset_size=args.dataset_size,
                         epochs=args.epochs, steps=steps, delta=args.delta, eps=args.eps)
    if args.certificate:
        from certdp.certificates.shuffle_writer import shuffled_certificate  # noqa: PLC0415
        from certdp.certificates.writer import write  # noqa: PLC0415

        write(shuffled_certificate(res), args.certificate)

    def human() -> str:
        low, up, poi = res.lower, res.upper, res.poisson
        by_delta = args.delta is not None
        lines = [f"DP-SGD with shuffled batches: σ = {args.noise}, B/N = {res.batch_size}/{res.dataset_size} "
                 f"({res.batches} batches per epoch), T = {res.steps} ({res.seconds:.2f} s)"]
        if by_delta:
            lines.append(f"  at δ = {args.delta}:")
            lines.append(f"    shuffled, proved:  ε >= {Enclosure.exact(low.eps).lo_str(6)}  (lower bound, {low.epochs} epoch(s); "
                         f"pair {low.construction}, {low.direction})")
            lines.append(f"    shuffled, proved:  ε <= {up.eps.hi_str(6)}  (upper bound without amplification, "
                         f"(√{up.steps}/σ)-GDP)")
            lines.append(f"    Poisson at q = {res.batch_size}/{res.dataset_size}: ε ∈ {poi.eps}  "
                         "(certified for Poisson sampling, not for shuffling)")
        else:
            shown = "0" if low.delta is None else low.delta.lo_str(6)
            lines.append(f"  at ε = {args.eps}:")
            lines.append(f"    shuffled, proved:  δ >= {shown}  (lower bound, {low.epochs} epoch(s))")
            lines.append(f"    shuffled, proved:  δ <= {up.delta.hi_str(6)}  (upper bound without amplification)")
            lines.append(f"    Poisson at q = {res.batch_size}/{res.dataset_size}: δ ∈ {poi.delta}  "
                         "(certified for Poisson sampling, not for shuffling)")
        if res.poisson_refuted():
            lines.append("  the Poisson number is NOT a valid guarantee for this shuffled run "
                         "(its upper end is below the proved lower bound)")
        else:
            lines.append("  the Poisson number is not refuted by this lower bound (it is not proved valid either: "
                         "no tight certified upper bound for shuffling is known)")
        lines.append(f"  why: {WHY}.")
        lines.append(f"  {UPPER_WHY}.")
        lines.append("  relation: zero-out (for Poisson the same as add-or-remove, as dp_accounting/opacus report; "
                     "the lower bound also holds under replace-one)")
        if args.certificate:
            lines.append(f"certificate of the lower bound (not (ε, δ)-DP) written to {args.certificate}")
        return "\n".join(lines)

    data = res.to_json()
    data["target"] = {"delta": args.delta} if args.delta is not None else {"eps": args.eps}
    emit(args, human, data)
    return EXIT_OK

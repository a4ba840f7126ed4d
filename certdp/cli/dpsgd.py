"""``certdp dpsgd``: certified privacy of DP-SGD (Poisson-subsampled Gaussian).

    certdp dpsgd --noise 9.4 --sample-rate 0.32768 --steps 2000 --delta 1e-5 [--mu] [--json]
    certdp dpsgd --noise 1.1 --epochs 60 --batch-size 256 --dataset-size 60000 --delta 1e-5

In practitioners' terms: --batch-size B --dataset-size N give q = B/N exactly
(Poisson sampling, expected batch size B), and --epochs E gives T = ⌈E/q⌉
(= ⌈E·N/B⌉, rounded up so the answer covers the fractional step; the output
states the rule).  opacus' make_private with Poisson sampling runs ⌈N/B⌉ steps
per epoch at q = 1/⌈N/B⌉: for exactly that run give --sample-rate and --steps.

Prints a certified enclosure of ε (for --delta) or δ (for --eps), computed by
the certified PLD accountant; with --mu also the certified GDP report:
μ with its residual ("μ-GDP except η"), the regret of the reported μ, the
advantage, and the strict tail bound μ >= √T/σ (Liu et al. 2022 Thm 4.4, §5.3).

--sampling shuffle (each epoch a random permutation cut into N/B batches of size B,
B dividing N) prints a certified LOWER bound on the shuffled run's ε from an
explicit pair of datasets, beside the no-amplification upper bound ((√E/σ)-GDP,
the only certified upper bound known for shuffling) and the Poisson enclosure at
q = B/N usually reported for such a run.  Why composing the pair over the epochs
is valid: the epochs use independent permutations, so the E-fold product of the
one-epoch pair is a post-processing of the run's output (docs/shuffling.md).
"""

from __future__ import annotations

from fractions import Fraction

import argparse

from certdp.cli.common import EXIT_OK, add_json_flag, emit
from certdp.errors import InputError


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "dpsgd",
        help="certified (ε, δ) and GDP report for DP-SGD (certified PLD accountant)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--noise", required=True, help="noise multiplier σ (exact, e.g. 9.4)")
    p.add_argument("--sample-rate", help="Poisson sampling rate q in (0, 1] (or --batch-size with --dataset-size)")
    p.add_argument("--steps", help="number of steps T (positive integer; or --epochs)")
    p.add_argument("--epochs", metavar="E", help="number of epochs (exact, > 0): T = ⌈E/q⌉ steps")
    p.add_argument("--batch-size", metavar="B", help="expected batch size (positive integer): q = B/N")
    p.add_argument("--dataset-size", metavar="N", help="number of examples (positive integer): q = B/N")
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--delta", help="target δ: report the certified ε")
    g.add_argument("--eps", help="target ε: report the certified δ")
    p.add_argument("--mu", action="store_true",
                   help="also report certified μ (GDP except a residual), regret and strict tail μ")
    p.add_argument("--residual", default="1e-10",
                   help="target residual η for the GDP report (default 1e-10)")
    p.add_argument("--grid", default=None,
                   help="loss grid step h (default: automatic — 1/1024, finer for a small rate (at least 4 "
                        "steps in one step's loss spread), widened for tiny σ so that one step's loss range "
                        "needs at most 2^16 points — then halved until the width target is met)")
    p.add_argument("--width", default=None, metavar="W",
                   help="absolute width target of the two-sided answer (default: 1 %% of its upper end, and "
                        "for ε also max(0.02, 0.1 %%); up to 4 halvings of the automatic grid); with "
                        "--upper-only (ε answers): the coarsest grid predicted to put the upper end within W "
                        "of the truth (a guide: no lower end measures it)")
    p.add_argument("--no-regret", action="store_true", help="skip the regret computation")
    p.add_argument("--certificate", metavar="FILE", default=None,
                   help="write a certificate of the (ε, δ) upper end, or with --mu of the GDP report "
                        "(μ-GDP except η; check with `certdp verify FILE`)")
    p.add_argument("--upper-only", action="store_true",
                   help="certified upper bound only (faster; lower end reported as 0)")
    p.add_argument("--sampling", choices=("poisson", "shuffle"), default="poisson",
                   help="how batches are drawn: poisson (default; the certified enclosure) or shuffle "
                        "(a certified lower bound on ε beside the Poisson answer; needs --batch-size, "
                        "--dataset-size; docs/shuffling.md)")
    add_json_flag(p)
    p.set_defaults(handler=_run)


def _steps(text: str | None) -> int | None:
    if text is None:
        return None
    try:
        v = int(text)
    except ValueError:
        raise InputError(f"--steps must be a positive integer, got {text!r}") from None
    if v < 1:
        raise InputError(f"--steps must be a positive integer, got {text!r}")
    return v


def _run(args: argparse.Namespace) -> int:
    if args.sampling == "shuffle":
        from certdp.cli.dpsgd_shuffle import run_shuffle  # noqa: PLC0415

        return run_shuffle(args, _steps(args.steps))
    from certdp.analyses.accountants.dpsgd import dpsgd  # noqa: PLC0415

    res = dpsgd(args.noise, args.sample_rate, _steps(args.steps), delta=args.delta, eps=args.eps,
                epochs=args.epochs, batch_size=args.batch_size, dataset_size=args.dataset_size,
                mu=args.mu, h=args.grid, residual=args.residual, regret=not args.no_regret,
                two_sided=not args.upper_only, width=args.width)

    if args.certificate:
        from certdp.certificates.writer import dpsgd_certificate, gdp_except_certificate, write  # noqa: PLC0415

        write(gdp_except_certificate(res) if args.mu else dpsgd_certificate(res), args.certificate)

    def human() -> str:
        how = (f"certified PLD accountant, h = {res.settings['h']}" if "h" in res.settings
               else f"exact route — {res.settings['route']}")
        sched = res.schedule or {}
        q_text = (f"B/N = {sched['batch_size']}/{sched['dataset_size']}" if "batch_size" in sched
                  else args.sample_rate)
        lines = [f"DP-SGD: σ = {args.noise}, q = {q_text}, T = {res.steps} "
                 f"({how}, {res.seconds:.2f} s)"]
        if "steps_rule" in sched:
            lines.append(f"  {sched['epochs']} epochs: {sched['steps_rule']}")
        if res.eps is not None:
            lines.append(f"  at δ = {args.delta}: ε ∈ {res.eps}")
        if res.delta is not None:
            lines.append(f"  at ε = {args.eps}: δ ∈ {res.delta}")
        answer = res.eps if res.eps is not None else res.delta
        target = res.settings.get("width_target")
        if target is not None and answer.hi_exact - answer.lo_exact > Fraction(target):
            shown = args.width if args.width is not None else f"{float(Fraction(target)):.3g}"
            lines.append(f"  width target {shown} missed (width "
                         f"{float(answer.hi_exact - answer.lo_exact):.3g} after 4 halvings of the grid; "
                         "give a finer --grid)")
        guide = res.settings.get("upper_accuracy_guide")
        if guide is not None:
            pred = res.settings.get("upper_accuracy_predicted", "unknown")
            if pred == "unknown":
                where = "on the automatic grid (no prediction of its distance to the truth for these parameters)"
            elif Fraction(pred) <= Fraction(guide):
                where = f"on the grid predicted to put it within {args.width} of the truth"
            else:
                where = f"on the finest grid allowed; its predicted distance to the truth, {pred}, exceeds {args.width}"
            lines.append(f"  upper end only, {where} (certified upper bound; the distance is a guide, "
                         "no lower end measures it)")
        if res.mu is not None:
            if res.residual.hi == 0:
                lines.append(f"  strict μ-GDP (no residual): μ ∈ {res.mu}, the trade-off curve is exactly f_μ")
            else:
                from certdp.mechanisms.format import format_number  # noqa: PLC0415

                eta = res.settings.get("residual")
                exact_eta = None if eta is None else format_number(Fraction(eta))
                # a short exact η as it is; a long fraction (5218758221145/37778931862957161709568) as an
                # outward decimal: rounded up, the weaker statement, still proved (the exact one is in --json)
                eta_s = (f"= {exact_eta}" if exact_eta is not None and "/" not in exact_eta
                         else f"<= {res.residual.hi_str(6)}")
                lines.append(f"  μ-GDP except residual: μ ∈ {res.mu}, residual η {eta_s}")
                lines.append(f"    proved: δ(ε) <= δ_μ(ε) + η for all ε >= 0 with μ = {res.mu.hi_str(8)}")
            lines.append(f"  strict GDP: μ >= √T/σ ∈ {res.strict_mu_at_least} (tail, Liu et al. 2022 Thm 4.4)")
            if res.regret is not None:
                lines.append(f"  regret Δ(f, f_μ) of μ = {res.mu.hi_str(8)}: {res.regret}")
            lines.append(f"  advantage η(f) = δ(0) ∈ {res.advantage}")
        if args.certificate:
            lines.append(f"certificate written to {args.certificate}")
        return "\n".join(lines)

    data = res.to_json()
    # the inputs answered, as given (a closed-form target such as exp(-12) stays text)
    data["target"] = {"delta": args.delta} if args.delta is not None else {"eps": args.eps}
    emit(args, human, data)
    return EXIT_OK

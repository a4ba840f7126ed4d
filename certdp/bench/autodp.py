"""Benchmark: certdp's certified φ accountant vs autodp's ``ComposeAFA``.

Run ``python -m certdp.bench.autodp`` (needs ``autodp``; skipped
with a message if it does not import).  For each case it prints autodp's float
δ(ε) and time, certdp's enclosure and time, and whether autodp's value lies in
the certified enclosure (its error is measured against the enclosure).
Timings are CPU seconds (``time.process_time``) of one δ(ε) query after
composition.  Reference only; not used by the library.
"""

from __future__ import annotations

import time
from fractions import Fraction

from certdp.analyses.accountants.pairs import GaussianPair, LaplacePair, RRPair
from certdp.analyses.accountants.phi import PhiAccountant


def _cases():
    yield ("gaussian sigma=50 x1000, eps=1", [("g", 50, 1000)], 1)
    yield ("gaussian sigma=1 x1, eps=0.277", [("g", 1, 1)], Fraction(277, 1000))
    yield ("exp2: gaussian 5 x50 + rr 0.52 x50, eps=2",
           [("g", 5, 50), ("rr", Fraction(13, 25), 50)], 2)
    yield ("gaussian sigma=1 x1, eps=6 (small delta)", [("g", 1, 1)], 6)
    yield ("exp2 k=10: gaussian 5 x5 + rr 0.52 x5, eps=2", [("g", 5, 5), ("rr", Fraction(13, 25), 5)], 2)
    het = [("g", Fraction(20 + j, 2), 1) for j in range(40)]
    het += [("rr", Fraction(51 + j % 10, 100) + Fraction(j, 10**6), 1) for j in range(30)]
    het += [("lap", 10 + j, 1) for j in range(30)]
    yield ("100 heterogeneous (40 G, 30 RR, 30 Lap), eps=1", het, 1)


def _certdp(items, eps):
    acc = PhiAccountant()
    for kind, par, k in items:
        pair = {"g": lambda: GaussianPair(par), "rr": lambda: RRPair(p=par),
                "lap": lambda: LaplacePair(par)}[kind]()
        acc = acc.compose(pair, k)
    t = time.process_time()
    d = acc.delta(eps)
    return d, time.process_time() - t


def _autodp(items, eps):
    from autodp import mechanism_zoo, transformer_zoo  # noqa: PLC0415

    mechs, coeffs = [], []
    for kind, par, k in items:
        if kind == "g":
            m = mechanism_zoo.GaussianMechanism(sigma=float(par), phi_off=False, approxDP_off=True,
                                                RDP_off=True)
        elif kind == "rr":
            m = mechanism_zoo.RandresponseMechanism(p=float(par), phi_off=False, RDP_off=True)
        else:
            m = mechanism_zoo.LaplaceMechanism(b=float(par), phi_off=False, RDP_off=True)
        mechs.append(m)
        coeffs.append(k)
    composed = transformer_zoo.ComposeAFA()(mechs, coeffs)
    t = time.process_time()
    d = composed.get_approx_delta(float(eps))
    return d, time.process_time() - t


def main() -> int:
    try:
        import autodp  # noqa: F401, PLC0415
    except ImportError:
        print("autodp is not installed; benchmark skipped")
        return 0
    print("| case | autodp δ | autodp s | certdp δ enclosure | certdp s | autodp rel. error |")
    print("|---|---|---|---|---|---|")
    for name, items, eps in _cases():
        d, tc = _certdp(items, eps)
        try:
            a, ta = _autodp(items, eps)
            err = "inside" if d.contains(Fraction(a)) else f"{abs(a - d.mid) / d.mid:.1e}"
            a_s, ta_s = f"{a:.15g}", f"{ta:.3f}"
        except Exception as exc:  # noqa: BLE001 - report any autodp failure
            a_s, ta_s, err = f"error: {type(exc).__name__}", "-", "-"
        print(f"| {name} | {a_s} | {ta_s} | {d} | {tc:.3f} | {err} |")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())

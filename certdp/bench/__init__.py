"""Benchmarks (run with ``certdp bench NAME``); kept apart from the tests.

``gdp``: median wall time per ``delta_mu`` call (default accuracy, relative
width <= 1e-15) and per ``mu_from_eps_delta`` call (width 1e-12) over a fixed
set of inputs spanning the supported range.

``dpsgd``: ε(δ = 1e-5) of DP-SGD with σ = 9.4, q = 0.32768, T = 2000 (Gomez et al. 2025
§5) by certdp's certified PLD accountant and, when installed (the ``compare``
extra, plus ``gdpnum``), by dp_accounting, prv_accountant and gdpnum — each in
its own process, reporting wall time, the answer and peak resident memory.

``engine``: the generic PLD engine's examples (Laplace compositions, Poisson-subsampled
Laplace; issue 16), certdp's router at its default width against dp_accounting, each
in its own process.
"""

from __future__ import annotations

import statistics
import time
from typing import Callable

#: Fixed inputs: (μ, ε) for δ_μ(ε), spanning μ ∈ [1e-3, 50], ε ∈ [0, 1e4].
DELTA_MU_INPUTS = [
    ("0.5", "1"), ("1", "1"), ("1", "0"), ("2", "3"), ("6", "100"), ("6", "200"),
    ("0.001", "0.01"), ("0.001", "10000"), ("0.1", "50"), ("50", "0"), ("50", "1000"),
    ("3", "10000"), ("1.5", "7.25"), ("0.27", "1"), ("10", "20"), ("0.05", "2"),
]
#: Fixed inputs: (ε, δ) for μ_GDP(ε, δ) (Gomez et al. 2025 Table 3 grid plus extremes).
MU_INPUTS = [
    (e, d)
    for e in ("0.1", "0.5", "1", "2", "4", "6", "8", "10")
    for d in ("1e-5", "1e-6", "1e-9")
] + [("0", "0.5"), ("100", "1e-30"), ("0.01", "0.9")]


def _median_time(fn: Callable[[], object], repeat: int) -> float:
    fn()  # warm-up
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def bench_gdp(repeat: int = 20) -> list[dict]:
    """Median seconds per call for each input, for delta_mu and mu_from_eps_delta."""
    from certdp.numerics.gdp import delta_mu, mu_from_eps_delta

    rows = []
    for mu, eps in DELTA_MU_INPUTS:
        rows.append({"function": "delta_mu", "args": f"mu={mu}, eps={eps}",
                     "seconds": _median_time(lambda: delta_mu(mu, eps), repeat)})
    for eps, delta in MU_INPUTS:
        rows.append({"function": "mu_from_eps_delta", "args": f"eps={eps}, delta={delta}",
                     "seconds": _median_time(lambda: mu_from_eps_delta(eps, delta), max(3, repeat // 4))})
    return rows


def summarize(rows: list[dict]) -> dict[str, float]:
    """Median over inputs of the per-input median time, per function."""
    out: dict[str, list[float]] = {}
    for r in rows:
        out.setdefault(r["function"], []).append(r["seconds"])
    return {k: statistics.median(v) for k, v in out.items()}


BENCHMARKS: dict[str, Callable[..., list[dict]]] = {"gdp": bench_gdp}


#: The DP-SGD setting of Gomez et al. 2025 §5 / Table 4 (ε = 8 column).
DPSGD_CASE = {"noise": "9.4", "rate": "0.32768", "steps": 2000, "delta": "1e-5"}


def _import_tool(tool: str) -> None:
    import importlib  # noqa: PLC0415

    modules = {"dp_accounting": ["dp_accounting"], "prv_accountant": ["prv_accountant.dpsgd"],
               "gdpnum": ["gdpnum"]}.get(tool, ["certdp.analyses.accountants.pld", "certdp.analyses.fdp"])
    for m in modules:
        importlib.import_module(m)


def _report(queue: object, tool: str, args: str, run: Callable[[], tuple[float, str]]) -> None:
    """Put ``run``'s (seconds, answer) and this process's peak RSS on ``queue``; a missing
    or failing comparison tool is reported in its row, not raised."""
    import resource  # noqa: PLC0415

    try:
        seconds, answer = run()
        peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        queue.put({"function": tool, "args": args, "seconds": seconds, "result": answer, "peak_mb": peak_mb})
    except ImportError as err:
        queue.put({"function": tool, "args": args, "seconds": None, "result": f"not installed ({err.name})",
                   "peak_mb": None})
    except Exception as err:  # noqa: BLE001 - a comparison tool's failure is reported, not fatal
        queue.put({"function": tool, "args": args, "seconds": None, "result": f"failed: {type(err).__name__}: {err}",
                   "peak_mb": None})


def _dpsgd_worker(tool: str, queue: object) -> None:
    """Run one tool on DPSGD_CASE in this (fresh) process; report seconds, answer, peak RSS."""
    c = DPSGD_CASE
    sigma, q, T, delta = float(c["noise"]), float(c["rate"]), c["steps"], float(c["delta"])

    def run() -> tuple[float, str]:
        _import_tool(tool)  # imports are not timed
        t0 = time.perf_counter()
        if tool.startswith("certdp"):
            from fractions import Fraction  # noqa: PLC0415

            from certdp.analyses.accountants.pld import PLDAccountant, SubsampledGaussian  # noqa: PLC0415

            acc = PLDAccountant(h=Fraction(1, 1024), lower=(tool == "certdp two-sided"))
            acc = acc.compose(SubsampledGaussian(Fraction(c["noise"]), Fraction(c["rate"])), T)
            enc = acc.epsilon(c["delta"])
            answer = f"ε ≤ {enc.hi_str(7)}" if tool == "certdp upper" else f"ε ∈ [{enc.lo_str(7)}, {enc.hi_str(7)}] (certified)"
        elif tool == "dp_accounting":
            import dp_accounting  # noqa: PLC0415

            acc = dp_accounting.pld.PLDAccountant(value_discretization_interval=1e-4)
            acc.compose(dp_accounting.SelfComposedDpEvent(
                dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(sigma)), T))
            answer = f"ε ≈ {acc.get_epsilon(delta):.7f} (float, no error bound)"
        elif tool == "prv_accountant":
            from prv_accountant.dpsgd import DPSGDAccountant  # noqa: PLC0415

            acc = DPSGDAccountant(noise_multiplier=sigma, sampling_probability=q, max_steps=T,
                                  eps_error=0.01, delta_error=1e-10)
            lo, est, hi = acc.compute_epsilon(delta=delta, num_steps=T)
            answer = f"ε ∈ [{lo:.4f}, {hi:.4f}] (estimated bounds, float)"
        elif tool == "gdpnum":
            import gdpnum  # noqa: PLC0415

            acc = gdpnum.CTDAccountant()
            for _ in range(T):
                acc.step(noise_multiplier=sigma, sample_rate=q)
            mu, regret = acc.get_mu_and_regret()
            answer = f"ε ≈ {acc.get_epsilon(delta=delta):.7f}, μ ≈ {mu:.4f}, regret ≈ {regret:.2e} (float)"
        else:
            raise ValueError(tool)
        return time.perf_counter() - t0, answer

    _report(queue, tool, "σ=9.4 q=0.32768 T=2000 δ=1e-5", run)


def _best_rows(worker: Callable[..., None], jobs: list[tuple], repeat: int) -> list[dict]:
    """One row per job (the worker's arguments before the queue): the best of ``repeat``
    runs, each in a spawned process (so peak memory is per run)."""
    import multiprocessing  # noqa: PLC0415

    ctx = multiprocessing.get_context("spawn")
    rows = []
    for job in jobs:
        best = None
        for _ in range(max(1, repeat)):
            queue = ctx.Queue()
            proc = ctx.Process(target=worker, args=(*job, queue))
            proc.start()
            row = queue.get()
            proc.join()
            if best is None or (row["seconds"] is not None and (best["seconds"] is None or row["seconds"] < best["seconds"])):
                best = row
        rows.append(best)
    return rows


def _ratios(rows: list[dict], base: dict) -> None:
    for r in rows:
        if r["seconds"] is not None and base["seconds"]:
            r["time_vs_certdp_two_sided"] = r["seconds"] / base["seconds"]
            r["memory_vs_certdp_two_sided"] = r["peak_mb"] / base["peak_mb"]


def bench_dpsgd(repeat: int = 1) -> list[dict]:
    """One run per tool, each in a spawned process (peak memory is per process)."""
    rows = _best_rows(_dpsgd_worker, [(t,) for t in ("certdp upper", "certdp two-sided", "dp_accounting",
                                                    "prv_accountant", "gdpnum")], repeat)
    _ratios(rows, next(r for r in rows if r["function"] == "certdp two-sided"))
    return rows


#: The generic engine's examples (issue 16): label, spec, count, δ, and dp_accounting's
#: event parameters (Laplace scale, Poisson rate or None).
ENGINE_CASES = [
    ("Laplace(5) x50", "laplace(scale=5)", 50, "1e-4", 5.0, None),
    ("Laplace(5) x1000", "laplace(scale=5)", 1000, "1e-4", 5.0, None),
    ("Poisson(1/10) Laplace(1) x10", "subsample(laplace(scale=1), rate=1/10)", 10, "1e-5", 1.0, 0.1),
    ("Poisson(1/10) Laplace(1) x2000", "subsample(laplace(scale=1), rate=1/10)", 2000, "1e-5", 1.0, 0.1),
]


def _engine_worker(case: int, tool: str, queue: object) -> None:
    """One engine example by one tool in this (fresh) process: certdp's router at its
    default width (narrowing passes included), or dp_accounting's PLD accountant (grid 1e-4)."""
    label, spec, k, delta, scale, rate = ENGINE_CASES[case]

    def run() -> tuple[float, str]:
        if tool == "certdp two-sided":
            from fractions import Fraction  # noqa: PLC0415

            from certdp.analyses.dispatch import narrowed_epsilon  # noqa: PLC0415
            from certdp.mechanisms.spec import parse_spec  # noqa: PLC0415

            t0 = time.perf_counter()
            enc, _ = narrowed_epsilon([(parse_spec(spec), k)], Fraction(delta))
            return time.perf_counter() - t0, f"ε ∈ [{enc.lo_str(7)}, {enc.hi_str(7)}] (certified)"
        import dp_accounting  # noqa: PLC0415

        t0 = time.perf_counter()
        event = dp_accounting.LaplaceDpEvent(scale)
        if rate is not None:
            event = dp_accounting.PoissonSampledDpEvent(rate, event)
        acc = dp_accounting.pld.PLDAccountant(value_discretization_interval=1e-4)
        acc.compose(dp_accounting.SelfComposedDpEvent(event, k))
        return time.perf_counter() - t0, f"ε ≈ {acc.get_epsilon(float(delta)):.7f} (float, no error bound)"

    _report(queue, f"{label}: {tool}", f"δ={delta}", run)


def bench_engine(repeat: int = 1, cases: tuple[int, ...] | None = None) -> list[dict]:
    """The engine examples, certdp against dp_accounting (the ``interop`` extra), each run
    in its own process; ratios against certdp's time for the same example."""
    rows = []
    for i in (range(len(ENGINE_CASES)) if cases is None else cases):
        pair = _best_rows(_engine_worker, [(i, "certdp two-sided"), (i, "dp_accounting")], repeat)
        _ratios(pair, pair[0])
        rows += pair
    return rows


BENCHMARKS["dpsgd"] = bench_dpsgd
BENCHMARKS["engine"] = bench_engine

"""Analyses: the mathematics that answers questions about mechanisms.

* :mod:`~certdp.analyses.dispatch` — the one router (δ(ε), ε(δ), GDP) used by
  the CLI, the audit and the API;
* :mod:`~certdp.analyses.gdpt` — GDPT and certified μ (Liu, Sun, Jiang, Kong 2022; seed 000 §4);
* :mod:`~certdp.analyses.limits` — exact GDP identification (seed 000 Thm 4.3/4.4);
* :mod:`~certdp.analyses.accountants` — certified φ and PLD accountants, DP-SGD;
* :mod:`~certdp.analyses.fdp` — f-DP reporting from a PLD (Gomez et al. 2025, seed 003);
* :mod:`~certdp.analyses.noise_refinement` — σ refinement (seed 000 App. C);
* :mod:`~certdp.analyses.prdp` — ADP vs PrDP (seed 004).

Submodules are imported on demand; this package imports nothing.
"""

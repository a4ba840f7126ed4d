"""Analyses: the mathematics that answers questions about mechanisms.

* :mod:`~certdp.analyses.dispatch` — the one router (δ(ε), ε(δ), GDP) used by
  the CLI, the audit and the API;
* :mod:`~certdp.analyses.gdpt` — GDPT and certified μ (Liu, Sun, Jiang, Kong 2022; Liu et al. 2022 §4);
* :mod:`~certdp.analyses.limits` — exact GDP identification (Liu et al. 2022 Thm 4.3/4.4);
* :mod:`~certdp.analyses.accountants` — certified φ and PLD accountants, DP-SGD;
* :mod:`~certdp.analyses.fdp` — f-DP reporting from a PLD (Gomez et al. 2025, Gomez et al. 2025);
* :mod:`~certdp.analyses.noise_refinement` — σ refinement (Liu et al. 2022 App. C);
* :mod:`~certdp.analyses.prdp` — ADP vs PrDP (Guingona et al. 2023).

Submodules are imported on demand; this package imports nothing.
"""

"""The two cell inequalities of GDP certificates, shared by the search
(:mod:`certdp.analyses.gdpt`) and the checker (trusted kernel: they live in the checker's own
:mod:`certdp.verifier.gauss`, the one owner; the compiled profile P, P' comes from
:func:`certdp.mechanisms.profile_functions.profile_functions`).

A cell [a, b] proves δ_A <= δ_μ on [a, b] if either test holds:

* first order (monotone cell argument, Liu et al. 2022 Thm 4.6 / DESIGN.md):
  upper(δ_A(a)) <= lower(δ_μ(b)), or δ_A(a) = 0.  Uses δ_A non-increasing and
  δ_μ decreasing.
* second order (mean value): with f = δ_μ − P, where P is the mechanism's
  profile expression (``profile()``, an upper bound of δ_A, non-increasing):
  f(a) >= 0 and f(a) + min(0, inf f'([a, b]))·(b − a) >= 0, where
  f' = δ_μ' − P' is enclosed by interval evaluation on the ball [a, b]
  (δ_μ'(ε) = −e^ε Φ(−ε/μ − μ/2)).  Sound because for non-increasing P,
  P(ε) − P(a) <= ∫_a^ε P' (Lebesgue; jumps of a monotone P only go down), so
  f(ε) >= f(a) + (ε − a)·inf f'.  sympy writes derivatives of Max/Min with
  Heaviside, which we evaluate as the step 0/1 (union on a tie).

The second test costs two interval evaluations but needs cells only of size
~√(margin) near the maximiser of the GDPT instead of ~margin.
"""

from certdp.verifier.cells import (  # noqa: F401  (re-exported: one owner)
    MIN_CELL_SLACK,
    CellBudgetExceeded,
    _unresolvable,
    delta_mu_slope_ball,
    prove_on_cells,
    second_order_holds,
)

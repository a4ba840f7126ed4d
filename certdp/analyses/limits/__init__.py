"""Exact asymptotics of privacy profiles and GDP identification (Liu et al. 2022 Thm 4.4).

Public API: :func:`identify` -> :class:`Identification` (verdict, exact L,
√L, certified tail μ, vanishing point, proof trace of :class:`Step`).
"""

from certdp.analyses.limits.identify import Identification, Step, identify

__all__ = ["Identification", "Step", "identify"]

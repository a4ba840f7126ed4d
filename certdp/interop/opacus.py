"""An opacus-style step accountant with certified answers (no torch needed).

``acc.step(noise_multiplier=σ, sample_rate=q)`` records one DP-SGD step
(consecutive identical steps are merged into ``history`` entries
``(noise_multiplier, sample_rate, steps)`` as in opacus' ``RDPAccountant`` /
``PRVAccountant``); ``acc.get_epsilon(delta)`` returns a certified **upper
bound** on ε (the certified enclosure's upper end rounded up to a float),
computed by certdp's one composition route
(:func:`certdp.analyses.dispatch.composition_accountant`, the certified PLD
accountant here: every step is a Poisson-subsampled Gaussian, Gomez et al. 2025
Thm A.7; rate 1 steps are plain Gaussians) for the heterogeneous composition of
all steps, under the add-or-remove-one relation with sensitivity 1 (the clipping
norm), as opacus assumes.

Numbers are exact: a float noise multiplier or rate is the dyadic rational it
stores, and strings such as ``"1/256"`` are accepted.  ``state_dict`` /
``load_state_dict`` keep the history with exact numbers (strings), so a
restored accountant answers the same; ``load_state_dict`` also accepts the
state dict of an opacus accountant (its history has the same shape), which gives
a certified ε for a training run accounted by opacus.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from certdp.errors import InputError
from certdp.numerics.exact import exact, fraction_to_str


def _step_params(noise_multiplier: object, sample_rate: object) -> tuple[Fraction, Fraction]:
    s = exact(noise_multiplier, "noise_multiplier")
    q = exact(sample_rate, "sample_rate")
    if s <= 0 or not 0 < q <= 1:
        raise InputError(f"need noise_multiplier > 0 and 0 < sample_rate <= 1, got {noise_multiplier}, {sample_rate}")
    return s, q


class StepAccountant:
    """Certified privacy of a sequence of DP-SGD steps (opacus-style interface)."""

    def __init__(self) -> None:
        self.history: list[tuple[Fraction, Fraction, int]] = []
        self._cache: tuple[tuple, Any] | None = None  # (history snapshot, composition accountant)

    def __len__(self) -> int:
        """Number of history entries (as opacus' accountants)."""
        return len(self.history)

    @classmethod
    def mechanism(cls) -> str:
        return "certdp-pld"

    def step(self, *, noise_multiplier: object, sample_rate: object) -> None:
        """Record one step: Poisson sampling at ``sample_rate``, Gaussian noise of
        standard deviation ``noise_multiplier`` times the clipping norm."""
        s, q = _step_params(noise_multiplier, sample_rate)
        if self.history and self.history[-1][:2] == (s, q):
            self.history[-1] = (s, q, self.history[-1][2] + 1)
        else:
            self.history.append((s, q, 1))

    def specs(self) -> list[tuple[str, int]]:
        """The history as certdp (spec, count) pairs (``certdp account --mechanism SPEC --times K``)."""
        out = []
        for s, q, n in self.history:
            g = f"gaussian(sigma={fraction_to_str(s)})"
            out.append((g if q == 1 else f"subsample({g}, rate={fraction_to_str(q)})", n))
        return out

    def _accountant(self) -> Any:
        from certdp.analyses.dispatch import composition_accountant  # noqa: PLC0415
        from certdp.mechanisms.spec import parse_spec  # noqa: PLC0415

        key = tuple(self.history)
        if self._cache is None or self._cache[0] != key:
            self._cache = (key, composition_accountant([(parse_spec(g), n) for g, n in self.specs()])[0])
        return self._cache[1]

    def epsilon(self, delta: object) -> Any:
        """The certified enclosure of ε at δ (0 < δ < 1)."""
        from certdp.numerics.enclosure import Enclosure  # noqa: PLC0415

        if not self.history:
            exact(delta, "delta")
            return Enclosure.exact(0)
        return self._accountant().epsilon(delta)

    def get_epsilon(self, delta: float, **_: Any) -> float:
        """A certified upper bound on ε at δ (a float rounded up); opacus'
        keyword arguments (``alphas``, ``eps_error``, …) are accepted and ignored."""
        return self.epsilon(delta).upper_float()

    def state_dict(self, destination: dict | None = None) -> dict:
        """``{"history": [[noise, rate, steps], ...], "mechanism": "certdp-pld"}`` with exact strings."""
        out = {} if destination is None else destination
        out["history"] = [[fraction_to_str(s), fraction_to_str(q), n] for s, q, n in self.history]
        out["mechanism"] = self.mechanism()
        return out

    def load_state_dict(self, state_dict: dict) -> None:
        """Restore a history saved by :meth:`state_dict` or by an opacus accountant
        (entries ``(noise_multiplier, sample_rate, steps)``; floats are taken exactly)."""
        hist = state_dict.get("history") if isinstance(state_dict, dict) else None
        if not isinstance(hist, list):
            raise InputError("state must be a dict with a 'history' list")
        new = []
        for entry in hist:
            if not (isinstance(entry, (list, tuple)) and len(entry) == 3 and isinstance(entry[2], int)
                    and not isinstance(entry[2], bool) and entry[2] >= 1):
                raise InputError(f"bad history entry {entry!r}: expected (noise_multiplier, sample_rate, steps >= 1)")
            s, q = _step_params(entry[0], entry[1])
            new.append((s, q, entry[2]))
        self.history = new

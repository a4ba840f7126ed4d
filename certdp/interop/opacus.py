"""An opacus-style step accountant with certified answers (no torch needed).

``acc.step(noise_multiplier=σ, sample_rate=q)`` records one DP-SGD step
(consecutive identical steps are merged into ``history`` entries
``(noise_multiplier, sample_rate, steps)`` as in opacus' accountants);
``acc.get_epsilon(delta)`` returns a certified **upper bound** on ε (the
certified enclosure's upper end rounded up to a float), computed by certdp's
PLD accountant for the heterogeneous composition of all steps (rate 1 steps are
plain Gaussians).  ``state_dict`` / ``load_state_dict`` keep the history with
exact numbers (strings), so a restored accountant answers the same.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from certdp.errors import InputError
from certdp.numerics.exact import exact, fraction_to_str


class StepAccountant:
    """Certified privacy of a sequence of DP-SGD steps (opacus-style interface)."""

    def __init__(self) -> None:
        self.history: list[tuple[Fraction, Fraction, int]] = []

    def __len__(self) -> int:
        return len(self.history)

    @staticmethod
    def mechanism() -> str:
        return "certdp-pld"

    def step(self, *, noise_multiplier: object, sample_rate: object) -> None:
        s = exact(noise_multiplier, "noise_multiplier")
        q = exact(sample_rate, "sample_rate")
        if s <= 0 or not 0 < q <= 1:
            raise InputError(f"need noise_multiplier > 0 and 0 < sample_rate <= 1, got {noise_multiplier}, {sample_rate}")
        if self.history and self.history[-1][:2] == (s, q):
            self.history[-1] = (s, q, self.history[-1][2] + 1)
        else:
            self.history.append((s, q, 1))

    def _items(self) -> list[tuple[Any, int]]:
        from certdp.mechanisms.spec import parse_spec  # noqa: PLC0415

        out = []
        for s, q, n in self.history:
            g = f"gaussian(sigma={fraction_to_str(s)})"
            out.append((parse_spec(g if q == 1 else f"subsample({g}, rate={fraction_to_str(q)})"), n))
        return out

    def epsilon(self, delta: object) -> Any:
        """The certified enclosure of ε at δ."""
        from certdp.analyses.dispatch import composition_accountant  # noqa: PLC0415
        from certdp.numerics.enclosure import Enclosure  # noqa: PLC0415

        if not self.history:
            return Enclosure.exact(0)
        return composition_accountant(self._items())[0].epsilon(delta)

    def get_epsilon(self, delta: float, **_: Any) -> float:
        """A certified upper bound on ε at δ (a float rounded up)."""
        return self.epsilon(Fraction(delta) if isinstance(delta, float) else delta).upper_float()

    def state_dict(self) -> dict:
        return {"history": [[fraction_to_str(s), fraction_to_str(q), n] for s, q, n in self.history]}

    def load_state_dict(self, state: dict) -> None:
        hist = state.get("history") if isinstance(state, dict) else None
        if not isinstance(hist, list):
            raise InputError("state must be a dict with a 'history' list")
        new = []
        for entry in hist:
            if not (isinstance(entry, (list, tuple)) and len(entry) == 3 and isinstance(entry[2], int) and entry[2] >= 1):
                raise InputError(f"bad history entry {entry!r}")
            new.append((exact(entry[0], "noise_multiplier"), exact(entry[1], "sample_rate"), entry[2]))
        self.history = new

"""certdp's certified accountant for opacus (and an opacus-style step accountant without torch).

:class:`StepAccountant` (no torch) records DP-SGD steps: ``acc.step(noise_multiplier=σ,
sample_rate=q)`` (consecutive identical steps are merged into ``history`` entries
``(noise_multiplier, sample_rate, steps)`` as in opacus' ``RDPAccountant`` /
``PRVAccountant``); ``acc.get_epsilon(delta)`` returns a certified **upper bound** on
ε (the certified enclosure's upper end rounded up to a float).  A history of one
entry is answered by the route of ``certdp dpsgd`` (the certified PLD accountant,
refined to its default width; rate 1 is the exact Gaussian composition), a longer
one by certdp's one composition route
(:func:`certdp.analyses.dispatch.composition_accountant`): every step is a
Poisson-subsampled Gaussian (Gomez et al. 2025 Thm A.7) under the add-or-remove-one
relation with sensitivity 1 (the clipping norm), as opacus assumes.

:data:`CertdpAccountant` (``from certdp.interop.opacus import CertdpAccountant``;
imports opacus and torch) is the same accountant as a subclass of opacus'
``IAccountant`` (opacus 1.6: ``opacus.accountants.accountant.IAccountant``),
registered with opacus' ``register_accountant`` under its mechanism name
``"certdp-pld"``.  opacus then accepts it by instance (``PrivacyEngine().accountant =
CertdpAccountant()``) and by name (``PrivacyEngine(accountant="certdp-pld")``), and
``make_private_with_epsilon`` calibrates the noise through it: opacus'
``get_noise_multiplier(..., accountant="certdp-pld")`` builds one with
``create_accountant`` and bisects σ on its certified upper ends, so the σ it returns
meets the target (ε, δ) for the number of steps opacus computes
(``int(epochs / sample_rate)``, which opacus truncates).
:func:`accountant_class` builds the class on any ``IAccountant``-like base (the
contract tests use a stand-in without torch).

Numbers are exact: a float noise multiplier or rate is the dyadic rational it
stores, and strings such as ``"1/256"`` are accepted; ``history`` may be assigned
(opacus' ``get_noise_multiplier`` does) and is validated on use.  ``state_dict``
has opacus' shape (``history``: a list of ``(noise_multiplier, sample_rate, steps)``
tuples, ``mechanism``), with a number as a float where the float is exact and as an
exact string (``"13/10"``) otherwise, so a restored accountant answers the same;
``load_state_dict`` also accepts the state dict of an opacus accountant (``rdp``,
``prv``, ``gdp``: same history shape), which gives a certified ε for a training run
accounted by opacus.
"""

from __future__ import annotations

from collections import OrderedDict
from fractions import Fraction
from typing import Any, Callable

from certdp.errors import InputError
from certdp.numerics.exact import exact, fraction_to_str

#: opacus' name of certdp's accountant (``PrivacyEngine(accountant=MECHANISM)``).
MECHANISM = "certdp-pld"


def _step_params(noise_multiplier: object, sample_rate: object) -> tuple[Fraction, Fraction]:
    s = exact(noise_multiplier, "noise_multiplier")
    q = exact(sample_rate, "sample_rate")
    if s <= 0 or not 0 < q <= 1:
        raise InputError(f"need noise_multiplier > 0 and 0 < sample_rate <= 1, got {noise_multiplier}, {sample_rate}")
    return s, q


def _entry(entry: object) -> tuple[Fraction, Fraction, int]:
    """One history entry ``(noise_multiplier, sample_rate, steps >= 1)`` with exact numbers."""
    if not (isinstance(entry, (list, tuple)) and len(entry) == 3 and isinstance(entry[2], int)
            and not isinstance(entry[2], bool) and entry[2] >= 1):
        raise InputError(f"bad history entry {entry!r}: expected (noise_multiplier, sample_rate, steps >= 1)")
    s, q = _step_params(entry[0], entry[1])
    return s, q, int(entry[2])


def _saved(x: Fraction) -> float | str:
    """A float where it is exactly ``x`` (opacus' history holds floats), else the exact string."""
    f = float(x)
    return f if Fraction(f) == x else fraction_to_str(x)


class StepAccountant:
    """Certified privacy of a sequence of DP-SGD steps (opacus' accountant interface, no torch)."""

    def __init__(self) -> None:
        self._history: list[tuple[Fraction, Fraction, int]] = []
        self._cache: dict[tuple, Any] = {}  # (history, δ) → enclosure; (history,) → composition accountant

    @property
    def history(self) -> list:
        """The entries ``(noise_multiplier, sample_rate, steps)`` (exact Fractions when
        recorded by :meth:`step`); assignable, as opacus' ``get_noise_multiplier`` does."""
        return self._history

    @history.setter
    def history(self, value: list) -> None:
        if not isinstance(value, list):
            raise InputError("history must be a list of (noise_multiplier, sample_rate, steps) entries")
        self._history = [_entry(e) for e in value]

    def _entries(self) -> tuple[tuple[Fraction, Fraction, int], ...]:
        return tuple(_entry(e) for e in self._history)  # entries appended by hand are checked here

    def __len__(self) -> int:
        """Number of history entries (as opacus' accountants)."""
        return len(self._history)

    @classmethod
    def mechanism(cls) -> str:
        return MECHANISM

    def step(self, *, noise_multiplier: object, sample_rate: object) -> None:
        """Record one step: Poisson sampling at ``sample_rate``, Gaussian noise of
        standard deviation ``noise_multiplier`` times the clipping norm."""
        s, q = _step_params(noise_multiplier, sample_rate)
        if self._history and _entry(self._history[-1])[:2] == (s, q):
            self._history[-1] = (s, q, self._history[-1][2] + 1)
        else:
            self._history.append((s, q, 1))

    def specs(self) -> list[tuple[str, int]]:
        """The history as certdp (spec, count) pairs (``certdp account --mechanism SPEC --times K``)."""
        out = []
        for s, q, n in self._entries():
            g = f"gaussian(sigma={fraction_to_str(s)})"
            out.append((g if q == 1 else f"subsample({g}, rate={fraction_to_str(q)})", n))
        return out

    def epsilon(self, delta: object) -> Any:
        """The certified enclosure of ε at δ (0 < δ < 1)."""
        from certdp.numerics.enclosure import Enclosure  # noqa: PLC0415

        entries = self._entries()
        if not entries:
            exact(delta, "delta")
            return Enclosure.exact(0)
        key = (entries, exact(delta, "delta"))
        if key not in self._cache:
            if len(self._cache) > 64:
                self._cache.clear()
            if len(entries) == 1:  # the route of `certdp dpsgd`: CLI, API and opacus agree
                from certdp.analyses.accountants.dpsgd import dpsgd  # noqa: PLC0415

                s, q, n = entries[0]
                self._cache[key] = dpsgd(s, q, n, delta=key[1]).eps
            else:
                self._cache[key] = self._accountant(entries).epsilon(key[1])
        return self._cache[key]

    def _accountant(self, entries: tuple) -> Any:
        from certdp.analyses.dispatch import composition_accountant  # noqa: PLC0415
        from certdp.mechanisms.spec import parse_spec  # noqa: PLC0415

        if (entries,) not in self._cache:
            self._cache[(entries,)] = composition_accountant([(parse_spec(g), n) for g, n in self.specs()])[0]
        return self._cache[(entries,)]

    def get_epsilon(self, delta: float, *args: Any, **kwargs: Any) -> float:
        """A certified upper bound on ε at δ (a float rounded up); opacus' extra
        arguments (``alphas``, ``eps_error``, ``poisson``, …) are accepted and ignored."""
        return self.epsilon(delta).upper_float()

    def state_dict(self, destination: dict | None = None) -> dict:
        """opacus' shape: ``{"history": [(noise, rate, steps), ...], "mechanism": "certdp-pld"}``,
        numbers as floats where exact, else as exact strings."""
        out: dict = OrderedDict() if destination is None else destination
        out["history"] = [(_saved(s), _saved(q), n) for s, q, n in self._entries()]
        out["mechanism"] = self.mechanism()
        return out

    def load_state_dict(self, state_dict: dict) -> None:
        """Restore a history saved by :meth:`state_dict` or by an opacus accountant of any
        mechanism (entries ``(noise_multiplier, sample_rate, steps)``; floats are taken exactly)."""
        hist = state_dict.get("history") if isinstance(state_dict, dict) else None
        if not isinstance(hist, list):
            raise InputError("state must be a dict with a 'history' list")
        self.history = hist


def accountant_class(base: type) -> type:
    """:class:`StepAccountant` as a subclass of ``base``, opacus' ``IAccountant`` (whose
    abstract methods it implements; ``get_optimizer_hook_fn`` is inherited from opacus)."""

    class CertdpAccountant(StepAccountant, base):  # type: ignore[misc, valid-type]
        __doc__ = StepAccountant.__doc__

        def __init__(self) -> None:
            StepAccountant.__init__(self)

    CertdpAccountant.__module__ = __name__
    CertdpAccountant.__qualname__ = "CertdpAccountant"
    return CertdpAccountant


_OPACUS_CLASS: list[type] = []


def register() -> type:
    """Build the opacus ``IAccountant`` subclass and register it with opacus' registry
    under :data:`MECHANISM` (once; imports opacus and torch); returns the class."""
    if not _OPACUS_CLASS:
        try:
            from opacus.accountants import register_accountant  # noqa: PLC0415
            from opacus.accountants.accountant import IAccountant  # noqa: PLC0415
        except ImportError as err:
            raise ImportError(f"certdp's opacus accountant needs opacus (pip install 'certdp[opacus]'): {err}") \
                from None
        cls = accountant_class(IAccountant)
        register_accountant(MECHANISM, cls, force=True)
        _OPACUS_CLASS.append(cls)
    return _OPACUS_CLASS[0]


def __getattr__(name: str) -> Callable[..., Any]:
    if name == "CertdpAccountant":
        return register()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

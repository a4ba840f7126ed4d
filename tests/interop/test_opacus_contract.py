"""certdp's opacus accountant against opacus' accountant contract, without torch (issue 38).

opacus 1.6 cannot be imported without torch, so the default run checks the contract
on a stand-in that copies what opacus' code does with an accountant
(``opacus/accountants/accountant.py``, ``registry.py``, ``utils.py`` and
``privacy_engine.py`` of opacus 1.6.0): the abstract ``IAccountant`` (abstract
``__init__``, ``step``, ``get_epsilon``, ``__len__``, classmethod ``mechanism``;
concrete ``get_optimizer_hook_fn``, ``state_dict``, ``load_state_dict``), the
registry's ``create_accountant(mechanism=name)`` (instantiates with no
arguments), ``get_noise_multiplier`` (assigns ``history`` and bisects σ on
``get_epsilon``) and the step hook the DPOptimizer calls.  The opt-in test
``tests/interop/test_opacus_training.py`` (``-m opacus``) runs the same accountant
under real opacus and checks that this stand-in's abstract methods are opacus'.

Independent truth: the certified ε is compared with certdp's own dpsgd route (a
wiring check) and, for the calibrated σ, the target is checked by a separate
certified computation at that σ.
"""

from __future__ import annotations

import abc
import sys
from collections import OrderedDict
from copy import deepcopy
from fractions import Fraction
from types import SimpleNamespace

import pytest

from certdp.analyses.accountants.dpsgd import dpsgd
from certdp.errors import InputError
from certdp.interop.opacus import MECHANISM, StepAccountant, accountant_class


class FakeIAccountant(abc.ABC):
    """opacus 1.6 ``IAccountant``, copied (the hook's DPOptimizer argument is duck-typed)."""

    @abc.abstractmethod
    def __init__(self):
        self.history = []

    @abc.abstractmethod
    def step(self, *, noise_multiplier: float, sample_rate: float): ...

    @abc.abstractmethod
    def get_epsilon(self, delta: float, *args, **kwargs) -> float: ...

    @abc.abstractmethod
    def __len__(self) -> int: ...

    @classmethod
    @abc.abstractmethod
    def mechanism(cls) -> str: ...

    def get_optimizer_hook_fn(self, sample_rate: float):
        def hook_fn(optim):
            self.step(noise_multiplier=optim.noise_multiplier, sample_rate=sample_rate * optim.accumulated_iterations)

        return hook_fn

    def state_dict(self, destination=None):
        if destination is None:
            destination = OrderedDict()
        destination["history"] = deepcopy(self.history)
        destination["mechanism"] = self.mechanism()
        return destination


_REGISTRY: dict[str, type] = {}


def register_accountant(mechanism, accountant, force=False):  # opacus.accountants.registry
    if mechanism in _REGISTRY and not force:
        raise ValueError(f"Accountant for mechanism {mechanism} is already registered")
    _REGISTRY[mechanism] = accountant


def create_accountant(mechanism):
    if mechanism in _REGISTRY:
        return _REGISTRY[mechanism]()
    raise ValueError(f"Unexpected accounting mechanism: {mechanism}")


def get_noise_multiplier(*, target_epsilon, target_delta, sample_rate, epochs=None, steps=None,
                         accountant="rdp", epsilon_tolerance=0.01, **kwargs):  # opacus.accountants.utils
    if steps is None:
        steps = int(epochs / sample_rate)
    eps_high = float("inf")
    accountant = create_accountant(mechanism=accountant)
    sigma_low, sigma_high = 0, 10
    while eps_high > target_epsilon:
        sigma_high = 2 * sigma_high
        accountant.history = [(sigma_high, sample_rate, steps)]
        eps_high = accountant.get_epsilon(delta=target_delta, **kwargs)
    while target_epsilon - eps_high > epsilon_tolerance:
        sigma = (sigma_low + sigma_high) / 2
        accountant.history = [(sigma, sample_rate, steps)]
        eps = accountant.get_epsilon(delta=target_delta, **kwargs)
        if eps < target_epsilon:
            sigma_high, eps_high = sigma, eps
        else:
            sigma_low = sigma
    return sigma_high


@pytest.fixture(scope="module")
def cls():
    c = accountant_class(FakeIAccountant)
    register_accountant(MECHANISM, c)
    return c


def test_is_a_concrete_iaccountant_registered_by_name(cls):
    acc = create_accountant(mechanism=MECHANISM)  # opacus: PrivacyEngine(accountant="certdp-pld")
    assert isinstance(acc, FakeIAccountant) and isinstance(acc, StepAccountant)
    assert not getattr(cls, "__abstractmethods__", None)
    assert acc.mechanism() == cls.mechanism() == "certdp-pld" and len(acc) == 0 and acc.history == []
    assert acc.get_epsilon(1e-5) == 0.0


def test_the_optimizer_hook_records_steps(cls):
    # what make_private attaches: the hook called after every optimizer step
    acc = cls()
    hook = acc.get_optimizer_hook_fn(sample_rate=1 / 235)
    optim = SimpleNamespace(noise_multiplier=1.1, accumulated_iterations=1)
    for _ in range(300):
        hook(optim)
    assert acc.history == [(Fraction(1.1), Fraction(1 / 235), 300)] and len(acc) == 1
    eps = acc.get_epsilon(1e-5)  # opacus: pe.get_epsilon(delta) → accountant.get_epsilon(delta)
    direct = dpsgd(1.1, 1 / 235, 300, delta=1e-5).eps
    assert isinstance(eps, float) and eps == direct.upper_float() and eps >= direct.hi
    # opacus' keyword arguments are accepted
    assert acc.get_epsilon(delta=1e-5, poisson=True) == eps
    # gradient accumulation over 2 virtual steps: one step at twice the rate, a new history entry
    hook(SimpleNamespace(noise_multiplier=1.1, accumulated_iterations=2))
    assert acc.history[1] == (Fraction(1.1), 2 * Fraction(1 / 235), 1) and len(acc) == 2


def test_get_noise_multiplier_by_name_is_certified(cls):
    # opacus' make_private_with_epsilon → get_noise_multiplier(accountant=pe.accountant.mechanism())
    sigma = get_noise_multiplier(target_epsilon=2.0, target_delta=1e-5, sample_rate=0.01, epochs=1,
                                 accountant=MECHANISM, epsilon_tolerance=0.05)
    assert isinstance(sigma, float)
    at = dpsgd(sigma, 0.01, 100, delta=1e-5).eps
    assert at.hi <= 2.0 and at.hi > 1.95  # meets the target, within the tolerance (certified ends)
    lower = dpsgd(sigma * 0.97, 0.01, 100, delta=1e-5).eps
    assert lower.lo > at.hi  # less noise is less private: the bisection had something to find


def test_state_dict_has_opacus_shape_and_round_trips(cls):
    acc = cls()
    for _ in range(3):
        acc.step(noise_multiplier=1.1, sample_rate=256 / 60000)
    acc.step(noise_multiplier="13/10", sample_rate="1/3")
    state = acc.state_dict()
    assert isinstance(state, OrderedDict) and list(state) == ["history", "mechanism"]
    assert state["history"] == [(1.1, 256 / 60000, 3), ("13/10", "1/3", 1)]
    assert state["mechanism"] == "certdp-pld"
    again = cls()
    again.load_state_dict(deepcopy(state))
    assert again.history == acc.history and again.get_epsilon(1e-5) == acc.get_epsilon(1e-5)
    # an opacus RDP accountant's state: the same history shape, another mechanism name
    rdp = OrderedDict(history=[(1.1, 256 / 60000, 3), (1.3, 1 / 3, 1)], mechanism="rdp")
    other = cls()
    other.load_state_dict(rdp)
    assert other.history == [(Fraction(1.1), Fraction(256 / 60000), 3), (Fraction(1.3), Fraction(1 / 3), 1)]


def test_assigned_history_is_exact_and_checked(cls):
    acc = cls()
    acc.history = [(2.0, 0.5, 10)]  # as get_noise_multiplier assigns it
    assert acc.history == [(2, Fraction(1, 2), 10)]
    for bad in ([(0, 0.5, 1)], [(1.0, 1.5, 1)], [(1.0, 0.5, 0)], [(1.0, 0.5)], "x", [(1.0, 0.5, 2.0)]):
        with pytest.raises(InputError):
            acc.history = bad
    acc.history.append((1.0, 2.0, 1))  # appended by hand: refused when used
    with pytest.raises(InputError):
        acc.get_epsilon(1e-5)


def test_the_torch_free_accountant_keeps_working_without_opacus():
    acc = StepAccountant()
    acc.step(noise_multiplier=1, sample_rate=1)
    assert acc.mechanism() == "certdp-pld" and acc.state_dict()["history"] == [(1.0, 1.0, 1)]


def test_without_opacus_the_class_says_what_is_missing():
    # a subprocess in which `import opacus` fails, whether or not opacus is installed
    import subprocess  # noqa: PLC0415

    script = "\n".join([
        "import sys", "sys.modules['opacus'] = None",
        "from certdp.interop.opacus import StepAccountant",
        "StepAccountant().step(noise_multiplier=1, sample_rate=0.5)",
        "try:",
        "    from certdp.interop.opacus import CertdpAccountant",
        "except ImportError as err:",
        "    assert \"pip install 'certdp[opacus]'\" in str(err), err",
        "else:",
        "    raise SystemExit('imported without opacus')",
        "assert 'torch' not in sys.modules"])
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr

"""certdp's accountant inside real opacus (opt-in: ``python -m pytest -m opacus tests/interop``).

Needs torch and opacus (``pip install 'certdp[opacus]'``; a CPU build of torch is
enough); skipped without them, and deselected from the default run (marker
``opacus``) because importing torch and training take seconds.  A tiny model is
trained for a few steps under opacus' ``PrivacyEngine`` with certdp's
``IAccountant``, handed over by instance and by name, through ``make_private`` and
``make_private_with_epsilon``; ``get_epsilon`` must equal certdp's own DP-SGD route
for the history opacus recorded (a wiring check), and the calibrated σ is checked
by a separate certified computation.
"""

from __future__ import annotations

import inspect
import warnings
from fractions import Fraction
from types import SimpleNamespace

import pytest

from certdp.analyses.accountants.dpsgd import dpsgd

pytestmark = pytest.mark.opacus

N, B = 64, 16  # 4 batches per epoch: opacus samples at q = 1/4 with Poisson sampling


@pytest.fixture(scope="module")
def op():
    """torch and opacus, imported by the tests and not at collection: collecting this
    module in the default run (where it is deselected) must not import torch."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("opacus")
    from opacus import PrivacyEngine  # noqa: PLC0415
    from opacus.accountants import create_accountant  # noqa: PLC0415
    from opacus.accountants.accountant import IAccountant  # noqa: PLC0415
    from opacus.accountants.utils import get_noise_multiplier  # noqa: PLC0415

    from certdp.interop.opacus import CertdpAccountant  # noqa: PLC0415  (registers "certdp-pld")

    return SimpleNamespace(torch=torch, PrivacyEngine=PrivacyEngine, create_accountant=create_accountant,
                           IAccountant=IAccountant, get_noise_multiplier=get_noise_multiplier,
                           CertdpAccountant=CertdpAccountant)


def _task(torch, seed: int = 0):
    torch.manual_seed(seed)
    x = torch.randn(N, 5)
    y = (x[:, 0] > 0).long()
    model = torch.nn.Sequential(torch.nn.Linear(5, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2))
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=B)
    return model, torch.optim.SGD(model.parameters(), lr=0.1), loader


def _train(torch, model, optimizer, loader, epochs: int = 1) -> int:
    steps = 0
    for _ in range(epochs):
        for xb, yb in loader:
            optimizer.zero_grad()
            torch.nn.functional.cross_entropy(model(xb), yb).backward()
            optimizer.step()
            steps += 1
    return steps


def test_the_contract_stand_in_matches_opacus(op):
    from tests.interop import test_opacus_contract as stand_in  # noqa: PLC0415

    def names(f):
        return list(inspect.signature(f).parameters)

    assert stand_in.FakeIAccountant.__abstractmethods__ == op.IAccountant.__abstractmethods__
    for name in ("get_optimizer_hook_fn", "state_dict", "get_epsilon", "step"):
        assert names(getattr(stand_in.FakeIAccountant, name)) == names(getattr(op.IAccountant, name))
    assert names(stand_in.get_noise_multiplier) == names(op.get_noise_multiplier)


def test_real_iaccountant_by_name_and_instance(op):
    acc = op.create_accountant(mechanism="certdp-pld")
    assert isinstance(acc, op.IAccountant) and type(acc) is op.CertdpAccountant
    assert type(op.PrivacyEngine(accountant="certdp-pld").accountant) is op.CertdpAccountant


def test_make_private_trains_and_get_epsilon_is_certified(op, tmp_path):
    model, optimizer, loader = _task(op.torch)
    pe = op.PrivacyEngine()
    pe.accountant = op.CertdpAccountant()  # by instance
    model, optimizer, loader = pe.make_private(module=model, optimizer=optimizer, data_loader=loader,
                                               noise_multiplier=1.1, max_grad_norm=1.0)
    assert _train(op.torch, model, optimizer, loader, epochs=2) == 8
    assert pe.accountant.history == [(Fraction(1.1), Fraction(1, 4), 8)]
    eps = pe.get_epsilon(1e-5)
    certified = dpsgd(1.1, Fraction(1, 4), 8, delta=1e-5).eps
    assert eps == certified.upper_float() and certified.lo > 0
    # checkpoints go through the accountant's state_dict / load_state_dict
    path = tmp_path / "ckpt.pt"
    pe.save_checkpoint(path=path, module=model)
    pe2 = op.PrivacyEngine(accountant="certdp-pld")
    pe2.load_checkpoint(path=path, module=model)
    assert pe2.accountant.history == pe.accountant.history and pe2.get_epsilon(1e-5) == eps


def test_make_private_with_epsilon_calibrates_through_certdp(op):
    model, optimizer, loader = _task(op.torch)
    pe = op.PrivacyEngine(accountant="certdp-pld")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # opacus' secure-RNG notice
        model, optimizer, loader = pe.make_private_with_epsilon(
            module=model, optimizer=optimizer, data_loader=loader, target_epsilon=3.0, target_delta=1e-5,
            epochs=3, max_grad_norm=1.0)
    sigma = optimizer.noise_multiplier
    assert sigma == op.get_noise_multiplier(target_epsilon=3.0, target_delta=1e-5, sample_rate=0.25, epochs=3,
                                            accountant="certdp-pld")
    assert _train(op.torch, model, optimizer, loader, epochs=3) == 12
    assert pe.accountant.history == [(Fraction(sigma), Fraction(1, 4), 12)]
    eps = pe.get_epsilon(1e-5)
    assert 2.99 <= eps < 3.0  # opacus' bisection stops within 0.01 below the target (certified upper ends)
    assert dpsgd(sigma, Fraction(1, 4), 12, delta=1e-5).eps.hi < 3  # checked again by the dpsgd route

"""subset(M, rate=m/n): sampling without replacement with replace-one dominance for M
(seed 002 Thm 11(2)); for symmetric pairs the pairs are the Poisson ones."""

from __future__ import annotations

import pytest

from certdp.analyses.dispatch import composition_accountant, delta_of
from certdp.errors import InputError
from certdp.mechanisms import parse_spec


def test_subset_sampling_has_the_poisson_numbers_for_symmetric_pairs():
    for inner in ("gaussian(sigma=1)", "laplace(scale=1)", "pure_dp(eps=1)"):
        a = delta_of(parse_spec(f"compose(subset({inner}, rate=1/10), k=5)"), "1/2").enclosure
        b = delta_of(parse_spec(f"compose(subsample({inner}, rate=1/10), k=5)"), "1/2").enclosure
        assert a.lo_exact == b.lo_exact and a.hi_exact == b.hi_exact
        one = delta_of(parse_spec(f"subset({inner}, rate=1/10)"), "1/2").enclosure
        poi = delta_of(parse_spec(f"subsample({inner}, rate=1/10)"), "1/2").enclosure
        assert one.lo_exact == poi.lo_exact and one.hi_exact == poi.hi_exact


def test_mixed_sampling_schemes_are_refused():
    with pytest.raises(InputError, match="cannot be nested"):
        composition_accountant([(parse_spec("subset(subsample(laplace(scale=1), rate=1/2), rate=1/10)"), 3)])
    with pytest.raises(InputError, match="cannot be nested"):
        composition_accountant([(parse_spec("subset(subsample(gaussian(sigma=1), rate=1/2), rate=1/10)"), 3)])


def test_subset_is_listed_with_its_relation():
    from certdp.mechanisms.catalog import CATALOG

    assert "replace-one" in CATALOG["subset"].description

"""The registry's table against the classes it names: one set of facts, declared twice only
because choosing a provider must not import it."""

import pytest

from worker.providers import registry
from worker.providers.base import Provider, ProviderSpec


@pytest.mark.parametrize("ptype", sorted(registry.BUILTINS))
def test_each_builtin_class_declares_what_its_row_says(ptype):
    row = registry.BUILTINS[ptype]
    cls = registry.load_class(ptype)
    assert issubclass(cls, Provider)
    assert frozenset(cls.tools) == row.tools
    assert bool(cls.needs_key) == (row.key_env is not None)
    if "search" in row.tools:
        assert frozenset(cls.verticals) == row.verticals


def test_the_auto_order_and_fallbacks_come_from_the_table():
    assert registry.KEYED == ("exa", "brave")
    assert "search" in registry.BUILTINS[registry.SEARCH_FALLBACK].tools
    assert "fetch" in registry.BUILTINS[registry.FETCH_FALLBACK].tools
    assert registry.BUILTINS[registry.SEARCH_FALLBACK].key_env is None


def test_search_concurrency_option_wins_and_bad_values_fall_back():
    assert registry.search_concurrency(ProviderSpec("d", "ddgs")) == 5
    assert registry.search_concurrency(ProviderSpec("b", "brave", options={"concurrency": 2})) == 2
    assert registry.search_concurrency(ProviderSpec("m", "mine:Cls", options={"concurrency": "x"})) == 5
    assert registry.engine_circuits(ProviderSpec("d", "ddgs")) and not registry.engine_circuits(
        ProviderSpec("e", "exa")
    )

"""Scopes in the catalog: what a design's ``Scopes`` says reaches the generated spec and the
catalog entry, and a catalog whose scopes were edited into nonsense is refused by name."""

from __future__ import annotations

import pytest
from tooldesign.contract.catalog import CatalogError, CatalogTool, catalog_entry, fingerprinted
from tooldesign.contract.scopes import missing_scopes, needed_scopes, scope_problem


def test_the_generated_spec_and_catalog_carry_a_tools_scopes_and_read_them_back() -> None:
    from gen.assistant.toolsets.devices.specs import GET_DEVICE_SPEC, RESTART_DEVICE_SPEC

    assert RESTART_DEVICE_SPEC.scopes == ("devices:write",)
    assert GET_DEVICE_SPEC.scopes == ()
    entry = catalog_entry(RESTART_DEVICE_SPEC)
    assert entry["scopes"] == ["devices:write"]
    assert "scopes" not in catalog_entry(GET_DEVICE_SPEC)  # anyone may call it: no key
    assert CatalogTool.from_entry(entry).scopes == ("devices:write",)


@pytest.mark.parametrize(
    ("scopes", "problem"),
    [
        ("devices:write", "'scopes' must be a list of scope strings"),
        ([""], "'scopes': a scope cannot be empty"),
        (["a b"], "'scopes': scope 'a b' is not an OAuth scope token"),
        ([7], "'scopes': a scope is a string, not int 7"),
    ],
)
def test_a_bad_scopes_key_is_named(scopes: object, problem: str) -> None:
    from gen.assistant.toolsets.devices.specs import RESTART_DEVICE_SPEC

    entry = fingerprinted({**catalog_entry(RESTART_DEVICE_SPEC), "scopes": scopes})
    with pytest.raises(CatalogError) as caught:
        CatalogTool.from_entry(entry)
    assert problem in str(caught.value)


def test_scope_tokens_follow_rfc_6749() -> None:
    for good in ("devices:write", "https://api.example.com/read", "a", "!#[]~"):
        assert scope_problem(good) is None, good
    for bad in ("", "a b", 'a"b', "a\\b", "é", "x" * 257, None):
        assert scope_problem(bad) is not None, bad


def test_needed_and_missing_scopes() -> None:
    assert needed_scopes(["b", "a"], ["a", "c"]) == ("a", "b", "c")
    assert missing_scopes(("a", "b", "c"), frozenset({"b"})) == ("a", "c")
    assert missing_scopes(("a",), frozenset({"a", "z"})) == ()

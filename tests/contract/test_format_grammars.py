"""Each format's grammar against its RFC's own cases, and the docs' table against the format table."""

from __future__ import annotations

import pytest
from tooldesign.contract.formats import BY_NAME, FORMATS

from tests.support import REPO
from tests.support.differential import NEAR_FORMATS, VALID_FORMATS

# Beyond the values the differential test draws from (tests/support/differential.py).
VALID = {
    "date-time": ["2026-01-31T09:30:00.1234567Z", "2026-12-31T23:59:59-00:00"],
    "duration": ["P4Y", "PT1M", "PT1H30M", "P0D", "P1Y2M"],
    "email": ["a.b.c@x-y.z", "!#$%&'*+-/=?^_`{|}~@example.com", "x@[tag:stuff]"],
    "uri": ["foo:", "a+b.c-d:rest", "http://u:p@h:8080/p?q=1&r#f", "http://[v1.x]/", "x:/a//b"],
    "ipv6": ["::1", "2001:0db8:0000:0000:0000:0000:0000:0001", "::ffff:0.0.0.0"],
    "hostname": ["a-b.c-d", "1.2.3.4.example", "xn--80ak6aa92e.com"],
}
INVALID = {
    "date-time": ["2026-01-31T23:59:60Z", "2026-01-31T09:30:00", "２０２６-01-31T09:30:00Z"],
    "date": ["2026-13-01", "2023-02-29", "2026-01-31T00:00:00Z"],
    "time": ["9:30:00Z", "09:30:00+24:00", "09:60:00Z"],
    "duration": ["P1Y2D", "PT", "P1.5D", "P٢Y", "p1d", "P1D2H"],
    "email": ["a@b@c", "a b@c", "x@[IPv6:zz]", "a" * 65 + "@x", ".a@b", "a.@b", 'a"b@c'],
    "uri": ["", ":x", "1http://x", "http://h/%zz", "http://[fe80::1%25eth0]/", "http://h/ a"],
    "uuid": ["123e4567-e89b-12d3-a456-42661417400", "g23e4567-e89b-12d3-a456-426614174000"],
    "ipv4": ["1.2.3.4.5", "١.2.3.4", " 1.2.3.4", "1.2.3.04"],
    "ipv6": ["1::2::3", ":::", "1:2:3:4:5:6:7:8:9", "١::"],
    "hostname": ["", "a..b", "a" * 64, "ex\u00e4mple.com", "_a.b"],
}


@pytest.mark.parametrize("fmt", [f.name for f in FORMATS])
def test_a_format_takes_what_its_rfc_allows_and_nothing_else(fmt: str) -> None:
    row = BY_NAME[fmt]
    for value in [*row.examples, *VALID_FORMATS[fmt], *VALID.get(fmt, [])]:
        assert row.valid(value), f"{fmt}: {value!r} is one ({row.rfc})"
    for value in [*NEAR_FORMATS[fmt], *INVALID.get(fmt, [])]:
        assert not row.valid(value), f"{fmt}: {value!r} is not one ({row.rfc})"


def test_a_grammar_takes_linear_time() -> None:
    # Near misses built to make a backtracking grammar stall: each is answered at once.
    for fmt in ("email", "uri", "hostname"):
        for value in ("a" * 50_000 + "!", "a-" * 25_000 + "!", "a." * 25_000 + "!"):
            assert not BY_NAME[fmt].valid(value)


def test_the_docs_table_is_the_format_table() -> None:
    page = (REPO / "docs" / "dsl.md").read_text(encoding="utf-8")
    for row in FORMATS:
        assert f"| `{row.name}` | {row.rfc} |" in page
        assert f"`{row.runtime_type}`" in page

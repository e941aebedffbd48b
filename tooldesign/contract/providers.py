"""The providers tools are exported to, and the forms each offers: one list that the exporters,
``tooldesign export`` and the format table (:mod:`~tooldesign.contract.formats`) read."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal, get_args

Provider = Literal["openai", "anthropic", "gemini", "mcp"]

PROVIDERS: tuple[Provider, ...] = get_args(Provider)
"""Every provider, in the order commands and messages list them."""

STRICT_PROVIDERS: tuple[Provider, ...] = ("openai", "anthropic")
"""The providers with a strict mode (the schema is enforced as the model generates)."""

APIS: Mapping[Provider, tuple[str, ...]] = {
    "openai": ("chat", "responses"),
    "gemini": ("parameters", "json_schema"),
}
"""The shapes a provider's export can take (``api=``), the first being the default."""

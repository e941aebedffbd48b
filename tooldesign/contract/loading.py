"""How a tool is loaded into a model's request (``Loading(...)`` in a design): one definition,
read by the evaluator (checked), the IR and the catalog (carried), the generated specs and the
provider exports (:class:`~tooldesign.runtime.providers.LoadingPlan`)."""

from __future__ import annotations

from typing import Literal, get_args

Loading = Literal["eager", "deferred"]
"""``"eager"``: the tool's definition is in every request; ``"deferred"``: the model finds it
through a tool search (the provider's, or the builtin ``search_tools``) and it is loaded then."""

LOADINGS: tuple[str, ...] = get_args(Loading)

LOADING_KEY = "loading"
"""The catalog entry's key for a deferred tool (left out for an eager one)."""

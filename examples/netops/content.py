"""What the design's prompts are bound to (``design/assistant.py``): functions of their typed
arguments, as the generated ``content`` modules call them."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gen.assistant.toolsets.sites.content import TriageSiteArguments


def triage_site(args: TriageSiteArguments) -> str:
    """The prompt ``triage_site``: how to look into an unhealthy site, quickly or thoroughly."""
    steps = "get_site, then list_devices with status offline"
    if args.depth == "thorough":
        steps += ", then check_reachability of each offline device and search_docs"
    return f"Site {args.site_id} looks unhealthy. Find out why: {steps}. Say what to do next."

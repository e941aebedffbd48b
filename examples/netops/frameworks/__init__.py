"""The example agent in the agent frameworks: one module per framework, each running the same
scripted conversation (``script``) over the generated toolsets, offline.

Run one from the repository root:  python -m examples.netops.agent --framework pydantic-ai
"""

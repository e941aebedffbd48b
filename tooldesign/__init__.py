"""tooldesign: design-first tools for LLM agents."""

__version__ = "0.1.0"

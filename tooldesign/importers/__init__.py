"""Importers: existing tools (Python tool modules, MCP servers) written as designs.

An importer reads its source into a :class:`~tooldesign.importers.draft.DraftDesign`; the
writer turns the draft into a design file that ``tooldesign gen`` accepts as it is. From then
on the design is the source of truth.
"""

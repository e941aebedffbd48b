"""Validation: what a model sends, and what a tool returns, checked against the design.

- ``codecs``: the payload and result codecs behind each generated ``codecs.py``;
- ``json_input``: arguments read as JSON (text parsed, a dict held to JSON's rules);
- ``field_issues``: pydantic's errors as :class:`~tooldesign.runtime.FieldIssue`s in the
  design's words; ``schema_issues``: the same for ``jsonschema``'s, for schemas kept verbatim;
- ``schema``: values rewritten as their schema says (optional nulls stripped, undeclared keys
  dropped, whole numbers made integers); schemas themselves are read through
  :mod:`tooldesign.jsonschema` (its one ``$ref`` resolver, its navigator);
- ``examples``: example arguments built from the fields' own examples.
"""

"""tooldesign: design-first tools for LLM agents.

A design flows one way, and the packages follow it::

    dsl → eval → ir → binding → codegen → runtime

- ``dsl`` — the functions a design file calls; they only record;
- ``eval`` — loading design files, building the IR from the records, validation, the phases;
- ``ir`` — the frozen model of an evaluated design, its walkers, issues and fingerprints;
- ``binding`` — reading the application's Python types and planning transforms (``BindTo``);
- ``codegen`` — views, the generated files, templates, one formatting run, the atomic write;
- ``runtime`` — what generated packages and applications run on: the user API, validation,
  provider exports, MCP serving, transports.

``contract`` is the base they all share: one definition of each contract that crosses stages
(the catalog format, annotations, formats, constraints, provider names, tool ids, locations,
user errors). It imports nothing else of tooldesign, the IR imports only it, and the runtime
never imports a stage that uses it. On top sit ``govern`` (fingerprints, diffs, targets),
``docsite`` (``tooldesign docs``), ``importers`` (code-first modules and MCP servers as
designs) and ``commands`` (one module per CLI command). ``tests/project/test_layers.py`` holds the
packages to these rules.
"""

__version__ = "0.1.0"

"""The JSON Schema dialect: the one home of what every stage knows of JSON Schema.

Designs are evaluated into JSON Schemas (2020-12), catalogs carry them, the runtime checks
values and explains failures by them, providers export them, and the diff, the reference pages
and the importers read them. What they share about the dialect itself lives here, once; this
package imports nothing else of tooldesign (:mod:`tooldesign.contract` states its contracts in
its words).

- :mod:`~tooldesign.jsonschema.keywords` — the keyword table (the types each keyword applies
  to, its kind, its pair, the noun of what it counts, which way it narrows, what it holds) and a
  name for each keyword: code writes ``K.MIN_LENGTH``, never ``"minLength"``;
- :mod:`~tooldesign.jsonschema.refs` — local ``$ref``\\ s: the one resolver (JSON Pointers, their
  escapes, chains and circles, keywords beside a reference);
- :mod:`~tooldesign.jsonschema.navigate` — reading a schema: its types and unions, the schemas
  inside it, and the navigator that walks it field by field;
- :mod:`~tooldesign.jsonschema.words` — constraints in words (``at least 2 characters``);
- :mod:`~tooldesign.jsonschema.text` — values, keys and field paths shown short, on one line.
"""

"""Code generation: the validated IR, with its binding plans, as generated packages.

``views`` computes what each toolset package says (one view per tool, every name given by
``naming``, the one naming authority); ``files`` lists the files of a package; ``render`` fills
the small templates (``templates/``) and ``models`` runs the model generator; ``pipeline`` runs
it all, formats the output in one ruff run and hands it to ``output``, which writes it
atomically. Catalog entries are built by the contract (``tooldesign.contract.catalog``).
"""

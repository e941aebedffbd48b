"""The commands of ``tooldesign``: one module each, with ``run(args) -> exit code``.

``tooldesign.cli`` declares the arguments; a command raises ``tooldesign.errors.UserError``
(or a ``DesignError``) for anything the user must fix, and the CLI prints it and exits 2.
"""

"""The commands of ``tooldesign``: one module each, with its arguments and its ``run``.

A command module's ``add_parser(commands)`` adds its subcommand to the command line and sets
it to call ``run(args) -> exit code``. The command line imports every command module to build
its parser, so a module imports at its top only what that needs; ``run`` imports the rest.
A command raises ``tooldesign.contract.errors.UserError`` (or a ``DesignError``) for anything the user
must fix, and the command line prints it and exits 2.
"""

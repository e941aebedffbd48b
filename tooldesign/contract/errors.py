"""The errors that are the user's to fix, and the exit codes the command line reports them with.

The command line prints such an error as one clear message (no traceback) and exits
``EXIT_ERROR``.
"""

EXIT_OK = 0
"""The command did what it was asked."""
EXIT_DRIFT = 1
"""``gen --check`` found generated files that would change."""
EXIT_ERROR = 2
"""A design or usage error, told in a clear message on standard error."""
EXIT_INTERRUPTED = 130
"""Interrupted (Ctrl-C), as shells report a process ended by SIGINT."""
EXIT_BROKEN_PIPE = 141
"""The reader of standard output went away, as shells report a process ended by SIGPIPE."""


class UserError(Exception):
    """A problem in what the user gave tooldesign: a path, a design, a catalog, a flag…"""

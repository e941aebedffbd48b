"""The errors that are the user's to fix, and the exit codes the command line reports them with.

The command line prints such an error as one clear message (no traceback) and exits
``EXIT_ERROR``.
"""

import difflib
from collections.abc import Iterable

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


def close_match(given: object, choices: Iterable[str]) -> str | None:
    """The one of ``choices`` that ``given`` is a near miss of (a slip of a letter or two, or of
    case), if any: what a "did you mean" names."""
    if not isinstance(given, str) or not given:
        return None
    options = [choice for choice in dict.fromkeys(choices) if choice != given]
    same_but_case = [choice for choice in options if choice.casefold() == given.casefold()]
    if same_but_case:
        return same_but_case[0]
    found = difflib.get_close_matches(given, options, n=1, cutoff=0.7)
    return found[0] if found else None


def did_you_mean(given: object, choices: Iterable[str]) -> str:
    """``; did you mean 'max_length'?`` when ``given`` is a near miss of one of ``choices``,
    else ``""``: the end of a message that names something unknown."""
    close = close_match(given, choices)
    return f"; did you mean {close!r}?" if close is not None else ""

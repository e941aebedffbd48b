"""The base of every error that is the user's to fix, not a bug in tooldesign.

The command line prints such an error as one clear message (no traceback) and exits 2.
"""


class UserError(Exception):
    """A problem in what the user gave tooldesign: a path, a design, a catalog, a flag…"""

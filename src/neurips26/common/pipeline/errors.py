"""The one exception type the CLI turns into a clear message and a non-zero exit (no traceback)."""


class UserError(Exception):
    """Bad input from the user: an invalid config value, an unknown id, a corrupted file, a missing tool."""

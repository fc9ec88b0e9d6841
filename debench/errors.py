"""Errors a user can cause. The CLI prints them on one line and exits with code 2."""


class UserError(Exception):
    """A problem with the user's input (task file, data file, predictions, options)."""

    exit_code = 2

    def __init__(self, message: str, *, path: str | None = None, field: str | None = None):
        self.path = path
        self.field = field
        parts = []
        if path:
            parts.append(str(path))
        if field:
            parts.append(f"field '{field}'")
        prefix = ": ".join(parts)
        super().__init__(f"{prefix}: {message}" if prefix else message)


class DataError(UserError):
    """A data file is missing, unreadable or lacks required columns."""

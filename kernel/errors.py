"""The one base class of errors fit for a member's eyes (docs/style.md)."""


class DomainError(Exception):
    """A refused request; `str(error)` is a message to show the member."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


class PermissionDenied(DomainError):
    pass

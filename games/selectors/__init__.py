"""Every read of the games app (docs/style.md: selectors own reads), one module per feature: callers import
from the feature's module (``games.selectors.hands``, ``.tables``, ``.seating``, ``.rules``, ``.proof``,
``.advance``, ``.chat``, ``.notices``)."""

"""The project's PostgreSQL backend (``config.database.base``): Django's, with a cheaper pool check."""

"""The test runs' PostgreSQL backend: Django's, except that a flush runs as the owner role."""

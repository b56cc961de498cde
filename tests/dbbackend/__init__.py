"""The test runs' PostgreSQL backend: Django's, except that a flush runs as the owner role and an xdist
worker's database is copied from the run's migrated template."""

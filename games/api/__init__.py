"""The read-only JSON API: a club's balances, a member's statement and hand histories, for a member
holding an API key (accounts.ApiToken). Documented by the OpenAPI schema at /api/v1/openapi.json."""

"""Pages of the games app, one module per feature: ``rules`` (house rules), ``tables`` (lobby, a table,
start, close, the next game, the next table where it is my turn), ``seating``, ``hands`` (a form-post
action, history, a hand's page and proof), ``advance``, ``chat``, ``replay``, ``voiding`` (the Rulings
page's void form), ``cards`` (the deck's colours); ``common`` holds the access checks they share. The
notices' pages are notices/views.py.

Every view checks permission with ``club_access`` (404 for non-members, 403 for members on
organiser-only pages), parses a form, calls one service and redirects; a DomainError becomes a
message to that member only.
"""

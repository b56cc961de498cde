"""The table chat: services (post, hide), selectors (recent lines, who may write) and the two
plain form posts that work without JavaScript. Live delivery is the table consumer's
(games/consumers.py); chat text is public to the table, so it may travel through the group.
"""

"""The table chat's services (post, hide); its reads are games/selectors/chat.py, its two plain form
posts that work without JavaScript games/views/chat.py. Live delivery is the table consumer's
(games/consumers.py); chat text is public to the table, so it may travel through the group.
"""

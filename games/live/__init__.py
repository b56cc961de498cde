"""The live table: sockets, frames and who is sent what (docs/live.md describes it all).

``frames`` (message types, close codes, the encoder), ``access`` (who may keep a socket open), ``marks``
(whose own part changes at a step), ``render`` (the public and private frames), ``publish`` (after a
commit: render once, send the bytes), ``sync`` (a socket's full render), ``consumer`` (the sockets).
"""

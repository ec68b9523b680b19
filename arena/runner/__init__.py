"""One bot and one match: what a bot is, the sandbox it runs in, its process, and a match.

Imports only `arena.games`; knows nothing of the store, tournaments or the web.
"""

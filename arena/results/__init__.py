"""Results: the SQLite store and its bot copies, ratings, leaderboards and statistics.

Imports `arena.games` and `arena.runner`, never the tournament layer.
"""

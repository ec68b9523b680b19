"""People in the store: a person who played bots (`arena play`) is a bot whose versions have
the language ``human`` (no stored copy, never scheduled by a tournament). What marks them and
how the readers that must tell them apart do so."""

from __future__ import annotations

HUMAN = "human"  # bot_versions.language of a person

# SQL: true for a bot version ``v`` (bot_versions aliased as v) that is no person (NULL is none).
NOT_HUMAN_SQL = "v.language IS NOT 'human'"


def is_human(version: dict) -> bool:
    """A bot version row (with its ``language``) that is a person."""
    return version.get("language") == HUMAN


__all__ = ["HUMAN", "NOT_HUMAN_SQL", "is_human"]

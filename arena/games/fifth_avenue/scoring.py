"""Fifth Avenue scoring: districts, spread bonuses, building stops and Central Park.

Pure functions over the board arrays the state keeps per district: ``businesses[p]`` (list of
business type indices on plot p), ``owner[p]`` (owner index or -1) and ``towers[p]``
(skyscraper count). Owner indices are seats; in a 2-player game Alea is owner index 2.
"""

from __future__ import annotations

# Points per skyscraper by the number of different business types on its two ring neighbours.
DISTRICT_POINTS = (1, 2, 3, 5, 8)
# Points per Central Park skyscraper by the number of different types revealed.
# [decision] Empty park: 0, which only happens when no tile lies below the park.
PARK_POINTS = (0, 2, 3, 5)
PARK_REVEAL = 3
# Business number (of the game) -> (districts needed, points).
SPREAD_BONUS = {3: (3, 4), 6: (4, 6), 9: (5, 8)}


def skyscraper_value(businesses: list, neighbours: tuple[int, int]) -> int:
    """What one skyscraper on a plot with these two ring neighbours scores."""
    left, right = neighbours
    types = set(businesses[left])
    types.update(businesses[right])
    return DISTRICT_POINTS[len(types)]


def district_scores(businesses: list, owner: list, towers: list, neighbours: tuple,
                    owners: int) -> list[int]:
    """Normal district scoring: per owner index, the points its skyscrapers score here."""
    points = [0] * owners
    for p, who in enumerate(owner):
        if who >= 0 and towers[p]:
            points[who] += towers[p] * skyscraper_value(businesses, neighbours[p])
    return points


def building_stop_scores(businesses: list, owner: list, towers: list, neighbours: tuple,
                         owners: int, declarer: int) -> list[int]:
    """The declarer scores 1 per skyscraper in the district (any owner); every other owner
    scores half, rounded down, of its normal district score."""
    normal = district_scores(businesses, owner, towers, neighbours, owners)
    points = [value // 2 for value in normal]
    points[declarer] = sum(towers[p] for p, who in enumerate(owner) if who >= 0)
    return points


def districts_with_skyscrapers(owners_by_district: list, closed: list, owners: int) -> list[int]:
    """Per owner index: in how many open districts it has at least one skyscraper."""
    counts = [0] * owners
    for d, owner in enumerate(owners_by_district):
        if closed[d]:
            continue
        for who in set(owner):
            if who >= 0:
                counts[who] += 1
    return counts


def park_points_per_skyscraper(revealed: list) -> int:
    return PARK_POINTS[len(set(revealed))]

"""The web viewer: `arena serve` (leaderboards, bots, tournaments, matches with a replay
viewer, and a JSON API) and `arena replay` (one self-contained HTML file per match).

Read-only over the store. Imports `arena.games` and `arena.results` only — never
`arena.runner` or `arena.tournament` (a test checks it).

* `data` — every query the web makes (explicit column lists; the store opened by
  `data.open_store` only);
* `replay` — frames rebuilt from a match's seed, options and logged actions, checked
  against the logged requests, encoded compactly (keyframes plus changes);
* `boards` — the full view of a state per game (the snapshot in the observation's words);
* `safe` — escaping of what bots wrote: JSON inside ``<script>``, control characters;
* `plots` — the rating-history SVG;
* `app` — the Starlette application (pages and ``/api/``);
* `export` — the self-contained replay file;
* `commands` — the click commands ``serve`` and ``replay``.
"""

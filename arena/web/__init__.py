"""The web viewer: `arena serve` (leaderboards, bots, tournaments, matches with a replay
viewer, and a JSON API) and `arena replay` (one self-contained HTML file per match).

Read-only over the store. Imports `arena.games` and `arena.results` only — never
`arena.runner` or `arena.tournament` (a test checks it).

* `data` — every query the web makes (explicit column lists; the store opened by
  `data.open_store` only; `data.match_for_file`, for `arena replay`, reads one match with
  plain sqlite3 through `arena.results.matchread`);
* `replay` — frames rebuilt from a match's seed, options and logged actions, checked
  against the logged requests, encoded compactly (keyframes plus changes);
* `boards` — the full view of a state per game (the snapshot in the observation's words);
* `safe` — escaping of what bots wrote: JSON inside ``<script>``, control characters;
* `plots` — the rating-history SVG;
* `templating` — the Jinja2 environment and where templates and static files are (without
  Starlette: `arena replay` starts light);
* `assets` — the viewer's style and scripts carried inline (match page, replay file) and
  their CSP hashes;
* `app` — the Starlette application (pages and ``/api/``);
* `export` — the self-contained replay file;
* `commands` — the click commands ``serve`` and ``replay``.
"""

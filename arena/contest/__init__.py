"""A contest: entrants with personal sign-in links upload bots; one runner builds, validates
and ladders them; the organiser closes submissions and runs the final.

Modules (each owns one thing):

* `config` — a contest's settings (`ContestConfig`) and their checks.
* `tokens` — sign-in tokens: made with `secrets`, only their SHA-256 kept, compared in
  constant time.
* `entrants` — the CSV of entrants (name, e-mail), each bad row a clear message.
* `records` — the contest tables in the results database (schema 4): contests, entrants,
  submissions, requests, test matches. Written only by the runner and the set-up commands.
* `inbox` — the contest's inbox: a SQLite file and uploaded files in the contest's folder,
  written by the web process (uploads, test-match requests, organiser actions), drained by
  the runner. Each upload is on disk and committed before it is acknowledged.
* `uploads` — turning an uploaded file or zip into a bot folder, refusing anything unsafe.
* `runner` — the contest runner: the one writer of the results database.
* `final` — the final tournament of the last accepted versions, its standings and grades.
* `views` — fast reads for pages (entrant, leaderboard, organiser).

Layer: beside `arena.tournament` (it uses it and `arena.results`); the web app and the
command line sit on top.
"""

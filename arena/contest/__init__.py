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

For the web app (the interfaces it relies on stay as they are):

* sign-in: ``records.entrant_for_token(store, contest_id, token)`` and
  ``records.is_organiser(store, contest_id, token)`` on a read-only ``Store``;
* everything an entrant or the organiser sends: ``inbox.Inbox(inbox.folder_for(db, name))``
  — ``add_upload`` (checks the size and the daily limit; raises ``InboxRefusal`` with the
  message to show), ``add_test_request``, ``add_action``; the web never writes the results
  database;
* a zip's check before it is kept: ``uploads.check_zip(file, unpacked_bytes, files)`` (raises
  ``UploadRefused`` with the message to show; the runner checks again while unpacking);
* every page's data: `views` (``summary``, ``leaderboard``, ``entrant_by_name``,
  ``submissions``, ``waiting``, ``requests``, ``matches``, ``rating_history``, ``failures``,
  ``match_access``, ``seat_detail``, and for the organiser ``entrants`` (paged),
  ``entrant_counts``, ``all_submissions``, ``queue``, ``failures``); the final's
  ``final.standings`` and ``final.grades_csv``;
* running the contest: ``runner.ContestRunner(db, name).run(stop_event)`` (a process of its
  own, e.g. beside the web server).

Layer: beside `arena.tournament` (it uses it and `arena.results`); the web app and the
command line sit on top.
"""

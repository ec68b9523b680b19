"""The database's schema, all of it (`SCHEMA`), its version, and the upgrade of an older
database (`check_or_create`, run when a `arena.results.store.Store` opens one)."""

from __future__ import annotations

import sqlite3

SCHEMA_VERSION = 4
READABLE_FROM = 2  # an older schema a reader reads as it is (3 adds sprt_tests and moves the secrets out;
#                   4 adds the contest tables, which only `arena contest` reads)
APPLICATION_ID = 0x6172656E  # "aren": marks a database as arena's
SEAT_STATUSES = ("ok", "timeout", "crash", "illegal", "protocol", "limit")
FAILURE_KINDS = SEAT_STATUSES[1:]

SCHEMA = """
-- A bot is a name within a game; its submitted copies are its versions.
CREATE TABLE IF NOT EXISTS bots (
    id          INTEGER PRIMARY KEY,
    game        TEXT NOT NULL,
    name        TEXT NOT NULL,
    created_at  TEXT NOT NULL,
    withdrawn   INTEGER NOT NULL DEFAULT 0,     -- left out of new schedules and default leaderboards
    UNIQUE (game, name)
);

CREATE TABLE IF NOT EXISTS bot_versions (
    id            INTEGER PRIMARY KEY,
    bot_id        INTEGER NOT NULL REFERENCES bots(id),
    version       INTEGER NOT NULL,            -- 1, 2, ... per bot
    language      TEXT,                        -- python, javascript, executable, ...
    content_hash  TEXT NOT NULL,               -- sha256 of the submitted file or directory
    path          TEXT NOT NULL,               -- the stored copy, relative to the bot store
    source        TEXT,                        -- where it was submitted from (absolute)
    submitted_at  TEXT NOT NULL,
    stored_hash   TEXT,                        -- sha256 of the stored copy (differs after a build)
    build_log     TEXT,                        -- output of its build step, if it has one
    withdrawn     INTEGER NOT NULL DEFAULT 0,
    UNIQUE (bot_id, version),
    UNIQUE (bot_id, content_hash)
);
CREATE INDEX IF NOT EXISTS bot_versions_by_source ON bot_versions (source);

CREATE TABLE IF NOT EXISTS tournaments (
    id             INTEGER PRIMARY KEY,
    name           TEXT,
    game           TEXT NOT NULL,
    players        INTEGER NOT NULL,
    rounds         INTEGER NOT NULL,
    seed           INTEGER NOT NULL,
    options        TEXT NOT NULL,               -- JSON, validated and complete
    config         TEXT NOT NULL,               -- JSON, the configuration as given
    status         TEXT NOT NULL CHECK (status IN ('created', 'running', 'interrupted', 'finished')),
    rated_through  INTEGER NOT NULL DEFAULT -1, -- ratings applied up to this schedule index
    runner_pid     INTEGER,                     -- the process running it, while running
    created_at     TEXT NOT NULL,
    started_at     TEXT,
    finished_at    TEXT,
    secret_sha256  TEXT,                        -- of its secret, which is in the key file (results/keyfile.py)
    format         TEXT NOT NULL DEFAULT 'round-robin',
    format_state   TEXT,                        -- JSON: where a dynamic format is (Swiss, ladder, SPRT)
    matches_total     INTEGER NOT NULL DEFAULT 0, -- counts kept with every write (lists stay fast)
    matches_finished  INTEGER NOT NULL DEFAULT 0,
    matches_error     INTEGER NOT NULL DEFAULT 0
);

-- An SPRT's state, kept with its test and updated after every batch (arena.results.sprt).
CREATE TABLE IF NOT EXISTS sprt_tests (
    tournament_id  INTEGER PRIMARY KEY REFERENCES tournaments(id),
    elo0           REAL NOT NULL,               -- H0: the new version is at most elo0 better
    elo1           REAL NOT NULL,               -- H1: at least elo1 better
    alpha          REAL NOT NULL,
    beta           REAL NOT NULL,
    lower          REAL NOT NULL,               -- accept H0 at or below this LLR
    upper          REAL NOT NULL,               -- accept H1 at or above this LLR
    llr            REAL NOT NULL,               -- the log-likelihood ratio after `pairs` pairs
    pairs          INTEGER NOT NULL,            -- pairs counted (up to the verdict)
    verdict        TEXT CHECK (verdict IN ('H0', 'H1', 'inconclusive')),  -- NULL while it runs
    statistic      TEXT NOT NULL,               -- what computed llr, e.g. 'gsprt-exact'
    updated_at     TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS tournament_entries (
    tournament_id   INTEGER NOT NULL REFERENCES tournaments(id),
    position        INTEGER NOT NULL,
    bot_version_id  INTEGER NOT NULL REFERENCES bot_versions(id),
    role            TEXT,                       -- e.g. 'candidate' or 'field' in a gauntlet
    withdrawn       INTEGER NOT NULL DEFAULT 0, -- a ladder entry taken out while it runs
    PRIMARY KEY (tournament_id, position),
    UNIQUE (tournament_id, bot_version_id)
);

-- Every scheduled match exists from the start, 'pending' until its result is committed.
CREATE TABLE IF NOT EXISTS matches (
    id              INTEGER PRIMARY KEY,
    tournament_id   INTEGER REFERENCES tournaments(id),
    schedule_index  INTEGER,
    round           INTEGER,
    game            TEXT NOT NULL,
    players         INTEGER NOT NULL,
    options         TEXT NOT NULL,              -- JSON
    seed            INTEGER NOT NULL,           -- the game engine's seed (the deal)
    status          TEXT NOT NULL CHECK (status IN ('pending', 'finished', 'error')),
    error           TEXT,                       -- why the harness could not play it
    teams           TEXT,                       -- JSON list of seat lists, or NULL
    sandbox         TEXT,                       -- JSON
    started_at      TEXT,
    ended_at        TEXT,
    duration_ms     REAL,
    rating_seq      INTEGER UNIQUE,             -- order ratings were applied; NULL = unrated
    deal            INTEGER,                    -- duplicate set: matches with the same deal
    UNIQUE (tournament_id, schedule_index)
);
CREATE INDEX IF NOT EXISTS matches_by_game_rating ON matches (game, rating_seq);
CREATE INDEX IF NOT EXISTS matches_by_status ON matches (tournament_id, status, schedule_index);

CREATE TABLE IF NOT EXISTS match_seats (
    match_id        INTEGER NOT NULL REFERENCES matches(id),
    seat            INTEGER NOT NULL,
    bot_version_id  INTEGER NOT NULL REFERENCES bot_versions(id),
    team            INTEGER,
    status          TEXT CHECK (status IN ('ok', 'timeout', 'crash', 'illegal', 'protocol', 'limit')),
    score           REAL,
    rank            INTEGER,
    time_ms         REAL,
    decisions       INTEGER,
    error           TEXT,
    PRIMARY KEY (match_id, seat)
);
CREATE INDEX IF NOT EXISTS match_seats_by_bot_version ON match_seats (bot_version_id, match_id);
-- Failed seats only (a few): lists of failures, newest first, never scan every seat.
CREATE INDEX IF NOT EXISTS match_seats_failed ON match_seats (match_id) WHERE status IS NOT NULL AND status != 'ok';

-- The full log: every request and reply (zlib-compressed JSON list), and each seat's stderr.
CREATE TABLE IF NOT EXISTS match_logs (
    match_id  INTEGER PRIMARY KEY REFERENCES matches(id),
    encoding  TEXT NOT NULL DEFAULT 'zlib+json',
    log       BLOB NOT NULL,
    stderr    BLOB NOT NULL
);

-- Current rating and running totals per bot version and game.
CREATE TABLE IF NOT EXISTS ratings (
    game               TEXT NOT NULL,
    bot_version_id     INTEGER NOT NULL REFERENCES bot_versions(id),
    mu                 REAL NOT NULL,
    sigma              REAL NOT NULL,
    conservative       REAL NOT NULL,           -- mu - 3 * sigma, the leaderboard order
    matches            INTEGER NOT NULL DEFAULT 0,
    first_places       INTEGER NOT NULL DEFAULT 0,
    rank_sum           INTEGER NOT NULL DEFAULT 0,
    failures_timeout   INTEGER NOT NULL DEFAULT 0,
    failures_crash     INTEGER NOT NULL DEFAULT 0,
    failures_illegal   INTEGER NOT NULL DEFAULT 0,
    failures_protocol  INTEGER NOT NULL DEFAULT 0,
    failures_limit     INTEGER NOT NULL DEFAULT 0,
    updated_at         TEXT NOT NULL,
    PRIMARY KEY (game, bot_version_id)
);
CREATE INDEX IF NOT EXISTS ratings_leaderboard ON ratings (game, conservative DESC);

-- The same per tournament: each entry's rating after its last rated match in it, and its
-- totals over that tournament's rated matches (the tournament leaderboard reads only this).
CREATE TABLE IF NOT EXISTS tournament_ratings (
    tournament_id      INTEGER NOT NULL REFERENCES tournaments(id),
    bot_version_id     INTEGER NOT NULL REFERENCES bot_versions(id),
    mu                 REAL NOT NULL,
    sigma              REAL NOT NULL,
    matches            INTEGER NOT NULL DEFAULT 0,
    first_places       INTEGER NOT NULL DEFAULT 0,
    rank_sum           INTEGER NOT NULL DEFAULT 0,
    failures_timeout   INTEGER NOT NULL DEFAULT 0,
    failures_crash     INTEGER NOT NULL DEFAULT 0,
    failures_illegal   INTEGER NOT NULL DEFAULT 0,
    failures_protocol  INTEGER NOT NULL DEFAULT 0,
    failures_limit     INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (tournament_id, bot_version_id)
);

CREATE TABLE IF NOT EXISTS rating_history (
    match_id        INTEGER NOT NULL REFERENCES matches(id),
    seat            INTEGER NOT NULL,
    bot_version_id  INTEGER NOT NULL REFERENCES bot_versions(id),
    mu_before       REAL NOT NULL,
    sigma_before    REAL NOT NULL,
    mu_after        REAL NOT NULL,
    sigma_after     REAL NOT NULL,
    PRIMARY KEY (match_id, seat)
);
CREATE INDEX IF NOT EXISTS rating_history_by_bot_version ON rating_history (bot_version_id, match_id);

-- Contests (arena.contest): entrants sign in with a personal link (only its SHA-256 is kept),
-- upload bots through the contest's inbox (a SQLite file of its own, written by the web
-- process); the contest runner, the one writer, records each upload it took from the inbox.
CREATE TABLE IF NOT EXISTS contests (
    id                 INTEGER PRIMARY KEY,
    name               TEXT NOT NULL UNIQUE,
    game               TEXT NOT NULL,
    players            INTEGER NOT NULL,
    config             TEXT NOT NULL,               -- JSON: arena.contest.config.ContestConfig
    ladder_id          INTEGER REFERENCES tournaments(id),   -- the running ladder
    final_id           INTEGER REFERENCES tournaments(id),   -- the final, once started
    closed_at          TEXT,                        -- submissions closed (uploads received before still count)
    organiser_sha256   TEXT,                        -- of the organiser's sign-in token
    created_at         TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS contest_entrants (
    id             INTEGER PRIMARY KEY,
    contest_id     INTEGER NOT NULL REFERENCES contests(id),
    name           TEXT NOT NULL,                  -- also the name of the entrant's bot
    email          TEXT NOT NULL,
    token_sha256   TEXT,                           -- of the sign-in token (NULL: no link issued)
    withdrawn      INTEGER NOT NULL DEFAULT 0,
    bot_version_id INTEGER REFERENCES bot_versions(id),  -- the version in the ladder now
    created_at     TEXT NOT NULL,
    UNIQUE (contest_id, name)
);
CREATE INDEX IF NOT EXISTS contest_entrants_by_token ON contest_entrants (token_sha256);

-- Each upload the runner took from the inbox, accepted or refused, with what it said.
CREATE TABLE IF NOT EXISTS contest_submissions (
    id              INTEGER PRIMARY KEY,
    contest_id      INTEGER NOT NULL REFERENCES contests(id),
    entrant_id      INTEGER NOT NULL REFERENCES contest_entrants(id),
    inbox_id        INTEGER NOT NULL,              -- the inbox row it came from (taken once)
    filename        TEXT NOT NULL,
    received_at     TEXT NOT NULL,
    processed_at    TEXT NOT NULL,
    status          TEXT NOT NULL CHECK (status IN ('accepted', 'refused')),
    reason          TEXT,                          -- why it was refused
    build_log       TEXT,
    validation      TEXT,                          -- JSON: the validation seat (status, error, stderr)
    bot_version_id  INTEGER REFERENCES bot_versions(id),
    UNIQUE (contest_id, inbox_id)
);
CREATE INDEX IF NOT EXISTS contest_submissions_by_entrant ON contest_submissions (entrant_id, id);

-- Inbox rows the runner has carried out (requests and actions; uploads are in contest_submissions).
CREATE TABLE IF NOT EXISTS contest_requests (
    contest_id   INTEGER NOT NULL REFERENCES contests(id),
    inbox_id     INTEGER NOT NULL,
    entrant_id   INTEGER REFERENCES contest_entrants(id),   -- NULL: the organiser
    kind         TEXT NOT NULL,
    payload      TEXT,                            -- JSON as received
    outcome      TEXT,                            -- what was done, or why not
    received_at  TEXT NOT NULL,
    processed_at TEXT NOT NULL,
    PRIMARY KEY (contest_id, inbox_id)
);

-- Unrated test matches an entrant asked for (matches with no tournament).
CREATE TABLE IF NOT EXISTS contest_test_matches (
    match_id    INTEGER PRIMARY KEY REFERENCES matches(id),
    contest_id  INTEGER NOT NULL REFERENCES contests(id),
    entrant_id  INTEGER NOT NULL REFERENCES contest_entrants(id),
    inbox_id    INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS contest_test_matches_by_entrant ON contest_test_matches (entrant_id, match_id);

-- For people browsing with sqlite3 or Datasette: readable views.
CREATE VIEW IF NOT EXISTS leaderboard AS
SELECT r.game, b.name AS bot, v.version, r.conservative, r.mu, r.sigma, r.matches,
       r.first_places, CAST(r.rank_sum AS REAL) / NULLIF(r.matches, 0) AS average_rank,
       r.failures_timeout, r.failures_crash, r.failures_illegal, r.failures_protocol,
       r.failures_limit
FROM ratings r JOIN bot_versions v ON v.id = r.bot_version_id JOIN bots b ON b.id = v.bot_id
ORDER BY r.game, r.conservative DESC;

CREATE VIEW IF NOT EXISTS seat_results AS
SELECT m.id AS match_id, m.tournament_id, m.schedule_index, m.game, m.status AS match_status,
       s.seat, b.name AS bot, v.version, s.status, s.score, s.rank, s.time_ms, s.decisions, s.error,
       m.ended_at
FROM match_seats s JOIN matches m ON m.id = s.match_id
JOIN bot_versions v ON v.id = s.bot_version_id JOIN bots b ON b.id = v.bot_id;
"""

# What a version-1 database lacks (columns, in the order they are added).
_V1_TO_V2 = [
    "ALTER TABLE bots ADD COLUMN withdrawn INTEGER NOT NULL DEFAULT 0",
    "ALTER TABLE bot_versions ADD COLUMN stored_hash TEXT",
    "ALTER TABLE bot_versions ADD COLUMN build_log TEXT",
    "ALTER TABLE bot_versions ADD COLUMN withdrawn INTEGER NOT NULL DEFAULT 0",
    "ALTER TABLE tournaments ADD COLUMN secret TEXT",
    "ALTER TABLE tournaments ADD COLUMN format TEXT NOT NULL DEFAULT 'round-robin'",
    "ALTER TABLE tournaments ADD COLUMN format_state TEXT",
    "ALTER TABLE tournament_entries ADD COLUMN role TEXT",
    "ALTER TABLE tournament_entries ADD COLUMN withdrawn INTEGER NOT NULL DEFAULT 0",
    "ALTER TABLE matches ADD COLUMN deal INTEGER",
    "ALTER TABLE tournaments ADD COLUMN matches_total INTEGER NOT NULL DEFAULT 0",
    "ALTER TABLE tournaments ADD COLUMN matches_finished INTEGER NOT NULL DEFAULT 0",
    "ALTER TABLE tournaments ADD COLUMN matches_error INTEGER NOT NULL DEFAULT 0",
    "RECOUNT",
]
RECOUNT = ("UPDATE tournaments SET matches_total = (SELECT COUNT(*) FROM matches m WHERE m.tournament_id = tournaments.id),"
            " matches_finished = (SELECT COUNT(*) FROM matches m WHERE m.tournament_id = tournaments.id"
            " AND m.status = 'finished'), matches_error = (SELECT COUNT(*) FROM matches m"
            " WHERE m.tournament_id = tournaments.id AND m.status = 'error')")
ARENA_TABLES = ("bots", "bot_versions", "tournaments", "matches")


def _statements(script: str) -> list[str]:
    """Split the schema into statements (sqlite3.complete_statement knows where each ends)."""
    statements, current = [], ""
    for line in script.splitlines(keepends=True):
        current += line
        if sqlite3.complete_statement(current):
            statements.append(current.strip())
            current = ""
    return [s for s in statements if s]


def _backfill_tournament_ratings(conn: sqlite3.Connection) -> None:
    """Fill `tournament_ratings` of an upgraded database from its rating history."""
    failures = ", ".join(f"SUM(s.status = '{kind}')" for kind in FAILURE_KINDS)
    conn.execute(
        "INSERT OR REPLACE INTO tournament_ratings (tournament_id, bot_version_id, mu, sigma, matches, first_places,"
        f" rank_sum, {', '.join('failures_' + k for k in FAILURE_KINDS)})"
        " SELECT m.tournament_id, s.bot_version_id,"
        "  (SELECT h.mu_after FROM rating_history h JOIN matches hm ON hm.id = h.match_id"
        "    WHERE hm.tournament_id = m.tournament_id AND h.bot_version_id = s.bot_version_id"
        "    ORDER BY hm.rating_seq DESC LIMIT 1),"
        "  (SELECT h.sigma_after FROM rating_history h JOIN matches hm ON hm.id = h.match_id"
        "    WHERE hm.tournament_id = m.tournament_id AND h.bot_version_id = s.bot_version_id"
        "    ORDER BY hm.rating_seq DESC LIMIT 1),"
        f"  COUNT(*), SUM(s.rank = 1), SUM(s.rank), {failures}"
        " FROM matches m JOIN match_seats s ON s.match_id = m.id"
        " WHERE m.tournament_id IS NOT NULL AND m.rating_seq IS NOT NULL GROUP BY m.tournament_id, s.bot_version_id")


def check_or_create(store) -> None:
    """Check an opened database is arena's and of a schema this arena knows; create a new
    one's schema, or upgrade an older one (once, under the write lock)."""
    from arena.results.errors import StoreError

    conn = store.db.conn
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    application = conn.execute("PRAGMA application_id").fetchone()[0]
    tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if application not in (0, APPLICATION_ID) or (tables and not set(ARENA_TABLES) <= tables):
        raise StoreError(f"{store.path} is a database of another program, not arena's (refusing to touch it)")
    if version > SCHEMA_VERSION:
        raise StoreError(f"{store.path} was written by a newer arena (schema {version}; this one knows up to"
                         f" {SCHEMA_VERSION}): upgrade arena to use it")
    if version == SCHEMA_VERSION:
        return
    if store.readonly:
        if tables and version >= READABLE_FROM:
            return
        if not tables:
            raise StoreError(f"{store.path} is empty: no arena database there yet")
        raise StoreError(f"{store.path} has the older schema {version}; run a command that writes"
                         f" (e.g. `arena ratings recompute`) once to upgrade it")
    # New or older: create or upgrade, once, under the write lock (another process may race).
    conn.execute("PRAGMA journal_mode = WAL")
    with store.write():
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version == 1:
            from arena.results.botstore import migrate_v1_copies

            for statement in _V1_TO_V2:
                conn.execute(RECOUNT if statement == "RECOUNT" else statement)
            for statement in _statements(SCHEMA):
                conn.execute(statement)
            migrate_v1_copies(store)
            _backfill_tournament_ratings(conn)
        elif version in (0, 2, 3):  # 2 -> 3 adds a table, 3 -> 4 the contest tables
            for statement in _statements(SCHEMA):
                conn.execute(statement)
        if version in (1, 2):
            from arena.results.keyfile import move_out_of
            from arena.results.sprt import backfill

            backfill(conn)
            move_out_of(store)  # schema 3: the secrets leave the database for its key file
        conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

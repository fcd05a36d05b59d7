"""The state database's tables, and their migrations.

``user_version`` records the schema version. A database from a newer
release is refused as ``IncompatibleSchemaError`` (moved aside, fresh start)
rather than guessed at.

- ``outbox``: notifications written before they are sent; a row is deleted
  when its notification is delivered or dead-lettered. ``seq`` orders them.
- ``dead_letters``: notifications given up on, with why; pruned by age.
- ``replays``: what the last replay of a dead letter did (delivered, or failed again, and
  when), so the page says so; pruned by age and count (version 8).
- ``slack_threads``: the ``ts`` of each thread's first message (Slack; an email thread's
  ``Message-ID``); pruned by age.
- ``open_alerts``: what an Alertmanager sink still re-sends, until its resolution.
- ``seen``: the last object state the worker acted on, per kind and key.
- ``held``: transitions a rule's group holds for its next digest, until the
  digest is in the outbox (version 3).
- ``firing``: a rule's open incident about an object (what it told, its worst
  state, since when the object is out of trouble), so a restart neither tells
  it again nor forgets to resolve it (version 4; the incident's columns: 6).
- ``timers``: a rule's ``for:``, escalation steps and reminders timing an object
  in its states: pending, or fired and not yet left, with the transition to
  tell (version 5); a ``for:``'s grace, the rule's recovery window (version 7).
- ``stays``: a ``for:`` stay a blip cut, remembered until its grace ends (version 7).
- ``folded_ends``: the ends of a ``fold_into: owner`` incident kept to be told with
  its last object's (version 7).
- ``meta``: facts about the file itself, e.g. ``baseline_at``: when a start
  first acted on the whole initial list (version 3).
"""

from __future__ import annotations

import sqlite3

SCHEMA_VERSION = 8

_SEEN = """
CREATE TABLE IF NOT EXISTS seen (
    kind TEXT NOT NULL,
    key TEXT NOT NULL,
    uid TEXT NOT NULL,
    resource_version TEXT NOT NULL,
    object BLOB NOT NULL,
    UNIQUE (kind, key)
);
"""

_TABLES = (
    """
CREATE TABLE IF NOT EXISTS outbox (
    seq INTEGER PRIMARY KEY,
    sink TEXT NOT NULL,
    body BLOB NOT NULL,
    stored_at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS outbox_by_sink ON outbox (sink, seq);
CREATE INDEX IF NOT EXISTS outbox_by_age ON outbox (stored_at);

CREATE TABLE IF NOT EXISTS dead_letters (
    id INTEGER PRIMARY KEY,
    notification_id TEXT NOT NULL,
    sink TEXT NOT NULL,
    ordering_key TEXT NOT NULL,
    reason TEXT NOT NULL,
    detail TEXT NOT NULL,
    attempts INTEGER NOT NULL,
    body BLOB NOT NULL,
    dead_at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS dead_letters_by_age ON dead_letters (dead_at);

CREATE TABLE IF NOT EXISTS replays (
    notification_id TEXT NOT NULL,
    sink TEXT NOT NULL,
    delivered INTEGER NOT NULL,
    detail TEXT NOT NULL,
    replayed_at REAL NOT NULL,
    PRIMARY KEY (notification_id, sink)
);
CREATE INDEX IF NOT EXISTS replays_by_age ON replays (replayed_at);

CREATE TABLE IF NOT EXISTS slack_threads (
    scope TEXT NOT NULL,
    thread_key TEXT NOT NULL,
    ts TEXT NOT NULL,
    created_at REAL NOT NULL,
    PRIMARY KEY (scope, thread_key)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS slack_threads_by_age ON slack_threads (created_at);

CREATE TABLE IF NOT EXISTS meta (
    name TEXT PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS held (
    token INTEGER PRIMARY KEY,
    rule TEXT NOT NULL,
    transition BLOB NOT NULL,
    held_at REAL NOT NULL
);

CREATE TABLE IF NOT EXISTS open_alerts (
    scope TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    alert BLOB NOT NULL,
    stored_at REAL NOT NULL,
    PRIMARY KEY (scope, fingerprint)
);

CREATE TABLE IF NOT EXISTS firing (
    rule TEXT NOT NULL,
    kind TEXT NOT NULL,
    key TEXT NOT NULL,
    states TEXT NOT NULL,
    fired_at REAL NOT NULL,
    worst TEXT NOT NULL DEFAULT '',
    recovering_since REAL,
    recovery REAL NOT NULL DEFAULT 0,
    escalated TEXT NOT NULL DEFAULT '[]',
    transition BLOB,
    PRIMARY KEY (rule, kind, key)
);

CREATE TABLE IF NOT EXISTS timers (
    rule TEXT NOT NULL,
    step INTEGER NOT NULL,
    kind TEXT NOT NULL,
    key TEXT NOT NULL,
    since REAL NOT NULL,
    fired INTEGER NOT NULL,
    told INTEGER NOT NULL,
    wanted TEXT NOT NULL,
    transition BLOB NOT NULL,
    grace REAL NOT NULL DEFAULT 0,
    PRIMARY KEY (rule, step, kind, key)
);

CREATE TABLE IF NOT EXISTS stays (
    rule TEXT NOT NULL,
    kind TEXT NOT NULL,
    key TEXT NOT NULL,
    since REAL NOT NULL,
    until_at REAL NOT NULL,
    PRIMARY KEY (rule, kind, key)
);

CREATE TABLE IF NOT EXISTS folded_ends (
    rule TEXT NOT NULL,
    namespace TEXT NOT NULL,
    owner_kind TEXT NOT NULL,
    owner_name TEXT NOT NULL,
    kind TEXT NOT NULL,
    key TEXT NOT NULL,
    states TEXT NOT NULL,
    fired_at REAL NOT NULL,
    worst TEXT NOT NULL,
    recovery REAL NOT NULL,
    escalated TEXT NOT NULL,
    objects TEXT NOT NULL,
    transition BLOB,
    PRIMARY KEY (rule, namespace, owner_kind, owner_name)
);
"""
    + _SEEN
)

# Version 1 kept ``seen`` WITHOUT ROWID. Its rows (an object of ~2 KB) are far
# above the size such tables suit (about 1/20 of a page), and an upsert cost
# three times as much CPU as in a rowid table with a unique index.
_V1_TO_V2 = f"""
ALTER TABLE seen RENAME TO seen_v1;
{_SEEN}
INSERT INTO seen (kind, key, uid, resource_version, object)
    SELECT kind, key, uid, resource_version, object FROM seen_v1;
DROP TABLE seen_v1;
"""


# Version 6: the ``firing`` table holds incidents (rules/incidents/resolving.py).
_V4_TO_V6 = """
ALTER TABLE firing ADD COLUMN worst TEXT NOT NULL DEFAULT '';
ALTER TABLE firing ADD COLUMN recovering_since REAL;
ALTER TABLE firing ADD COLUMN recovery REAL NOT NULL DEFAULT 0;
ALTER TABLE firing ADD COLUMN escalated TEXT NOT NULL DEFAULT '[]';
ALTER TABLE firing ADD COLUMN transition BLOB;
"""


# Version 7: a ``for:`` timer keeps its grace; ``stays`` and ``folded_ends`` are new (``_TABLES``).
_V5_TO_V7 = """
ALTER TABLE timers ADD COLUMN grace REAL NOT NULL DEFAULT 0;
"""


class IncompatibleSchemaError(sqlite3.DatabaseError):
    """The database was written by a newer kube-notifier."""


def migrate(conn: sqlite3.Connection) -> None:
    (version,) = conn.execute("PRAGMA user_version").fetchone()
    if version > SCHEMA_VERSION:
        raise IncompatibleSchemaError(f"schema version {version} is newer than {SCHEMA_VERSION}")
    if version == 1:
        conn.executescript(f"BEGIN; {_V1_TO_V2} COMMIT;")
    if 4 <= version < 6:
        conn.executescript(f"BEGIN; {_V4_TO_V6} COMMIT;")
    if 5 <= version < 7 and _has_table(conn, "timers"):
        conn.executescript(f"BEGIN; {_V5_TO_V7} COMMIT;")
    if version < SCHEMA_VERSION:
        conn.executescript(_TABLES)
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")


def _has_table(conn: sqlite3.Connection, name: str) -> bool:
    found = conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (name,))
    return found.fetchone() is not None

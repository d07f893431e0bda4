package store

import (
	"context"
	"fmt"
)

// migrations are applied in order; migration i brings a file from
// user_version i to i+1. Never edit a released migration: add a new one.
var migrations = []string{
	// 1: the three memory layers.
	`
CREATE TABLE daily_memories (
	id               INTEGER PRIMARY KEY AUTOINCREMENT,
	session_id       TEXT    NOT NULL DEFAULT '',
	ts               INTEGER NOT NULL,             -- unix milliseconds
	day              TEXT    NOT NULL,             -- local date of ts, YYYY-MM-DD
	interaction_type TEXT    NOT NULL DEFAULT '',
	role             TEXT    NOT NULL DEFAULT '',
	content          TEXT    NOT NULL,
	context          TEXT,                         -- JSON object or NULL
	importance       REAL    NOT NULL,
	source           TEXT    NOT NULL DEFAULT '',
	content_hash     TEXT    NOT NULL,
	summary          TEXT    NOT NULL DEFAULT '',
	entities         TEXT    NOT NULL DEFAULT '[]', -- JSON
	topics           TEXT    NOT NULL DEFAULT '[]', -- JSON
	consolidated     INTEGER NOT NULL DEFAULT 0,
	consolidation_id INTEGER REFERENCES consolidated_memories(id) ON DELETE SET NULL,
	created_at       INTEGER NOT NULL
);
CREATE INDEX daily_memories_ts ON daily_memories(ts);
CREATE INDEX daily_memories_unconsolidated ON daily_memories(day, ts) WHERE consolidated = 0;
CREATE INDEX daily_memories_session ON daily_memories(session_id, ts);
CREATE INDEX daily_memories_hash ON daily_memories(content_hash);
CREATE INDEX daily_memories_important ON daily_memories(ts) WHERE importance >= 0.8;

CREATE TABLE consolidated_memories (
	id         INTEGER PRIMARY KEY AUTOINCREMENT,
	date       TEXT    NOT NULL UNIQUE,            -- YYYY-MM-DD
	summary    TEXT    NOT NULL,
	key_facts  TEXT    NOT NULL DEFAULT '[]',
	entities   TEXT    NOT NULL DEFAULT '[]',
	topics     TEXT    NOT NULL DEFAULT '[]',
	insights   TEXT    NOT NULL DEFAULT '[]',
	source_ids TEXT    NOT NULL DEFAULT '[]',
	model      TEXT    NOT NULL DEFAULT '',
	created_at INTEGER NOT NULL,
	updated_at INTEGER NOT NULL
);

CREATE TABLE facts (
	id                       INTEGER PRIMARY KEY AUTOINCREMENT,
	entity                   TEXT    NOT NULL,
	entity_type              TEXT    NOT NULL DEFAULT '',
	attribute                TEXT    NOT NULL DEFAULT '',
	fact_type                TEXT    NOT NULL DEFAULT '',
	content                  TEXT    NOT NULL,
	confidence               REAL    NOT NULL DEFAULT 0.5,
	source_memory_ids        TEXT    NOT NULL DEFAULT '[]',
	source_consolidation_ids TEXT    NOT NULL DEFAULT '[]',
	valid_from               INTEGER NOT NULL,
	valid_to                 INTEGER,
	superseded_by            INTEGER REFERENCES facts(id) ON DELETE SET NULL,
	rejected                 INTEGER NOT NULL DEFAULT 0,
	created_at               INTEGER NOT NULL,
	last_accessed            INTEGER,
	access_count             INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX facts_entity ON facts(entity, attribute);
CREATE INDEX facts_current ON facts(valid_from) WHERE valid_to IS NULL AND superseded_by IS NULL AND rejected = 0;
`,
	// 2: full-text search over the three layers, kept in sync by triggers.
	`
-- New memories are indexed by the store's insert itself, not by a trigger: a
-- trigger makes every INSERT a statement transaction, and FTS5 flushes its
-- pending index to disk at each one (4x slower, measured). Deletes and
-- updates, which are rare, stay with triggers.
CREATE VIRTUAL TABLE memories_fts USING fts5(
	content, content='daily_memories', content_rowid='id', tokenize='porter unicode61');
CREATE TRIGGER daily_memories_ad AFTER DELETE ON daily_memories BEGIN
	INSERT INTO memories_fts(memories_fts, rowid, content) VALUES ('delete', old.id, old.content);
END;
CREATE TRIGGER daily_memories_au AFTER UPDATE OF content ON daily_memories BEGIN
	INSERT INTO memories_fts(memories_fts, rowid, content) VALUES ('delete', old.id, old.content);
	INSERT INTO memories_fts(rowid, content) VALUES (new.id, new.content);
END;
INSERT INTO memories_fts(memories_fts) VALUES ('rebuild');

CREATE VIRTUAL TABLE consolidations_fts USING fts5(
	summary, key_facts, content='consolidated_memories', content_rowid='id', tokenize='porter unicode61');
CREATE TRIGGER consolidated_memories_ai AFTER INSERT ON consolidated_memories BEGIN
	INSERT INTO consolidations_fts(rowid, summary, key_facts) VALUES (new.id, new.summary, new.key_facts);
END;
CREATE TRIGGER consolidated_memories_ad AFTER DELETE ON consolidated_memories BEGIN
	INSERT INTO consolidations_fts(consolidations_fts, rowid, summary, key_facts)
	VALUES ('delete', old.id, old.summary, old.key_facts);
END;
CREATE TRIGGER consolidated_memories_au AFTER UPDATE OF summary, key_facts ON consolidated_memories BEGIN
	INSERT INTO consolidations_fts(consolidations_fts, rowid, summary, key_facts)
	VALUES ('delete', old.id, old.summary, old.key_facts);
	INSERT INTO consolidations_fts(rowid, summary, key_facts) VALUES (new.id, new.summary, new.key_facts);
END;
INSERT INTO consolidations_fts(consolidations_fts) VALUES ('rebuild');

CREATE VIRTUAL TABLE facts_fts USING fts5(
	entity, content, content='facts', content_rowid='id', tokenize='porter unicode61');
CREATE TRIGGER facts_ai AFTER INSERT ON facts BEGIN
	INSERT INTO facts_fts(rowid, entity, content) VALUES (new.id, new.entity, new.content);
END;
CREATE TRIGGER facts_ad AFTER DELETE ON facts BEGIN
	INSERT INTO facts_fts(facts_fts, rowid, entity, content) VALUES ('delete', old.id, old.entity, old.content);
END;
CREATE TRIGGER facts_au AFTER UPDATE OF entity, content ON facts BEGIN
	INSERT INTO facts_fts(facts_fts, rowid, entity, content) VALUES ('delete', old.id, old.entity, old.content);
	INSERT INTO facts_fts(rowid, entity, content) VALUES (new.id, new.entity, new.content);
END;
INSERT INTO facts_fts(facts_fts) VALUES ('rebuild');
`,
	// 3: the nightly cycle: a row per consolidation run, a cross-process
	// lease per job, a fact's value (for rejection by entity+attribute+value)
	// and a day index for rebuilding a day's record from all its memories.
	`
CREATE TABLE consolidation_runs (
	id               INTEGER PRIMARY KEY AUTOINCREMENT,
	day              TEXT    NOT NULL,             -- YYYY-MM-DD, local
	started_at       INTEGER NOT NULL,             -- unix milliseconds
	finished_at      INTEGER NOT NULL,
	provider         TEXT    NOT NULL DEFAULT '',
	model            TEXT    NOT NULL DEFAULT '',
	calls            INTEGER NOT NULL DEFAULT 0,
	tokens_in        INTEGER NOT NULL DEFAULT 0,
	tokens_out       INTEGER NOT NULL DEFAULT 0,
	duration_ms      INTEGER NOT NULL DEFAULT 0,
	status           TEXT    NOT NULL CHECK (status IN ('ok', 'failed', 'partial')),
	error            TEXT    NOT NULL DEFAULT '',
	consolidation_id INTEGER REFERENCES consolidated_memories(id) ON DELETE SET NULL,
	memories         INTEGER NOT NULL DEFAULT 0,
	facts            INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX consolidation_runs_day ON consolidation_runs(day, id);

CREATE TABLE leases (
	name       TEXT    PRIMARY KEY,
	holder     TEXT    NOT NULL,
	expires_at INTEGER NOT NULL                    -- unix milliseconds
);

ALTER TABLE facts ADD COLUMN value TEXT NOT NULL DEFAULT '';
CREATE INDEX facts_rejected ON facts(id) WHERE rejected = 1;
CREATE INDEX daily_memories_day ON daily_memories(day, ts);
`,
	// 4: forgetting that sticks, retention, and the LLM budget across
	// processes. forgotten holds the SHA-256 of the normalised content of
	// forgotten memories and rejected facts (never the text itself): a new
	// memory saying the same is stored flagged, consolidated by nothing and
	// never recalled. pruned_days keeps a day's record as it was when
	// retention deleted its raw memories, so a rebuild of that day starts
	// from it. A run names its process, so a budget can count the others.
	`
CREATE TABLE forgotten (
	norm_hash  TEXT    PRIMARY KEY,
	kind       TEXT    NOT NULL CHECK (kind IN ('memory', 'fact')),
	source_id  INTEGER NOT NULL,
	created_at INTEGER NOT NULL
) WITHOUT ROWID;
ALTER TABLE daily_memories ADD COLUMN flagged INTEGER NOT NULL DEFAULT 0;

CREATE TABLE pruned_days (
	date       TEXT    PRIMARY KEY,
	summary    TEXT    NOT NULL,
	key_facts  TEXT    NOT NULL DEFAULT '[]',
	entities   TEXT    NOT NULL DEFAULT '[]',
	topics     TEXT    NOT NULL DEFAULT '[]',
	insights   TEXT    NOT NULL DEFAULT '[]',
	source_ids TEXT    NOT NULL DEFAULT '[]',  -- every memory the record summarised, pruned ones included
	model      TEXT    NOT NULL DEFAULT '',
	pruned     INTEGER NOT NULL DEFAULT 0,     -- raw memories deleted by retention, all prunings together
	pruned_at  INTEGER NOT NULL
);

ALTER TABLE consolidation_runs ADD COLUMN holder TEXT NOT NULL DEFAULT '';
CREATE INDEX consolidation_runs_started ON consolidation_runs(started_at);
`,
	// 5: watched folders: memories know the file content they came from and
	// may be retired (no longer recalled, still explainable) when it changes
	// or goes; every file seen is tracked by root and path with its hash and
	// state; days whose consolidations cited a retired memory await a rebuild.
	`
ALTER TABLE daily_memories ADD COLUMN file_hash TEXT;      -- SHA-256 of the file content it came from
ALTER TABLE daily_memories ADD COLUMN retired_at INTEGER;  -- unix milliseconds; NULL while current
CREATE INDEX daily_memories_file ON daily_memories(file_hash) WHERE file_hash IS NOT NULL;

CREATE TABLE tracked_files (
	root       TEXT    NOT NULL,                   -- the watched folder, absolute
	path       TEXT    NOT NULL,                   -- relative to root, slash-separated
	sha256     TEXT    NOT NULL,
	size       INTEGER NOT NULL,
	mtime      INTEGER NOT NULL,                   -- unix nanoseconds
	status     TEXT    NOT NULL CHECK (status IN ('ok', 'skipped', 'failed')),
	error      TEXT    NOT NULL DEFAULT '',
	attempts   INTEGER NOT NULL DEFAULT 0,         -- failures in a row
	next_retry INTEGER NOT NULL DEFAULT 0,         -- unix milliseconds
	memories   INTEGER NOT NULL DEFAULT 0,
	updated_at INTEGER NOT NULL,
	PRIMARY KEY (root, path)
) WITHOUT ROWID;
CREATE INDEX tracked_files_hash ON tracked_files(sha256);
CREATE INDEX tracked_files_failed ON tracked_files(next_retry) WHERE status = 'failed';

CREATE TABLE file_rebuild_days (
	day       TEXT    PRIMARY KEY,                 -- YYYY-MM-DD, local
	reason    TEXT    NOT NULL,
	marked_at INTEGER NOT NULL
);
`,
	// 6: recall's index-only fast path must know at once whether any memory
	// is excluded from recall (flagged or retired).
	`
CREATE INDEX daily_memories_excluded ON daily_memories(id) WHERE flagged = 1 OR retired_at IS NOT NULL;
`,
	// 7: every memory is indexed under the kinds of thing its words name
	// ("Chicago": city), so a question asked by kind finds it. The index
	// keeps no copy of the kinds (contentless); dormouse_kinds is the Go
	// function every connection registers (internal/kinds).
	`
CREATE VIRTUAL TABLE memory_kinds USING fts5(
	kinds, content='', contentless_delete=1, tokenize='porter unicode61');
INSERT INTO memory_kinds(rowid, kinds) SELECT id, dormouse_kinds(content) FROM daily_memories;
` + kindsTriggers,
	// 8: the optional semantic arm of recall: one embedding per memory, of
	// the model named, as little-endian float32 of unit length. Deleting a
	// memory deletes its vector; changing its content drops it (the
	// background embedder makes a new one).
	`
CREATE TABLE memory_embeddings (
	memory_id INTEGER PRIMARY KEY REFERENCES daily_memories(id) ON DELETE CASCADE,
	model     TEXT    NOT NULL,
	dim       INTEGER NOT NULL,
	vec       BLOB    NOT NULL
);
CREATE TRIGGER daily_memories_embeddings_ad AFTER DELETE ON daily_memories BEGIN
	DELETE FROM memory_embeddings WHERE memory_id = old.id;
END;
CREATE TRIGGER daily_memories_embeddings_au AFTER UPDATE OF content ON daily_memories BEGIN
	DELETE FROM memory_embeddings WHERE memory_id = old.id;
END;
`,
	// 9: the kinds lexicon learned chat words WordNet lacks ("fam": family,
	// "gf": girlfriend): every memory is indexed afresh. A later change of
	// the lexicon that should reach stored memories is another such step.
	`
INSERT INTO memory_kinds(memory_kinds) VALUES ('delete-all');
INSERT INTO memory_kinds(rowid, kinds) SELECT id, dormouse_kinds(content) FROM daily_memories;
`,
	// 10: a memory stating a value that a later one replaced (the old phone
	// number) names its successor; it is kept, and recall offers it as
	// current only to a question asked before the successor. The partial
	// index tells recall at once whether any memory is superseded and finds
	// the ones a successor replaced.
	`
ALTER TABLE daily_memories ADD COLUMN superseded_by INTEGER; -- the successor memory's id; NULL while current
CREATE INDEX daily_memories_superseded ON daily_memories(superseded_by) WHERE superseded_by IS NOT NULL;
`,
	// 11: the profile (profile.go): durable statements about the user's
	// world, each a claim (subject, key, value) in words, citing its
	// memories, with a validity interval like facts. A removed line stays, so
	// the builder never offers its claim again.
	`
CREATE TABLE profile_lines (
	id                INTEGER PRIMARY KEY AUTOINCREMENT,
	category          TEXT    NOT NULL,
	subject           TEXT    NOT NULL,
	key               TEXT    NOT NULL,
	value             TEXT    NOT NULL,
	text              TEXT    NOT NULL,
	source_memory_ids TEXT    NOT NULL DEFAULT '[]',
	single            INTEGER NOT NULL DEFAULT 0,  -- a new value of the key ends the line
	valid_from        INTEGER NOT NULL,
	valid_to          INTEGER,
	superseded_by     INTEGER REFERENCES profile_lines(id) ON DELETE SET NULL,
	edited            INTEGER NOT NULL DEFAULT 0,
	removed           INTEGER NOT NULL DEFAULT 0,
	created_at        INTEGER NOT NULL
);
CREATE INDEX profile_lines_claim ON profile_lines(subject COLLATE NOCASE, key, valid_from);
CREATE INDEX profile_lines_current ON profile_lines(valid_from) WHERE valid_to IS NULL AND removed = 0;
`,
	// 12: the kinds lexicon learned occupations
	// ("engineer": occupation, job), the people a place is for ("nursery":
	// child) and world knowledge WordNet lacks ("Skoda": car, "cockapoo":
	// dog): every memory is indexed afresh.
	`
INSERT INTO memory_kinds(memory_kinds) VALUES ('delete-all');
INSERT INTO memory_kinds(rowid, kinds) SELECT id, dormouse_kinds(content) FROM daily_memories;
`,
	// 13: the duplicate probe's index holds the first 8 of the content
	// hash's 64 hex digits, and the probe compares the whole hash of the
	// few rows it finds. The hashes are random, so a batch's entries land on
	// nearly every page of that index, and each commit wrote all of them to
	// the WAL again: at 10,000 memories, 179 of a 500-memory batch's 322
	// pages. Its entries are a fifth the size, so it has a fifth the pages.
	`
DROP INDEX daily_memories_hash;
CREATE INDEX daily_memories_hash_prefix ON daily_memories(substr(content_hash, 1, 8));
`,
	// 14: facts_entity compares entities case-blind, as every lookup of an
	// entity's facts does ("Maya" and "maya" are one entity): compared
	// case-sensitively, SQLite could not search it for them, and each fact
	// a consolidation put scanned every current fact.
	`
DROP INDEX facts_entity;
CREATE INDEX facts_entity ON facts(entity COLLATE NOCASE, attribute);
`,
	// 15: sharing one memory with another agent (share.go). A copy names the
	// agent and memory it was shared from, at most one copy per original. The
	// original's file lists the agents it was shared to, written before the
	// copy, so forgetting (or retiring) it finds every copy: the transaction
	// that forgets it queues each copy's forget in share_forgets, deleted
	// once done, so a crash or an unavailable agent leaves it to retry.
	`
ALTER TABLE daily_memories ADD COLUMN shared_from_agent TEXT;    -- NULL for the agent's own memories
ALTER TABLE daily_memories ADD COLUMN shared_from_id INTEGER;    -- the memory's id in that agent
CREATE UNIQUE INDEX daily_memories_shared_from ON daily_memories(shared_from_agent, shared_from_id)
	WHERE shared_from_agent IS NOT NULL;

CREATE TABLE shared_to (
	memory_id INTEGER NOT NULL,
	agent     TEXT    NOT NULL,
	PRIMARY KEY (memory_id, agent)
) WITHOUT ROWID;

CREATE TABLE share_forgets (
	agent      TEXT    NOT NULL,                   -- where the copy is
	memory_id  INTEGER NOT NULL,                   -- the forgotten original, in this file
	retire     INTEGER NOT NULL DEFAULT 0,         -- 1: the original was retired, not forgotten
	created_at INTEGER NOT NULL,
	PRIMARY KEY (agent, memory_id)
) WITHOUT ROWID;
`,
	// 16: the duplicate probe's index leads with the memory's UTC day
	// (ts / 86400000), then the hash's first 8 digits. Keyed by the hash
	// alone, a batch's entries landed on random pages of an index as large
	// as the store, read past the page cache and written to the WAL again at
	// every commit; keyed by day first, they land in the day's few pages.
	// The probe looks up each day of its window.
	`
DROP INDEX daily_memories_hash_prefix;
CREATE INDEX daily_memories_day_hash ON daily_memories(ts / 86400000, substr(content_hash, 1, 8));
`,
	// 17: the kinds lexicon learned more world knowledge (car and motorbike
	// makes such as Cupra and Ducati, campervans and caravans as vehicles, a
	// bike as a bicycle, everyday medicines such as levothyroxine, breads and
	// bakes such as focaccia): every memory is indexed afresh.
	`
INSERT INTO memory_kinds(memory_kinds) VALUES ('delete-all');
INSERT INTO memory_kinds(rowid, kinds) SELECT id, dormouse_kinds(content) FROM daily_memories;
`,
	// 18: the kinds lexicon knows a medicine by its stem ("atorvastatin",
	// "lansoprazole": kinds.drugShaped): every memory is indexed afresh.
	`
INSERT INTO memory_kinds(memory_kinds) VALUES ('delete-all');
INSERT INTO memory_kinds(rowid, kinds) SELECT id, dormouse_kinds(content) FROM daily_memories;
`,
	// 19: the file names the lexicon its kinds index was built with
	// (kinds.Version; 18's is stamped here). One that changes indexes the
	// kinds afresh at the next open (restampKinds, later.go), so the
	// lexicon's lists change with no migration of their own.
	`
CREATE TABLE kinds_version (version TEXT NOT NULL);
INSERT INTO kinds_version VALUES ('1fba4ddac91d3c88');
`,
}

// SchemaVersion is the user_version a fully migrated agent file has.
var SchemaVersion = len(migrations)

// migrate brings the file on c up to schema version upTo, one transaction per
// step, so a crash mid-way leaves a consistent older version. The version is
// read inside each write transaction: another process migrating the same file
// at the same time is waited for, not raced.
func migrate(ctx context.Context, c *conn, upTo int) error {
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := c.exec("BEGIN IMMEDIATE"); err != nil {
			return fmt.Errorf("migrate schema: %w", err)
		}
		done, err := migrateStep(c, upTo)
		if err != nil {
			_ = c.exec("ROLLBACK")
			return err
		}
		if err := c.exec("COMMIT"); err != nil {
			_ = c.exec("ROLLBACK")
			return fmt.Errorf("migrate schema: commit: %w", err)
		}
		if done {
			return nil
		}
	}
}

// migrateStep applies the next migration, if any, inside the caller's
// transaction.
func migrateStep(c *conn, upTo int) (done bool, err error) {
	v, err := c.userVersion()
	if err != nil {
		return false, fmt.Errorf("read schema version: %w", err)
	}
	if v > len(migrations) {
		return false, fmt.Errorf("schema version %d is newer than this dormouse understands (%d): upgrade dormouse", v, len(migrations))
	}
	if v >= upTo {
		return true, nil
	}
	deferred, err := deferStep(c, v) // later.go
	if err != nil {
		return false, fmt.Errorf("migrate schema to version %d: %w", v+1, err)
	}
	if !deferred {
		if err := c.exec(migrations[v]); err != nil {
			return false, fmt.Errorf("migrate schema to version %d: %w", v+1, err)
		}
	}
	if err := c.exec(fmt.Sprintf("PRAGMA user_version = %d", v+1)); err != nil {
		return false, fmt.Errorf("migrate schema to version %d: %w", v+1, err)
	}
	return v+1 >= upTo, nil
}

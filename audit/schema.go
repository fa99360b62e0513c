package audit

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// migrations is the schema history, oldest first. migrations[i] takes a database from
// user_version i to i+1. Append only: never edit or reorder an entry that has shipped.
var migrations = []string{
	// 1: tasks, model calls and REPL steps.
	`CREATE TABLE tasks (
		id            TEXT PRIMARY KEY,
		question      TEXT NOT NULL DEFAULT '',
		status        TEXT NOT NULL,
		answer        TEXT NOT NULL DEFAULT '',
		error_kind    TEXT NOT NULL DEFAULT '',
		error_message TEXT NOT NULL DEFAULT '',
		calls         INTEGER NOT NULL DEFAULT 0,
		tokens        INTEGER NOT NULL DEFAULT 0,
		pid           INTEGER NOT NULL DEFAULT 0,
		started_at    TEXT NOT NULL,
		ended_at      TEXT NOT NULL DEFAULT '',
		ctx_files     TEXT NOT NULL DEFAULT '[]',
		ctx_metadata  TEXT NOT NULL DEFAULT '{}',
		lang          TEXT NOT NULL DEFAULT '',
		model         TEXT NOT NULL DEFAULT ''
	);
	CREATE TABLE api_calls (
		id                INTEGER PRIMARY KEY,
		task              TEXT NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
		agent             TEXT NOT NULL DEFAULT '',
		model             TEXT NOT NULL DEFAULT '',
		prompt_tokens     INTEGER NOT NULL DEFAULT 0,
		completion_tokens INTEGER NOT NULL DEFAULT 0,
		latency_ms        INTEGER NOT NULL DEFAULT 0,
		status            TEXT NOT NULL DEFAULT '',
		error             TEXT NOT NULL DEFAULT '',
		at                TEXT NOT NULL
	);
	CREATE TABLE steps (
		id         INTEGER PRIMARY KEY,
		task       TEXT NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
		step       INTEGER NOT NULL,
		attempt    INTEGER NOT NULL,
		code       TEXT NOT NULL DEFAULT '',
		output     TEXT NOT NULL DEFAULT '',
		decision   TEXT NOT NULL DEFAULT '',
		findings   TEXT NOT NULL DEFAULT '[]',
		error_kind TEXT NOT NULL DEFAULT '',
		at         TEXT NOT NULL
	);`,
	// 2: trusted tool calls, and indexes for reading one task's records back.
	`CREATE TABLE tool_calls (
		id          INTEGER PRIMARY KEY,
		task        TEXT NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
		step        INTEGER NOT NULL DEFAULT 0,
		name        TEXT NOT NULL,
		args        TEXT NOT NULL DEFAULT '{}',
		result      TEXT NOT NULL DEFAULT '',
		error       TEXT NOT NULL DEFAULT '',
		duration_ms INTEGER NOT NULL DEFAULT 0,
		at          TEXT NOT NULL
	);
	CREATE INDEX api_calls_task ON api_calls(task, id);
	CREATE INDEX steps_task ON steps(task, id);
	CREATE INDEX tool_calls_task ON tool_calls(task, id);
	CREATE INDEX tasks_started ON tasks(started_at);`,
	// 3: models on several backends, and money. Each call records the backend that served it,
	// its cached prompt tokens, where its token counts came from, and its cost in US dollars
	// (NULL when unknown: no price and no cost reported, never 0). A task keeps the dollars
	// known so far and how many calls were of unknown cost; the calls recorded before this
	// migration are all of unknown cost.
	`ALTER TABLE api_calls ADD COLUMN backend TEXT NOT NULL DEFAULT '';
	ALTER TABLE api_calls ADD COLUMN cached_tokens INTEGER NOT NULL DEFAULT 0;
	ALTER TABLE api_calls ADD COLUMN source TEXT NOT NULL DEFAULT '';
	ALTER TABLE api_calls ADD COLUMN cost_usd REAL;
	ALTER TABLE tasks ADD COLUMN cost_usd REAL NOT NULL DEFAULT 0;
	ALTER TABLE tasks ADD COLUMN cost_unknown INTEGER NOT NULL DEFAULT 0;
	UPDATE tasks SET cost_unknown = calls;`,
}

// migrate applies the entries of migs that db has not seen yet, each in its own IMMEDIATE
// transaction together with the user_version bump, so a crash leaves the schema at a version
// boundary. It refuses a database whose version is beyond len(migs).
//
// Two connections opening a new database at once (two runs of one batch) can find it busy
// without the busy timeout applying, while the other switches it to WAL: the step is then
// tried again, for up to busyRetry.
func migrate(ctx context.Context, db *sql.DB, migs []string) error {
	deadline := time.Now().Add(busyRetry)
	for {
		done, err := migrateOne(ctx, db, migs)
		if err != nil && isBusy(err) && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
			continue
		}
		if err != nil || done {
			return err
		}
	}
}

// busyRetry bounds the retries of a migration step that found the database busy.
const busyRetry = 5 * time.Second

// isBusy reports whether err is SQLite's SQLITE_BUSY (5) or one of its extended codes.
func isBusy(err error) bool {
	var ce interface{ Code() int }
	return errors.As(err, &ce) && ce.Code()&0xff == 5
}

// migrateOne applies the next missing migration and reports whether none was missing.
func migrateOne(ctx context.Context, db *sql.DB, migs []string) (done bool, err error) {
	tx, err := db.BeginTx(ctx, nil) // _txlock=immediate: takes the write lock at once
	if err != nil {
		return false, fmt.Errorf("begin migration: %w", err)
	}
	defer func() {
		if err != nil {
			_ = tx.Rollback()
		}
	}()
	var v int
	if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		return false, fmt.Errorf("read schema version: %w", err)
	}
	switch {
	case v > len(migs):
		return false, fmt.Errorf("schema version %d is newer than this rlm knows (%d); use a newer rlm or another RLM_HOME", v, len(migs))
	case v == len(migs):
		return true, tx.Rollback()
	}
	if _, err := tx.ExecContext(ctx, migs[v]); err != nil {
		return false, fmt.Errorf("migration %d: %w", v+1, err)
	}
	// PRAGMA takes no bind parameters; v+1 is an int we computed.
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", v+1)); err != nil {
		return false, fmt.Errorf("migration %d: set schema version: %w", v+1, err)
	}
	if err := tx.Commit(); err != nil {
		return false, fmt.Errorf("migration %d: commit: %w", v+1, err)
	}
	return false, nil
}

-- Accepted jobs and VM power history. Times are wall-clock Unix seconds.
-- `seq` (the rowid) only grows: rows are never deleted, so no AUTOINCREMENT bookkeeping.
CREATE TABLE IF NOT EXISTS jobs (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    submission TEXT NOT NULL,
    arrival DOUBLE PRECISION NOT NULL,
    state TEXT NOT NULL,
    placement TEXT,
    start DOUBLE PRECISION,
    finish DOUBLE PRECISION,
    reason TEXT,
    observed TEXT
);
CREATE TABLE IF NOT EXISTS vm_power (
    seq INTEGER PRIMARY KEY,
    vm BIGINT NOT NULL,
    on_at DOUBLE PRECISION NOT NULL,
    off_at DOUBLE PRECISION
);

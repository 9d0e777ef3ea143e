-- When the scheduler first passed the queue with each job (wall-clock Unix seconds); and
-- What the VMs suffered: a host lost (`lost`) or a power-on the provider refused
-- (`refused`), with the VM and the wall-clock Unix seconds, so `frugal whatif` replays the
-- same losses under other policies.
CREATE TABLE IF NOT EXISTS vm_events (
    seq INTEGER PRIMARY KEY,
    vm BIGINT NOT NULL,
    at DOUBLE PRECISION NOT NULL,
    kind TEXT NOT NULL
);
ALTER TABLE jobs ADD COLUMN queued_at DOUBLE PRECISION;

-- One name for one instant: the column that 0004 added as `queued_at` holds when the
-- scheduler first passed the queue with the job, which the controller calls `offered_at`
-- (frugal_core::control::JobRecord); the store now uses that name too.
ALTER TABLE jobs RENAME COLUMN queued_at TO offered_at;

-- Paginated listing by state, and the open power interval of a VM.
CREATE INDEX IF NOT EXISTS jobs_state_seq ON jobs (state, seq);
CREATE INDEX IF NOT EXISTS vm_power_open ON vm_power (vm) WHERE off_at IS NULL;

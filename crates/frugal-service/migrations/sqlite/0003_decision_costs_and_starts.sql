-- The cost of each job's placement and of the exact optimum at the same instant (paper 000
-- Eq. 16), dollars; and the configuration of every start of the service (cluster, billing,
-- policy, queue, budget, speed-up as JSON), which `frugal whatif` replays. Times are
-- wall-clock Unix seconds.
ALTER TABLE jobs ADD COLUMN chosen_cost DOUBLE PRECISION;
ALTER TABLE jobs ADD COLUMN optimal_cost DOUBLE PRECISION;
CREATE TABLE IF NOT EXISTS service_starts (
    seq INTEGER PRIMARY KEY,
    at DOUBLE PRECISION NOT NULL,
    config TEXT NOT NULL
);

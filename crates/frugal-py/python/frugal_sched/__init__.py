"""Gymnasium environments for cost-aware Spark executor placement on the frugal simulator.

``SparkPlacementEnv`` is one environment (paper 002 §4–6): each step places one executor
of the current job on a VM (actions 1..N) or waits (action 0) until the next job arrival or
completion, on the simulator's clock and bill. ``VecSparkPlacementEnv`` steps many
environments in one native call. Both are registered with Gymnasium on import:

    gymnasium.make("frugal_sched/SparkPlacement-v0", pattern="burst", render_mode="ansi")
    gymnasium.make_vec("frugal_sched/SparkPlacement-v0", num_envs=64,
                       vectorization_mode="vector_entry_point")

``simulate``, ``bag_of_tasks``, ``ephemeral``, ``spot``, ``zones`` and ``run_experiment`` run frugal's
comparisons and experiment files and return their rows as pandas DataFrames (the values
the CLI prints with ``--format csv``); ``load_results`` reads an ``--out`` folder.
"""

from __future__ import annotations

from typing import TYPE_CHECKING as _TYPE_CHECKING

import gymnasium as _gym
import numpy as _np
from gymnasium import spaces as _spaces
from gymnasium.vector import AutoresetMode as _AutoresetMode
from gymnasium.vector import VectorEnv as _VectorEnv

if _TYPE_CHECKING:
    from typing import Any

from frugal_sched._native import Env as _Env
from frugal_sched._native import VecEnv as _VecEnv

from frugal_sched._runs import bag_of_tasks, ephemeral, load_results, run_experiment, simulate
from frugal_sched._spot import spot
from frugal_sched._zones import zones

# `from __future__ import annotations` binds the name `annotations`; it is not part of
# the package's namespace.
del annotations

__all__ = [
    "ENV_ID",
    "SparkPlacementEnv",
    "VecSparkPlacementEnv",
    "__version__",
    "bag_of_tasks",
    "ephemeral",
    "load_results",
    "run_experiment",
    "simulate",
    "spot",
    "zones",
]

try:
    from importlib.metadata import PackageNotFoundError as _PackageNotFoundError
    from importlib.metadata import version as _version

    __version__: str = _version("frugal-sched")
except _PackageNotFoundError:  # imported from a source tree without installing
    __version__ = "0+unknown"

#: The Gymnasium id of :class:`SparkPlacementEnv`.
ENV_ID = "frugal_sched/SparkPlacement-v0"


class SparkPlacementEnv(_gym.Env):
    """Executor placement as a Gymnasium environment.

    Args:
        pattern: ``"normal"`` (first 50 jobs of an hour of FB-2009) or ``"burst"`` (first
            100 jobs of a busy hour).
        split: ``"train"`` or ``"eval"``; which episodes each holds is the protocol's.
        protocol: ``"held-out"`` (train on the pattern's other FB-2009 hours, evaluate on
            hour 0 / hour 6) or ``"paper"`` (train and evaluate on the evaluation episode,
            as paper 002's own environment does).
        jobs: ``"swim"`` (frugal's mapping of the FB-2009 records) or ``"generator"``
            (paper 002 §7.1: uniformly drawn BigDataBench jobs at the trace's arrivals).
        mode: ``"masked"`` (infeasible actions are ignored with the invalid reward; use
            ``action_masks()``) or ``"paper"`` (an infeasible action ends the episode
            with −200, paper 002 Table 3).
        beta: weight of cost against job run time in the episodic reward (Eq. 14).
        dict_observation: observe ``{"observation", "action_mask"}`` instead of a vector.
        cluster, pricing: a frugal cluster preset and pricing model.
        workload_seed: seed of the episodes' jobs (the generator's draws; with ``"swim"``,
            which jobs carry deadlines, which the environment does not use).
        render_mode: ``None`` or ``"ansi"`` (``render()`` returns the clock, the bill, the
            job being placed and each VM's power state and free capacity as text).

    Observation: float32 vector of length 3N + 6 in [0, 1] — per VM free cores, free
    memory and price (normalised), then the job kind one-hot, executor cores and memory
    and executors left. Reward: +1 per placement, −1 per wait, the invalid reward for an
    infeasible action, plus R_epi (Eq. 14) on the last placement. ``info`` carries the
    episode's KPIs so far: ``time_s`` (simulated s), ``cost_usd`` (dollars billed, Eq. 4),
    ``jobs_scheduled``, ``jobs_total``, and at the end ``mean_duration_s`` (Eq. 5),
    ``mean_jct_s`` and ``deadline_met_pct`` (None without deadline jobs).
    """

    metadata = {"render_modes": ["ansi"]}

    def __init__(
        self,
        pattern: str = "burst",
        split: str = "train",
        mode: str = "masked",
        beta: float = 0.5,
        dict_observation: bool = False,
        cluster: str = "paper002-cloud",
        pricing: str = "real",
        workload_seed: int = 1,
        render_mode: str | None = None,
        protocol: str = "held-out",
        jobs: str = "swim",
    ) -> None:
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(f"render_mode must be None or 'ansi', got {render_mode!r}")
        self.render_mode = render_mode
        self._env = _Env(
            pattern, split, mode, beta, cluster, pricing, workload_seed, protocol, jobs
        )
        self._dict = dict_observation
        vector = _spaces.Box(0.0, 1.0, shape=(self._env.observation_len,), dtype=_np.float32)
        self.action_space = _spaces.Discrete(self._env.action_count)
        if dict_observation:
            self.observation_space = _spaces.Dict(
                {"observation": vector, "action_mask": _spaces.MultiBinary(self._env.action_count)}
            )
        else:
            self.observation_space = vector

    def _observe(self, obs: _np.ndarray) -> Any:
        if self._dict:
            return {"observation": obs, "action_mask": self._env.action_mask().astype(_np.int8)}
        return obs

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        if seed is not None and seed < 0:
            raise ValueError("seed must be non-negative")
        obs = self._env.reset(seed)
        return self._observe(obs), self._env.kpis()

    def step(self, action):
        obs, reward, terminated, truncated = self._env.step(int(action))
        return self._observe(obs), reward, terminated, truncated, self._env.kpis()

    def action_masks(self) -> _np.ndarray:
        """Feasible actions, for sb3-contrib's MaskablePPO."""
        return self._env.action_mask()

    def render(self) -> str | None:
        """The state as text with ``render_mode="ansi"``; nothing otherwise."""
        if self.render_mode == "ansi":
            return self._env.render_text()
        return None


class VecSparkPlacementEnv(_VectorEnv):
    """``num_envs`` environments stepped in one native call.

    Environments reset in the same step their episode ends (``autoreset_mode`` SAME_STEP):
    the returned observation is then the new episode's first one. Keyword arguments are
    those of :class:`SparkPlacementEnv` except ``dict_observation``.
    """

    metadata = {"render_modes": [], "autoreset_mode": _AutoresetMode.SAME_STEP}

    def __init__(self, num_envs: int, **kwargs: Any) -> None:
        self._env = _VecEnv(num_envs, **kwargs)
        self.num_envs = num_envs
        self.single_observation_space = _spaces.Box(
            0.0, 1.0, shape=(self._env.observation_len,), dtype=_np.float32
        )
        self.single_action_space = _spaces.Discrete(self._env.action_count)
        self.observation_space = _gym.vector.utils.batch_space(self.single_observation_space, num_envs)
        self.action_space = _gym.vector.utils.batch_space(self.single_action_space, num_envs)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        return self._env.reset(seed), {}

    def step(self, actions):
        obs, rewards, terminated, truncated = self._env.step(_np.asarray(actions, dtype=_np.int64))
        return obs, rewards, terminated, truncated, {}

    def action_masks(self) -> _np.ndarray:
        """Feasible actions of every environment, shape (num_envs, N + 1)."""
        return self._env.action_masks()


_gym.register(
    id=ENV_ID,
    entry_point="frugal_sched:SparkPlacementEnv",
    vector_entry_point="frugal_sched:VecSparkPlacementEnv",
)

"""Steps per second through the Python binding: one env, and N envs stepped in one call.

Run: python crates/frugal-py/bench.py  (after `pip install ./crates/frugal-py`)
Actions are uniformly random among the feasible ones, drawn with numpy.
"""

import sys
import time

import numpy as np

from frugal_sched import SparkPlacementEnv, VecSparkPlacementEnv


def single(steps: int) -> float:
    env = SparkPlacementEnv(pattern="burst", split="train")
    rng = np.random.default_rng(0)
    env.reset(seed=0)
    t0 = time.perf_counter()
    for _ in range(steps):
        mask = env.action_masks()
        action = int((rng.random(mask.shape[0]) * mask).argmax())
        _, _, terminated, truncated, _ = env.step(action)
        if terminated or truncated:
            env.reset()
    return steps / (time.perf_counter() - t0)


def vectorised(num_envs: int, calls: int) -> float:
    venv = VecSparkPlacementEnv(num_envs, pattern="burst", split="train")
    rng = np.random.default_rng(0)
    venv.reset(seed=0)
    t0 = time.perf_counter()
    for _ in range(calls):
        masks = venv.action_masks()
        actions = (rng.random(masks.shape) * masks).argmax(axis=1)
        venv.step(actions)
    return num_envs * calls / (time.perf_counter() - t0)


if __name__ == "__main__":
    scale = int(sys.argv[1]) if len(sys.argv) > 1 else 1
    print(f"single env: {single(100_000 * scale):,.0f} steps/s")
    for n in (16, 64, 256):
        print(f"{n} envs per call: {vectorised(n, 200_000 * scale // n):,.0f} steps/s")

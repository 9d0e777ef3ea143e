"""The Python package: Gymnasium conformance, masks, determinism and the vector env."""

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import frugal_sched
from frugal_sched import SparkPlacementEnv, VecSparkPlacementEnv


@pytest.mark.parametrize("mode", ["masked", "paper"])
@pytest.mark.parametrize("dict_observation", [False, True])
def test_check_env_passes(mode, dict_observation):
    check_env(SparkPlacementEnv(mode=mode, dict_observation=dict_observation, render_mode="ansi"))


def run_masked_episode(env, rng):
    obs, info = env.reset(seed=7)
    total, steps = 0.0, 0
    while True:
        mask = env.action_masks()
        assert mask.dtype == np.bool_ and mask.any()
        assert env.observation_space.contains(obs)
        obs, reward, terminated, truncated, info = env.step(rng.choice(np.flatnonzero(mask)))
        total += reward
        steps += 1
        if terminated or truncated:
            return total, steps, info


def test_random_masked_episode_schedules_every_job_deterministically():
    env = SparkPlacementEnv(pattern="normal", split="eval")
    a = run_masked_episode(env, np.random.default_rng(0))
    b = run_masked_episode(env, np.random.default_rng(0))
    assert a == b
    total, steps, info = a
    assert info["jobs_scheduled"] == info["jobs_total"] == 50
    assert info["cost_usd"] > 0 and info["mean_jct_s"] > 0
    assert total > 1000  # the episodic reward (R_fixed = 10,000 scaled) was paid


def test_paper_mode_ends_on_an_infeasible_action():
    env = SparkPlacementEnv(mode="paper", pattern="burst", split="eval")
    env.reset(seed=0)
    # Keep placing on VM 1 (4 cores): it fills, and the next placement there is invalid.
    for _ in range(100):
        feasible = bool(env.action_masks()[1])
        _, reward, terminated, _, _ = env.step(1)
        if not feasible:
            assert (reward, terminated) == (-200.0, True)
            return
        assert reward >= 1.0
    pytest.fail("VM 1 never filled up")


def test_bad_arguments_raise():
    with pytest.raises(ValueError, match="pattern"):
        SparkPlacementEnv(pattern="steady")
    env = SparkPlacementEnv()
    env.reset(seed=0)
    with pytest.raises(ValueError, match="outside"):
        env.step(10_000)


def test_vector_env_steps_and_autoresets():
    venv = VecSparkPlacementEnv(8, pattern="normal", split="train")
    obs, _ = venv.reset(seed=3)
    assert obs.shape == (8, venv.single_observation_space.shape[0])
    rng = np.random.default_rng(1)
    ended = 0
    for _ in range(3000):
        masks = venv.action_masks()
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        obs, rewards, terminated, truncated, _ = venv.step(actions)
        assert obs.dtype == np.float32 and rewards.shape == (8,)
        ended += int(terminated.sum())
    assert ended > 0
    assert isinstance(venv, gym.vector.VectorEnv)


def test_registered_with_gymnasium_and_versioned():
    env = gym.make(frugal_sched.ENV_ID, pattern="normal", split="eval")
    obs, _ = env.reset(seed=3)
    assert env.observation_space.contains(obs)
    venv = gym.make_vec(frugal_sched.ENV_ID, num_envs=4, vectorization_mode="vector_entry_point")
    obs, _ = venv.reset(seed=3)
    assert obs.shape[0] == 4
    assert frugal_sched.__version__ and frugal_sched.__version__ != "0+unknown"


def test_ansi_render_shows_the_job_and_every_vm():
    env = SparkPlacementEnv(pattern="normal", split="eval", render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert text.startswith("t = ") and "cost $0.0000" in text
    assert "executors of" in text
    assert text.count("\nvm ") == env.action_space.n - 1
    env.step(int(np.flatnonzero(env.action_masks()[1:])[0]) + 1)
    assert " on " in env.render()
    assert SparkPlacementEnv().render() is None
    with pytest.raises(ValueError, match="render_mode"):
        SparkPlacementEnv(render_mode="human")

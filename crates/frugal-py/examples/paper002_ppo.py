"""Train sb3-contrib's MaskablePPO on a paper 002 environment and save its policy as a frugal
checkpoint, so `frugal simulate --policies rl:<file>` (and `frugal reproduce 002`) run it
without PyTorch.

    pip install "./crates/frugal-py[examples]"
    python crates/frugal-py/examples/paper002_ppo.py OUT.safetensors \\
        --protocol paper --jobs generator --pattern burst --beta 0.75 --seed 1 --steps 2000000

The policy network is frugal's: one hidden layer of 200 ReLU units (paper 002 Table 5), so
the actor's weights load as a frugal agent; the value network has the same shape. The
checkpoint's JSON records the command, the settings and the learning curve (the greedy
evaluation episode every `--eval-every` steps) like `frugal train` does; its agent is
`ppo`. sb3-contrib pulls PyTorch (several GB), so this is not run in CI.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import time

import numpy as np
import torch
from safetensors.numpy import save_file
from sb3_contrib import MaskablePPO
from sb3_contrib.common.wrappers import ActionMasker
from stable_baselines3.common.callbacks import BaseCallback

from frugal_sched import SparkPlacementEnv


def make_env(a: argparse.Namespace, split: str) -> SparkPlacementEnv:
    return SparkPlacementEnv(
        pattern=a.pattern,
        split=split,
        beta=a.beta,
        protocol=a.protocol,
        jobs=a.jobs,
        workload_seed=a.episode_seed,
    )


def evaluate(model: MaskablePPO, env: SparkPlacementEnv, seed: int) -> dict:
    """One greedy episode (masked argmax), as frugal evaluates its own agents."""
    obs, info = env.reset(seed=seed)
    total, done = 0.0, False
    while not done:
        action, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
        obs, reward, terminated, truncated, info = env.step(action)
        total += reward
        done = terminated or truncated
    return {
        "eval_return": total,
        "eval_cost_usd": info["cost_usd"],
        "eval_mean_jct_s": info["mean_jct_s"],
        "eval_mean_run_s": info["mean_duration_s"],
    }


class Curve(BaseCallback):
    """Evaluates the greedy policy every `every` steps; keeps the training returns between."""

    def __init__(self, env: SparkPlacementEnv, every: int, seed: int) -> None:
        super().__init__()
        self.env, self.every, self.seed = env, every, seed
        self.points: list[dict] = []
        self.returns: list[float] = []
        self.next = every

    def _on_step(self) -> bool:
        for info in self.locals.get("infos", []):
            if "episode" in info:
                self.returns.append(float(info["episode"]["r"]))
        if self.num_timesteps >= self.next:
            self.next += self.every
            point = {"iteration": self.num_timesteps}
            point["train_return"] = float(np.mean(self.returns)) if self.returns else None
            point.update(evaluate(self.model, self.env, self.seed))
            self.points.append(point)
            self.returns = []
            print(json.dumps(point), file=sys.stderr, flush=True)
        return True


def export(model: MaskablePPO, env: SparkPlacementEnv, a: argparse.Namespace, curve: list) -> None:
    """The actor as frugal's `l1`/`l2` blocks, and the checkpoint's JSON."""
    net = model.policy
    hidden = net.mlp_extractor.policy_net[0]
    out = net.action_net
    tensors = {
        "l1.weight": hidden.weight.detach().cpu().numpy().astype(np.float32),
        "l1.bias": hidden.bias.detach().cpu().numpy().astype(np.float32),
        "l2.weight": out.weight.detach().cpu().numpy().astype(np.float32),
        "l2.bias": out.bias.detach().cpu().numpy().astype(np.float32),
    }
    save_file(tensors, a.out)
    meta = {
        "agent": "ppo",
        "vms": env.unwrapped._env.action_count - 1,
        "hidden": 200,
        "scale": env.unwrapped._env.observation_scale(),
        "training": {
            "beta": a.beta,
            "workload": a.pattern,
            "protocol": a.protocol,
            "jobs": a.jobs,
            "episode_seed": a.episode_seed,
            "steps": a.steps,
            "seed": a.seed,
            "mode": "masked",
            "cluster": "paper002-cloud",
            "pricing": "real",
            "trainer": "sb3-contrib MaskablePPO",
            "command": "python crates/frugal-py/examples/paper002_ppo.py " + shlex.join(sys.argv[1:]),
            "curve": curve,
        },
    }
    with open(a.out + ".json", "w") as f:
        json.dump(meta, f, indent=2)
        f.write("\n")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("out", help="checkpoint path (weights; PATH.json gets the description)")
    p.add_argument("--protocol", default="paper", choices=["paper", "held-out"])
    p.add_argument("--jobs", default="generator", choices=["generator", "swim"])
    p.add_argument("--pattern", default="burst", choices=["burst", "normal"])
    p.add_argument("--beta", type=float, default=0.75)
    p.add_argument("--episode-seed", type=int, default=1)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--steps", type=int, default=2_000_000, help="environment steps")
    p.add_argument("--eval-every", type=int, default=100_000, help="steps between evaluations")
    a = p.parse_args()
    torch.manual_seed(a.seed)
    torch.set_num_threads(1)
    train = ActionMasker(make_env(a, "train"), lambda e: e.action_masks())
    model = MaskablePPO(
        "MlpPolicy",
        train,
        seed=a.seed,
        learning_rate=1e-3,  # Table 5's, as for frugal's agents
        policy_kwargs={"net_arch": {"pi": [200], "vf": [200]}, "activation_fn": torch.nn.ReLU},
        verbose=0,
    )
    evaluation = make_env(a, "eval")
    curve = Curve(evaluation, a.eval_every, a.episode_seed)
    t0 = time.time()
    model.learn(total_timesteps=a.steps, callback=curve)
    print(f"trained {model.num_timesteps} steps in {time.time() - t0:.0f} s", file=sys.stderr)
    # The last rollout's update comes after the last evaluation: evaluate what is saved.
    final = {"iteration": model.num_timesteps, "train_return": None}
    final.update(evaluate(model, evaluation, a.episode_seed))
    if curve.points and curve.points[-1]["iteration"] == model.num_timesteps:
        curve.points[-1] = final
    else:
        curve.points.append(final)
    print(json.dumps(final), file=sys.stderr)
    export(model, train, a, curve.points)


if __name__ == "__main__":
    main()

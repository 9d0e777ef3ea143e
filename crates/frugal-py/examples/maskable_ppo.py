"""Train sb3-contrib's MaskablePPO on the burst pattern for a few thousand steps.

    pip install "./crates/frugal-py[examples]"
    python crates/frugal-py/examples/maskable_ppo.py

sb3-contrib pulls PyTorch (several GB), so this example is not run in CI.
"""

from sb3_contrib import MaskablePPO
from sb3_contrib.common.wrappers import ActionMasker

from frugal_sched import SparkPlacementEnv


def main(steps: int = 5_000) -> None:
    env = ActionMasker(SparkPlacementEnv(pattern="burst", split="train", beta=0.75), lambda e: e.action_masks())
    model = MaskablePPO("MlpPolicy", env, seed=1, verbose=0)
    model.learn(total_timesteps=steps)

    evaluation = SparkPlacementEnv(pattern="burst", split="eval", beta=0.75)
    obs, info = evaluation.reset(seed=0)
    done = False
    while not done:
        action, _ = model.predict(obs, action_masks=evaluation.action_masks(), deterministic=True)
        obs, _, terminated, truncated, info = evaluation.step(action)
        done = terminated or truncated
    print(f"evaluation hour: cost ${info['cost_usd']:.3f}, mean JCT {info['mean_jct_s']:.0f} s")


if __name__ == "__main__":
    main()

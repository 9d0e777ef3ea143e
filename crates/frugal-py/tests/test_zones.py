"""frugal_sched.zones: paper 006's published windows, Python multi-zone policies scored
beside the exact optimum, errors as Python's."""

import math
import typing

import pytest

import frugal_sched


def test_the_published_arms_reproduce_and_every_gap_is_at_least_zero():
    df = frugal_sched.zones(windows=2, policies=["optimal", "skynomad-rate", "up-s", "greedy"],
                            final_tick="omit", artifact_probe_billing=True)
    assert len(df) == 2 * 4
    published = df[df["policy"].isin(["skynomad-rate", "up-s"])]
    assert (published["diff_published_usd"].abs() <= 1e-3).all()
    assert (df["gap_usd"] >= -1e-9).all()
    assert df[df["policy"] == "greedy"]["published_usd"].isna().all()


def test_a_python_greedy_is_the_built_in_greedy():
    def greedy(obs):
        a = obs["active"]
        if a is not None and a["mode"] == "spot":
            return ["keep"]
        zones = obs["zones"]
        order = sorted(range(len(zones)),
                       key=lambda z: (zones[z]["spot_per_h"], z != obs["location"], z))
        return [("spot", z) for z in order] + ["idle"]

    df = frugal_sched.zones(policies=["optimal", "greedy"], custom={"my-greedy": greedy})
    mine = df[df["policy"] == "my-greedy"]["cost_usd"].to_numpy()
    theirs = df[df["policy"] == "greedy"]["cost_usd"].to_numpy()
    assert len(mine) == 5 and all(math.isclose(a, b, abs_tol=1e-9) for a, b in zip(mine, theirs))
    assert (df[df["policy"] == "my-greedy"]["gap_usd"] >= 0).all()


def test_probes_report_their_outcomes_the_next_tick():
    seen = []

    def prober(obs):
        seen.append(list(obs["results"]))
        return [("probe", 0), ("probe", 1), ("on-demand", 0)]

    frugal_sched.zones(windows=1, policies=[], custom={"prober": prober})
    assert seen[0] == [] and all(len(r) == 3 and r[2] is True for r in seen[1:])


def test_bad_input_is_refused_naming_it():
    with pytest.raises(ValueError, match="maybe"):
        frugal_sched.zones(windows=1, policies=[], custom={"broken": lambda obs: "maybe"})
    with pytest.raises(ValueError, match="zone index below 3"):
        frugal_sched.zones(windows=1, policies=[], custom={"far": lambda obs: [("spot", 7)]})
    with pytest.raises(KeyError, match="no such field"):
        frugal_sched.zones(windows=1, policies=[],
                           custom={"boom": lambda obs: obs["no such field"]})
    with pytest.raises(TypeError, match="policies"):
        frugal_sched.zones(policies="up-s")
    with pytest.raises(ValueError, match="scenario"):
        frugal_sched.zones(scenario="a100")
    with pytest.raises(ValueError, match="ratio"):
        frugal_sched.zones(ratio=0.5)
    with pytest.raises(ValueError, match="first_zones"):
        frugal_sched.zones(scenario="h100-europe", first_zones=3)
    with pytest.raises(ValueError, match="first_zones"):
        frugal_sched.zones(first_zones=0)
    with pytest.raises(ValueError, match="built-in"):
        frugal_sched.zones(windows=1, policies=[], custom={"greedy": lambda obs: "keep"})


def test_every_listed_scenario_and_policy_is_one_the_native_side_runs():
    # The Python names come from the Rust enums; each runs.
    assert "skynomad-v-neely-dpp" in frugal_sched._zones.ZONE_POLICIES
    assert "h100-8zone" in frugal_sched._zones.SCENARIOS
    # The type hint's list of scenarios is the native one.
    hint = typing.get_type_hints(frugal_sched.zones)["scenario"]
    assert set(typing.get_args(hint)) == set(frugal_sched._zones.SCENARIOS)
    for scenario in frugal_sched._zones.SCENARIOS:
        df = frugal_sched.zones(scenario=scenario, policies=["up-s"], windows=1)
        assert set(df["scenario"]) == {scenario}
    df = frugal_sched.zones(scenario="h100-europe", policies=list(frugal_sched._zones.ZONE_POLICIES),
                            windows=1)
    assert set(df["policy"]) == set(frugal_sched._zones.ZONE_POLICIES)

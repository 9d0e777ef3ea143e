#!/usr/bin/env bash
# Trains the paper 002 agents shipped in experiments/checkpoints/paper002 from scratch, at the
# paper's budget (Table 5, §7.2: 10,000 iterations on the normal pattern, 20,000 on the burst
# pattern, an evaluation every 1,000), several agents at once (one per core):
#
#   scripts/train-paper002.sh OUT [FRUGAL]
#
# OUT/<dir>/<agent>-<pattern>-b<beta>-s<seed>.safetensors (+ .json with the command and the
# learning curve), where <dir> names the protocol and the episodes' jobs:
#   paper               paper protocol, the paper's job generator (the paper's setting)
#   held-out            held-out protocol, frugal's SWIM jobs
#   paper-swim          paper protocol, SWIM jobs          (REINFORCE, β ∈ {0, 0.75, 1}, burst)
#   held-out-generator  held-out protocol, generated jobs  (REINFORCE, β ∈ {0, 0.75, 1}, burst)
# Once they exist, `frugal reproduce 002 --retrain --out DIR` trains them all again from the
# commands stored beside them.
set -euo pipefail
out=${1:?usage: $0 OUT [FRUGAL]}
frugal=${2:-frugal}
commands=()
add() { # dir protocol jobs agent pattern beta seed
    local iterations=10000
    [ "$5" = burst ] && iterations=20000
    mkdir -p "$out/$1"
    commands+=("$frugal train --protocol $2 --jobs $3 --agent $4 --workload $5 --beta $6 --seed $7 --iterations $iterations --eval-every 1000 --out $out/$1/$4-$5-b$6-s$7.safetensors")
}
for dir in paper held-out; do
    case $dir in paper) p=paper j=generator ;; held-out) p=held-out j=swim ;; esac
    for agent in reinforce dqn; do
        for pattern in normal burst; do
            for beta in 0 0.25 0.5 0.75 1; do
                for seed in 1 2 3; do add $dir $p $j $agent $pattern $beta $seed; done
            done
        done
    done
    for beta in 0 0.75 1; do
        for seed in 4 5; do add $dir $p $j reinforce burst $beta $seed; done
    done
done
for beta in 0 0.75 1; do
    for seed in 1 2 3; do
        add paper-swim paper swim reinforce burst $beta $seed
        add held-out-generator held-out generator reinforce burst $beta $seed
    done
done
printf '%s\n' "${commands[@]}" | xargs -P "$(nproc)" -I{} sh -c '{} > /dev/null'

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
#   paper-swim          paper protocol, SWIM jobs          (REINFORCE β = 0.75, burst)
#   held-out-generator  held-out protocol, generated jobs  (REINFORCE β = 0.75, burst)
# DQN: every β, 3 seeds. REINFORCE: burst β ∈ {0, 1} 3 seeds and β = 0.75 5 seeds, normal
# β ∈ {0.75, 1} 3 seeds (the β the paper's claims name), the crossings one seed. Agents are
# listed most important first and an agent already in OUT is skipped, so a run cut short
# resumes where it stopped. About 2 h 50 min of one core (a REINFORCE agent on the paper's
# burst episode: 7.3 min; on SWIM's: 4.4 min; on a normal episode: 1.5 min; DQN: seconds),
# so about an hour and a half on two. Once they exist,
# `frugal reproduce 002 --retrain --out DIR` trains them all again from the commands stored
# beside them.
set -euo pipefail
out=${1:?usage: $0 OUT [FRUGAL]}
frugal=${2:-frugal}
commands=()
add() { # dir agent pattern beta seeds...
    local dir=$1 agent=$2 pattern=$3 beta=$4 p j iterations=10000
    shift 4
    [ "$pattern" = burst ] && iterations=20000
    case $dir in
        paper) p=paper j=generator ;;
        held-out) p=held-out j=swim ;;
        paper-swim) p=paper j=swim ;;
        held-out-generator) p=held-out j=generator ;;
    esac
    mkdir -p "$out/$dir"
    for seed in "$@"; do
        [ -e "$out/$dir/$agent-$pattern-b$beta-s$seed.safetensors.json" ] && continue
        commands+=("$frugal train --protocol $p --jobs $j --agent $agent --workload $pattern --beta $beta --seed $seed --iterations $iterations --eval-every 1000 --out $out/$dir/$agent-$pattern-b$beta-s$seed.safetensors")
    done
}
for dir in paper held-out; do # DQN: seconds each
    for pattern in burst normal; do
        for beta in 0 0.25 0.5 0.75 1; do add $dir dqn $pattern $beta 1 2 3; done
    done
done
add paper reinforce burst 0.75 1 2 3 4 5
for beta in 0 1; do add paper reinforce burst $beta 1 2 3; done
add held-out reinforce burst 0.75 1 2 3 4 5
for beta in 0 1; do add held-out reinforce burst $beta 1 2 3; done
for dir in paper held-out; do
    for beta in 0.75 1; do add $dir reinforce normal $beta 1 2 3; done
done
add paper-swim reinforce burst 0.75 1
add held-out-generator reinforce burst 0.75 1
printf '%s\n' "${commands[@]}" | xargs -P "$(nproc)" -I{} sh -c '{} > /dev/null'

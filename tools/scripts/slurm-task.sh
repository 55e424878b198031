#!/usr/bin/env bash
#SBATCH --job-name=mcmgpu-run
#SBATCH --cpus-per-task=1
#SBATCH --mem=3G
#SBATCH --time=02:00:00
# One Slurm array task: lines (TASK-1)*CHUNK+1 .. TASK*CHUNK of a job list,
# run one after another (jobs of one task share nothing but the node).
# Submitted by tools/scripts/slurm-run.sh, from the repository's top
# directory, which the nodes share with the submitting machine.
#   sbatch --array=1-N tools/scripts/slurm-task.sh JOBLIST CHUNK
set -uo pipefail

list=${1:?usage: slurm-task.sh JOBLIST CHUNK}
chunk=${2:-1}
task=${SLURM_ARRAY_TASK_ID:?not an array task (submit with sbatch --array)}
first=$(( (task - 1) * chunk + 1 ))
last=$(( task * chunk ))

rc=0
while IFS= read -r line; do
	echo "task $task on $(hostname -s): $line"
	bash -c "$line" || rc=1
done < <(sed -n "${first},${last}p" "$list")
exit "$rc"

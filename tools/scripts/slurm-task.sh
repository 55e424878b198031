#!/usr/bin/env bash
#SBATCH --job-name=mcmgpu-run
#SBATCH --cpus-per-task=1
#SBATCH --mem=3G
# One Slurm array task of T: lines TASK, TASK+T, TASK+2T, ... of a job list
# (longest first, so every task gets a fair share of long and short jobs),
# run one after another. Submitted by tools/scripts/slurm-run.sh from the
# repository's top directory, which the nodes share with the submitter.
#   sbatch --array=1-T tools/scripts/slurm-task.sh JOBLIST T
set -uo pipefail

list=${1:?usage: slurm-task.sh JOBLIST TASKS}
tasks=${2:-1}
task=${SLURM_ARRAY_TASK_ID:?not an array task (submit with sbatch --array)}

rc=0
while IFS= read -r line; do
	echo "task $task on $(hostname -s): $line"
	bash -c "$line" || rc=1
done < <(awk -v t="$task" -v n="$tasks" 'NF && (NR - t) % n == 0 && NR >= t' "$list")
exit "$rc"

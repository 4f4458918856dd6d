#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The batch script of RUNNER=slurm (bench/runner/slurm.sh submits it):
#   slurm-task.sh task RUNDIR     a task of the job array: rep
#                                 $SLURM_ARRAY_TASK_ID of the run in RUNDIR
#   slurm-task.sh finish RUNDIR   the job after the array: the run's end
# Each calls bench/study.sh with the options and environment the study
# saved (RUNDIR/study.args, RUNDIR/slurm/study.env) and --task RUNDIR:I or
# --finish RUNDIR, so that a rep runs through the same code as under the
# local runner. (Slurm runs a copy of this script: the checkout's path
# comes from study.env.)
# Exit status: the study's (0 rep recorded / run finished, 1 failure, 2
# usage error).
set -uo pipefail
mode=${1:-} dir=${2:-}
[ -f "$dir/slurm/study.env" ] && [ -f "$dir/study.args" ] ||
	{ echo "usage: slurm-task.sh task|finish RUNDIR (a run of RUNNER=slurm)" >&2; exit 2; }
slb_root=
. "$dir/slurm/study.env"
mapfile -t args <"$dir/study.args"
case $mode in
task) exec "$slb_root/bench/study.sh" "${args[@]}" --task "$dir:${SLURM_ARRAY_TASK_ID:?not a task of a Slurm job array}" ;;
finish) exec "$slb_root/bench/study.sh" "${args[@]}" --finish "$dir" ;;
*) echo "slurm-task.sh: mode '$mode' is not allowed (allowed: task finish)" >&2; exit 2 ;;
esac

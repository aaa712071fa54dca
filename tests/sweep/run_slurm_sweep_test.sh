#!/usr/bin/env bash
# Integration test of `pipegrid sweep --slurm` on a real single-node Slurm.
#
# What it proves: on a cluster started here from Debian's slurm-wlm and munge (a private munged,
# slurmctld and slurmd on localhost, nothing shared with a system Slurm or munge), a sweep submitted
# with `--slurm --array-size 3 --jobs-per-task 1` from the repository root runs as a job array whose 3
# tasks all complete (state COMPLETED, exit code 0:0, each in the repository root, each writing its
# log and its shard's results: configurations i, i + 3, … — the same rows, byte for byte, as a local
# run has for them), and `--merge` then gathers the shards into a results.csv byte-identical to the
# one a local `--jobs 2` run of the same sweep writes. Then a task cancelled with `scancel` while its
# runs are mid-flight leaves no process of its sweep, keeps the rows it finished, and the array
# submitted again completes the sweep with the bytes of a local run.
#
# Usage: run_slurm_sweep_test.sh PIPEGRID_BINARY REPOSITORY_ROOT. Needs root (slurmd runs the tasks as
# the submitting user, munged as the munge user). Exits 77 (CTest's skip) with "SKIP: why" only where
# Slurm cannot start: tools missing, not root, or a daemon that does not come up. Every daemon it
# starts is stopped by process id when it exits, whatever happens, and its private directory removed.
set -euo pipefail

[ $# -eq 2 ] || { echo "usage: $0 PIPEGRID_BINARY REPOSITORY_ROOT" >&2; exit 2; }
pipegrid=$(realpath "$1")
repo=$(realpath "$2")
sweep=tests/data/sweeps/twelve.toml  # relative to the repository root, like its platform paths
configurations=12
tasks=3

skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }

for tool in munged slurmctld slurmd sinfo squeue scontrol scancel sbatch setpriv; do
  command -v "$tool" >/dev/null || skip "$tool not found (install slurm-wlm and munge: scripts/install-deps.sh)"
done
[ "$(id -u)" -eq 0 ] || skip "must run as root to start munged, slurmctld and slurmd"
id munge >/dev/null 2>&1 || skip "no munge user (install the munge package)"
[ -x "$pipegrid" ] || fail "$pipegrid is not an executable"
[ -f "$repo/$sweep" ] || fail "$repo/$sweep not found"

# A job started by this test must see only our cluster: drop any Slurm settings inherited from outside.
while read -r name; do unset "$name"; done < <(compgen -e | grep -E '^(SLURM|SBATCH|SQUEUE|SINFO)_' || true)

state=$(mktemp -d /tmp/pipegrid-slurm-test.XXXXXX)
chmod 711 "$state"  # munged, as the munge user, must reach its own directory inside
daemon_pids=()      # munged, slurmctld, slurmd, in start order
job=""

alive() { [ -n "$(ps -o stat= -p "$1" 2>/dev/null | grep -v '^Z')" ]; }

cleanup() {
  local status=$?
  set +e
  if [ -n "$job" ] && [ ${#daemon_pids[@]} -ge 3 ] && alive "${daemon_pids[1]}"; then
    scancel "$job" 2>/dev/null
    for _ in $(seq 50); do
      [ -z "$(squeue -h -o %i 2>/dev/null)" ] && break
      sleep 0.2
    done
  fi
  if [ "$status" -ne 0 ] && [ "$status" -ne 77 ]; then
    for log in "$state"/log/* "$state"/slurm/slurm-*.out; do
      [ -f "$log" ] && { echo "--- $log (last 20 lines)"; tail -n 20 "$log"; }
    done
  fi
  local pid i
  for ((i = ${#daemon_pids[@]} - 1; i >= 0; i--)); do  # slurmd, slurmctld, then munged
    pid=${daemon_pids[i]}
    kill -TERM "$pid" 2>/dev/null
    for _ in $(seq 100); do alive "$pid" || break; sleep 0.1; done
    alive "$pid" && { echo "cleanup: process $pid ignored SIGTERM, killing it" >&2; kill -KILL "$pid" 2>/dev/null; }
    wait "$pid" 2>/dev/null
  done
  rm -rf "$state"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Waits up to $1 seconds for the command after it to succeed.
wait_for() {
  local seconds=$1
  shift
  local deadline=$((SECONDS + seconds))
  until "$@"; do
    [ $SECONDS -lt $deadline ] || return 1
    sleep 0.5
  done
}

# --- munge: a private key and daemon, so that nothing collides with a system munged.
mkdir -p "$state/munge" "$state/log"
chown munge:munge "$state/munge"
chmod 711 "$state/munge"  # munged insists that everyone may reach its socket
head -c 1024 /dev/urandom > "$state/munge/munge.key"
chown munge:munge "$state/munge/munge.key"
chmod 400 "$state/munge/munge.key"
munge_socket=$state/munge/munge.socket
setpriv --reuid=munge --regid=munge --init-groups \
  munged --foreground --socket="$munge_socket" --key-file="$state/munge/munge.key" \
  --pid-file="$state/munge/munged.pid" --log-file="$state/munge/munged.log" --seed-file="$state/munge/munged.seed" \
  > "$state/log/munged.out" 2>&1 &
daemon_pids+=($!)
munge_up() { alive "${daemon_pids[0]}" && [ -S "$munge_socket" ]; }
if ! wait_for 10 munge_up; then
  cat "$state/log/munged.out" 2>/dev/null || true
  skip "munged did not start (see its log above)"
fi

# --- Slurm: one node, this host, ports that nothing listens on.
port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
ctld_port=""
for _ in $(seq 50); do
  candidate=$((20000 + RANDOM % 20000))
  if ! port_in_use "$candidate" && ! port_in_use $((candidate + 1)); then
    ctld_port=$candidate
    break
  fi
done
[ -n "$ctld_port" ] || skip "found no free pair of TCP ports for slurmctld and slurmd"
host=$(hostname -s)
mkdir -p "$state/slurmctld" "$state/slurmd"
cat > "$state/slurm.conf" <<EOF
ClusterName=pipegrid-test
# By address: a bare machine (a chroot, a container) need not resolve its own host name.
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$((ctld_port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$munge_socket
StateSaveLocation=$state/slurmctld
SlurmdSpoolDir=$state/slurmd
SlurmctldPidFile=$state/slurmctld.pid
SlurmdPidFile=$state/slurmd.pid
SlurmctldLogFile=$state/log/slurmctld.log
SlurmdLogFile=$state/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SwitchType=switch/none
MpiDefault=none
JobCompType=jobcomp/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
ReturnToService=2
# Finished jobs stay visible to scontrol this long: without slurmdbd there is no sacct.
MinJobAge=300
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
# slurmd 22.05 starts a cgroup plugin even when nothing uses it, and its default (autodetect) fails where
# /sys/fs/cgroup is not mounted; the v1 plugin only touches cgroups when a consumer asks (none here).
echo "CgroupPlugin=cgroup/v1" > "$state/cgroup.conf"
export SLURM_CONF=$state/slurm.conf

slurmctld -D -i > "$state/log/slurmctld.out" 2>&1 &
daemon_pids+=($!)
slurmd -D > "$state/log/slurmd.out" 2>&1 &
daemon_pids+=($!)
# Idle, or a daemon gave up: then waiting longer is useless.
node_idle_or_daemon_dead() {
  alive "${daemon_pids[1]}" && alive "${daemon_pids[2]}" || return 0
  [ "$(sinfo -h -N -n "$host" -o %T 2>/dev/null)" = idle ]
}
wait_for 30 node_idle_or_daemon_dead || true
if ! alive "${daemon_pids[1]}" || ! alive "${daemon_pids[2]}" ||
   [ "$(sinfo -h -N -n "$host" -o %T 2>/dev/null)" != idle ]; then
  for log in "$state"/log/slurm*; do echo "--- $log (last 20 lines)"; tail -n 20 "$log"; done
  alive "${daemon_pids[1]}" || skip "Slurm did not start: slurmctld exited (see its log above)"
  alive "${daemon_pids[2]}" || skip "Slurm did not start: slurmd exited (see its log above)"
  skip "Slurm did not start: node $host not idle after 30 s (sinfo: $(sinfo -h -N -o '%N %T' 2>&1 | head -n 1))"
fi
started=$SECONDS
echo "slurm: node $host idle after $SECONDS s (slurmctld port $ctld_port)"

# --- The sweep, locally and as a job array, both from the repository root.
cd "$repo"
"$pipegrid" sweep "$sweep" --out "$state/local" --jobs 2 2> "$state/log/local-sweep.err" ||
  fail "the local sweep failed: $(cat "$state/log/local-sweep.err")"
[ "$(wc -l < "$state/local/results.csv")" -eq $((configurations + 1)) ] || fail "the local sweep has not $configurations rows"

# A blank in the directory: sbatch must see its #SBATCH paths quoted.
array_out="$state/slurm array"
job=$("$pipegrid" sweep "$sweep" --out "$array_out" --slurm --array-size "$tasks" --jobs-per-task 1)
[[ "$job" =~ ^[0-9]+$ ]] || fail "pipegrid sweep --slurm printed '$job', not a job id"
echo "slurm: submitted job array $job"

job_pending() { [ -n "$(squeue -h -o %i 2>/dev/null | grep -E "^${job}(_|$)")" ]; }
squeue -h -o %i > /dev/null || fail "squeue cannot reach slurmctld"
wait_for 300 eval '! job_pending' || fail "job array $job still in the queue after 300 s: $(squeue -h -o '%i %T %R')"
echo "slurm: job array $job left the queue after $((SECONDS - started)) s"

# No sacct without slurmdbd: every task's record, kept MinJobAge seconds, says how it ended.
records=$(scontrol -o show job "$job") || fail "scontrol has no record of job $job"
[ "$(grep -c . <<< "$records")" -eq "$tasks" ] || fail "job $job has not $tasks task records: $records"
for ((i = 0; i < tasks; i++)); do
  record=$(grep -E "ArrayTaskId=$i( |$)" <<< "$records") || fail "job $job has no task $i: $records"
  for field in JobState=COMPLETED ExitCode=0:0 "WorkDir=$repo"; do
    [[ " $record " == *" $field "* ]] || fail "task $i of job $job: expected $field in: $record"
  done
  log=$array_out/slurm-${job}_$i.out
  [ -f "$log" ] || fail "task $i wrote no $log"
  shard=$array_out/shards/$i/results.csv
  [ -f "$shard" ] || fail "task $i wrote no $shard; its log: $(cat "$log")"
  # The local rows of configurations i, i + tasks, …, under the same header.
  awk -v i="$i" -v k="$tasks" 'NR == 1 || (NR - 2) % k == i' "$state/local/results.csv" > "$state/expected-$i.csv"
  diff "$state/expected-$i.csv" "$shard" || fail "shard $i differs from the local run's rows for it"
done
echo "slurm: all $tasks tasks COMPLETED with exit code 0:0 in $repo, each with its shard's rows"

"$pipegrid" sweep "$sweep" --out "$array_out" --merge || fail "pipegrid sweep --merge found configurations missing"
diff "$state/local/results.csv" "$array_out/results.csv" || fail "the merged results differ from the local run's"
echo "slurm: the job array's merged results.csv is byte-identical to the local run's ($configurations configurations)"

# --- A plan's simulations as a job array (the sweep it writes, DIR/simulate.toml): --merge gives the
# local plan's plan.csv, byte for byte.
plan=(plan --model gpt-1.7b --preset dgx-a100 --nodes 1 --global-batch 16 --top 3 --jobs 2
      --space schedule=1f1b,interleaved --space recompute=none)
"$pipegrid" "${plan[@]}" --out "$state/plan-local" > /dev/null 2> "$state/log/plan-local.err" ||
  fail "the local plan failed: $(cat "$state/log/plan-local.err")"
job=$("$pipegrid" "${plan[@]}" --out "$state/plan-array" --slurm --array-size 2 2> "$state/log/plan-submit.err") ||
  fail "pipegrid plan --slurm failed: $(cat "$state/log/plan-submit.err")"
[[ "$job" =~ ^[0-9]+$ ]] || fail "pipegrid plan --slurm printed '$job', not a job id"
wait_for 300 eval '! job_pending' || fail "the plan's job array $job still in the queue after 300 s"
"$pipegrid" "${plan[@]}" --out "$state/plan-array" --merge > /dev/null 2> "$state/log/plan-merge.err" ||
  fail "pipegrid plan --merge failed: $(cat "$state/log/plan-merge.err")"
diff "$state/plan-local/plan.csv" "$state/plan-array/plan.csv" || fail "the merged plan differs from the local one"
echo "slurm: a plan's simulations as job array $job, merged: plan.csv byte-identical to the local plan's"

# --- scancel mid-flight: a task of runs a few seconds long, two at a time, cancelled once it has
# written a row and still runs. Slurm sends SIGTERM to the task's processes (SIGKILL after KillWait):
# every run must end with the sweep, the rows it finished stay, and the array submitted again reruns
# only the rest and completes the sweep with the bytes of a local run.
slow=$state/slow.toml
printf 'base = "%s"\n[axes]\n"parallel.microbatches" = [2048, 2304, 2560, 2816]\n' "$repo/tests/data/sweeps/job.toml" > "$slow"
"$pipegrid" sweep "$slow" --out "$state/slow-local" --jobs 2 2> "$state/log/slow-local.err" ||
  fail "the local slow sweep failed: $(cat "$state/log/slow-local.err")"
cancelled_out=$state/cancelled
job=$("$pipegrid" sweep "$slow" --out "$cancelled_out" --slurm --array-size 1 --jobs-per-task 2)
# The task's sweep and its runs (forks of it) all hold the unique --out on their command lines.
processes_of_task() { pgrep -f -- "$cancelled_out" || true; }
shard=$cancelled_out/shards/0/results.csv
row_written_and_running() {
  [ -f "$shard" ] && [ "$(wc -l < "$shard")" -ge 2 ] && [ "$(processes_of_task | wc -l)" -ge 2 ]
}
wait_for 300 row_written_and_running ||
  fail "job $job never had a row written and a run going: $(squeue -h -o '%i %T %R')"
scancel "$job"
wait_for 120 eval '! job_pending' || fail "job $job still in the queue 120 s after scancel"
wait_for 60 eval '[ -z "$(processes_of_task)" ]' ||
  fail "processes of the cancelled sweep left: $(processes_of_task | xargs -r ps -o pid,stat,args -p)"
record=$(scontrol -o show job "$job") || fail "scontrol has no record of job $job"
[[ " $record " == *" JobState=CANCELLED "* ]] || fail "job $job was not cancelled: $record"
finished=$(($(wc -l < "$shard") - 1))
[ "$finished" -ge 1 ] && [ "$finished" -lt 4 ] || fail "job $job has $finished of 4 rows: expected some, not all"
echo "slurm: job $job cancelled mid-flight with $finished of 4 rows; no process of it left"

job=$("$pipegrid" sweep "$slow" --out "$cancelled_out" --slurm --array-size 1 --jobs-per-task 2)
wait_for 300 eval '! job_pending' || fail "job $job (the resubmission) still in the queue after 300 s"
record=$(scontrol -o show job "$job") || fail "scontrol has no record of job $job"
[[ " $record " == *" JobState=COMPLETED "* ]] || fail "the resubmitted job $job did not complete: $record"
grep -q "$finished already done" "$cancelled_out/slurm-${job}_0.out" ||
  fail "the resubmitted task did not keep the $finished finished rows: $(cat "$cancelled_out/slurm-${job}_0.out")"
"$pipegrid" sweep "$slow" --out "$cancelled_out" --merge || fail "the resumed sweep has configurations missing"
diff "$state/slow-local/results.csv" "$cancelled_out/results.csv" || fail "the resumed sweep's results differ from a local run's"
echo "PASS: the merged results.csv is byte-identical to the local run's ($configurations configurations); a sweep cancelled mid-flight left no process and resumed to the local run's bytes"

#!/usr/bin/env bash
# Idempotent: install and start a single-node SLURM cluster on this machine (Debian's SLURM 22.05,
# munge), with partitions `cpu` (default) and `gpu` and two fake GPUs (a GRES backed by dummy devices),
# so the SLURM profile can be tested for real. Job records go to a text job-completion log
# (/var/log/slurm/jobcomp.log) instead of a database; Snakemake polls with squeue.
# No systemd is assumed: the daemons are started directly. Needs root (or sudo).
set -euo pipefail
# One machine-wide setup at a time (apt, dockerd, the images, the SLURM daemons): tools/test.sh starts this
# in the background and the test fixtures run it again, which then waits here and finds everything done.
# (flock -o: the daemons started here must not inherit the lock.)
if [ -z "${WESTBENCH_SETUP_LOCKED:-}" ]; then
    WESTBENCH_SETUP_LOCKED=1 exec flock -o "${WESTBENCH_SETUP_LOCK:-/tmp/westbench-machine-setup.lock}" bash "$0" "$@"
fi

say() { echo "[slurm] $*"; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

node=$(hostname -s)

if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null || ! command -v munged >/dev/null; then
    say "installing slurmctld slurmd slurm-client munge"
    as_root apt-get update -qq
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends \
        slurmctld slurmd slurm-client munge >/dev/null
fi

# munge: the key the Debian package made, or a new one.
as_root mkdir -p /etc/munge /run/munge /var/log/munge /var/lib/munge
if [ ! -s /etc/munge/munge.key ]; then
    as_root dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 status=none
fi
as_root chown -R munge:munge /etc/munge /run/munge /var/log/munge /var/lib/munge
as_root chmod 0400 /etc/munge/munge.key
if ! pgrep -x munged >/dev/null; then
    say "starting munged"
    as_root runuser -u munge -- /usr/sbin/munged
fi

# Character devices standing in for two GPUs (slurmd 22.05 drops a GRES without File=): two, so the
# embedded default's GPU jobs (implicit and explicit WE) run side by side as they do locally.
for index in 0 1; do
    [ -e "/dev/westbench-fake-gpu$index" ] || as_root mknod "/dev/westbench-fake-gpu$index" c 1 3
done
fake_gpu="/dev/westbench-fake-gpu[0-1]"

# The node line as slurmd sees this machine (CPUs, sockets, threads), memory less 1 GiB for the system.
hardware=$(slurmd -C | head -1 | sed -E 's/^NodeName=[^ ]+ //; s/RealMemory=[0-9]+//')
memory_mb=$(( $(awk '/MemTotal/ {print int($2 / 1024)}' /proc/meminfo) - 1024 ))
as_root mkdir -p /etc/slurm /var/spool/slurmctld /var/spool/slurmd /var/log/slurm
conf=$(mktemp)
cat > "$conf" <<CONF
# Written by westbench tools/slurm/setup-slurm.sh: a single-node test cluster.
ClusterName=westbench
SlurmctldHost=$node
AuthType=auth/munge
SlurmUser=root
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
SlurmdSpoolDir=/var/spool/slurmd
StateSaveLocation=/var/spool/slurmctld
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/filetxt
JobCompLoc=/var/log/slurm/jobcomp.log
ReturnToService=2
# Finished jobs stay visible to scontrol/squeue for an hour: tests read what each job requested.
MinJobAge=3600
DefMemPerCPU=1000
SchedulerParameters=sched_interval=1
GresTypes=gpu
NodeName=$node $hardware RealMemory=$memory_mb Gres=gpu:2 State=UNKNOWN
PartitionName=cpu Nodes=ALL Default=YES MaxTime=INFINITE State=UP
PartitionName=gpu Nodes=ALL MaxTime=INFINITE State=UP
CONF
printf 'AutoDetect=off\nNodeName=%s Name=gpu File=%s\n' "$node" "$fake_gpu" >> "$conf.gres"
changed=0
for pair in "$conf:/etc/slurm/slurm.conf" "$conf.gres:/etc/slurm/gres.conf"; do
    if ! cmp -s "${pair%%:*}" "${pair#*:}"; then as_root cp "${pair%%:*}" "${pair#*:}"; changed=1; fi
done
rm -f "$conf" "$conf.gres"
if [ "$changed" = 1 ] && pgrep -x slurmctld >/dev/null; then
    say "configuration changed: restarting the daemons"  # node GRES changes need a restart, not a reconfigure
    as_root scontrol shutdown >/dev/null 2>&1 || true
    for _ in $(seq 30); do pgrep -x slurmctld >/dev/null || pgrep -x slurmd >/dev/null || break; sleep 1; done
fi

if ! pgrep -x slurmctld >/dev/null; then
    say "starting slurmctld"
    as_root slurmctld
fi
if ! pgrep -x slurmd >/dev/null; then
    say "starting slurmd"
    as_root slurmd
fi
for _ in $(seq 60); do
    state=$(sinfo -h -N -o '%T' 2>/dev/null | head -1 || true)
    case "$state" in
        idle|mixed|allocated) say "ready: $(sinfo -h -o '%P %D %T' | tr '\n' ' ')"; exit 0 ;;
        down*|drain*) as_root scontrol update NodeName="$node" State=RESUME 2>/dev/null || true ;;
    esac
    sleep 1
done
say "the node did not become idle; see /var/log/slurm/slurmctld.log and /var/log/slurm/slurmd.log"
sinfo -N -l || true
exit 1

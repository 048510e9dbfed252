#!/bin/sh
# A one-node Slurm on this machine (root), for testing that Slurm starts
# ompi-lite ranks (srun --mpi=pmix). Uses Debian's packages: slurmctld,
# slurmd, munge (and slurm-wlm-basic-plugins for the pmix plugin); installs
# them with apt-get when missing. Everything lives in DIR; nothing in /etc
# changes.
#
#   slurm-local.sh start DIR   writes DIR/slurm.conf, starts munged (if none
#                              runs), slurmctld and slurmd, waits until the
#                              node is idle; prints SLURM_CONF=DIR/slurm.conf
#   slurm-local.sh stop DIR    stops what start started
set -eu

cmd=${1:?usage: slurm-local.sh start|stop DIR}
dir=${2:?usage: slurm-local.sh start|stop DIR}
host=$(hostname)

install_packages() {
    command -v slurmctld >/dev/null && command -v slurmd >/dev/null && command -v munged >/dev/null &&
        [ -e /usr/lib/x86_64-linux-gnu/slurm-wlm/mpi_pmix.so ] && return 0
    # Other tests may run apt-get at the same time: wait for dpkg's lock.
    DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -q \
        slurmd slurmctld munge slurm-client slurm-wlm-basic-plugins >"$dir/apt.log" 2>&1 || {
        echo "slurm-local.sh: apt-get install failed, see $dir/apt.log" >&2
        exit 1
    }
}

start() {
    mkdir -p "$dir/state" "$dir/spool" "$dir/tmp"
    install_packages
    # Ask munge itself: a process named munged may be a zombie that nobody
    # reaped (a container whose PID 1 does not), which pgrep still lists.
    if ! munge -n </dev/null 2>/dev/null | unmunge >/dev/null 2>&1; then
        mkdir -p /run/munge
        chown munge:munge /run/munge 2>/dev/null || true
        if id munge >/dev/null 2>&1; then
            su -s /bin/sh munge -c munged 2>"$dir/munged.err" || munged --force 2>>"$dir/munged.err"
        else
            munged --force 2>"$dir/munged.err"
        fi
        touch "$dir/started-munged"
    fi
    # Ports unlikely to be taken; one node with every CPU, jobs may share it.
    base=$((17000 + $$ % 2000 * 2))
    cpus=$(nproc)
    cat >"$dir/slurm.conf" <<EOT
ClusterName=ollocal
SlurmctldHost=$host
SlurmctldPort=$base
SlurmdPort=$((base + 1))
AuthType=auth/munge
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
MpiDefault=none
ReturnToService=2
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
# Slurm's PMIx plugin makes a directory per job step here: a fixed /tmp
# would keep those of steps killed by earlier runs, and a new step of the
# same number could not start.
TmpFS=$dir/tmp
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
NodeName=$host CPUs=$cpus State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:8
EOT
    export SLURM_CONF="$dir/slurm.conf"
    slurmctld -f "$SLURM_CONF" -i
    slurmd -f "$SLURM_CONF"
    i=0
    until sinfo -h -o %t 2>/dev/null | grep -Eq '^(idle|mix|alloc)'; do
        i=$((i + 1))
        if [ $i -gt 100 ]; then
            echo "slurm-local.sh: the node did not come up; see $dir/slurmctld.log and $dir/slurmd.log" >&2
            stop
            exit 1
        fi
        sleep 0.2
    done
    echo "SLURM_CONF=$SLURM_CONF"
}

stop() {
    for d in slurmd slurmctld; do
        if [ -s "$dir/$d.pid" ]; then
            kill "$(cat "$dir/$d.pid")" 2>/dev/null || true
        fi
    done
    # Wait for them, so that a following start finds the ports free.
    for d in slurmd slurmctld; do
        i=0
        while [ -s "$dir/$d.pid" ] && kill -0 "$(cat "$dir/$d.pid")" 2>/dev/null && [ $i -lt 50 ]; do
            sleep 0.1
            i=$((i + 1))
        done
    done
    if [ -e "$dir/started-munged" ]; then
        pkill -x munged 2>/dev/null || true
        rm -f "$dir/started-munged"
    fi
}

case $cmd in
start) start ;;
stop) stop ;;
*) echo "slurm-local.sh: unknown command '$cmd'" >&2; exit 2 ;;
esac

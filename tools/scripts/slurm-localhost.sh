#!/usr/bin/env bash
# A one-node Slurm cluster on this machine (Debian's slurm-wlm and munge),
# so tools/scripts/slurm-run.sh can be tested for real. See --help.
set -euo pipefail

usage() {
	cat <<'USAGE'
usage: tools/scripts/slurm-localhost.sh [--stop | --status]

Installs slurm-wlm and munge if missing, writes /etc/slurm/slurm.conf for a
one-node cluster (this host, all its cores, 80 % of its memory, partition
'mcmgpu'), starts munged, slurmctld and slurmd, and waits until the node is
idle. Idempotent: a running cluster is left as it is. It refuses to replace
a slurm.conf it did not write (a real cluster's).

  --stop     stop slurmctld and slurmd (munged stays)
  --status   print sinfo and exit 0 if the node answers
  -h, --help this text

Logs: /var/log/slurm/slurmctld.log, /var/log/slurm/slurmd.log.
USAGE
}

conf=/etc/slurm/slurm.conf
marker="# written by mcmgpu tools/scripts/slurm-localhost.sh"
log() { echo "slurm-localhost: $*" >&2; }
die() { log "$*"; exit 1; }

stop() {
	local d
	# munged stays: other services may use it.
	for d in slurmd slurmctld; do
		pkill -x "$d" 2>/dev/null && log "stopped $d" || true
	done
}

node_state() { sinfo -h -N -o '%T' 2>/dev/null | head -n 1; }

case "${1:-}" in
-h|--help) usage; exit 0 ;;
esac
[ "$(id -u)" -eq 0 ] || die "must run as root (it installs packages and starts daemons)"
case "${1:-}" in
--stop) stop; exit 0 ;;
--status) sinfo 2>/dev/null && [ -n "$(node_state)" ]; exit ;;
'') ;;
*) die "unknown option '$1' (see --help)" ;;
esac

if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
	log "installing slurm-wlm and munge"
	apt-get update -qq >/dev/null
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurm-wlm munge >/dev/null
fi

host=$(hostname -s)
cpus=$(nproc)
mem_mb=$(awk '/^MemTotal:/ { print int($2 / 1024 * 0.8) }' /proc/meminfo)

if [ -e "$conf" ] && ! grep -qF "$marker" "$conf"; then
	die "$conf exists and was not written by this script; not touching a real cluster's configuration"
fi
want=$(cat <<CONF
$marker
ClusterName=mcmgpu
SlurmctldHost=$host
AuthType=auth/munge
CredType=cred/munge
SlurmUser=root
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
ReturnToService=2
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
MinJobAge=3600
NodeName=$host CPUs=$cpus RealMemory=$mem_mb State=UNKNOWN
PartitionName=mcmgpu Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
)
if [ "$(cat "$conf" 2>/dev/null)" != "$want" ]; then
	mkdir -p "$(dirname "$conf")"
	printf '%s\n' "$want" >"$conf"
	log "wrote $conf ($host: $cpus CPUs, $mem_mb MB)"
	# A changed node description needs the daemons restarted.
	stop
	sleep 1
fi
mkdir -p /var/spool/slurmctld /var/spool/slurmd /var/log/slurm /run/munge
chown munge:munge /run/munge
chmod 755 /run/munge

if [ ! -s /etc/munge/munge.key ]; then
	log "creating the munge key"
	dd if=/dev/urandom of=/etc/munge/munge.key bs=1 count=1024 status=none
	chown munge:munge /etc/munge/munge.key
	chmod 400 /etc/munge/munge.key
fi
if ! pgrep -x munged >/dev/null; then
	runuser -u munge -- /usr/sbin/munged || die "munged did not start"
	log "started munged"
fi
munge -n | unmunge >/dev/null || die "munge does not authenticate (see /var/log/munge/munged.log)"

if ! pgrep -x slurmctld >/dev/null; then
	slurmctld || die "slurmctld did not start (/var/log/slurm/slurmctld.log)"
	log "started slurmctld"
fi
if ! pgrep -x slurmd >/dev/null; then
	slurmd || die "slurmd did not start (/var/log/slurm/slurmd.log)"
	log "started slurmd"
fi

for _ in $(seq 60); do
	case "$(node_state)" in
	idle|mixed|allocated)
		log "node $host is $(node_state); partition 'mcmgpu' ready"
		exit 0 ;;
	down*|drain*|idle\*|unknown*)
		scontrol update nodename="$host" state=resume 2>/dev/null || true ;;
	esac
	sleep 1
done
sinfo >&2 || true
die "the node did not become idle within 60 s (see /var/log/slurm/)"

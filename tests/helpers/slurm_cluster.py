"""A one-node SLURM cluster on this machine, for the tests that run the workflow through
profiles/slurm.

Debian's slurm-wlm and munge (``make slurm`` installs them): munged, slurmctld and slurmd run as
the test's own processes, without systemd, from a slurm.conf and a munge key in a temporary
folder, on free ports; ``stop`` ends them by PID. Commands that talk to the cluster (sbatch,
squeue, scancel, and Snakemake's SLURM plugin) find it through ``SLURM_CONF`` in ``env``.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

import yaml

DAEMONS = ("munged", "slurmctld", "slurmd", "sbatch", "squeue", "scancel", "scontrol", "sinfo")
NODE = "node1"
PARTITION = "cpu"


def missing_reason() -> str | None:
    """Why no test cluster can start here, or None."""
    if os.geteuid() != 0:
        return "the SLURM test cluster's daemons run as root; run the tests as root"
    missing = [name for name in DAEMONS if shutil.which(name) is None]
    if missing or not Path("/etc/slurm").is_dir():
        return f"{', '.join(missing)} not installed: make slurm (apt: slurm-wlm, munge)"
    if shutil.which("unshare") is None:
        return "unshare (util-linux) not found: slurmd runs in a mount namespace of its own"
    return None


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def node_memory_mb() -> int:
    """Memory the node offers jobs: most of this machine's, below what slurmd measures."""
    total_kb = int(Path("/proc/meminfo").read_text().split()[1])
    return int(total_kb / 1024 * 0.8)


@dataclass
class SlurmCluster:
    root: Path
    cpus: int = field(default_factory=lambda: os.cpu_count() or 1)
    memory_mb: int = field(default_factory=node_memory_mb)
    processes: list[subprocess.Popen[bytes]] = field(default_factory=list)
    ctld_port: int = field(default_factory=free_port)

    @property
    def conf(self) -> Path:
        return self.root / "etc" / "slurm.conf"

    @property
    def env(self) -> dict[str, str]:
        return {**os.environ, "SLURM_CONF": str(self.conf)}

    def cluster_file(self, max_runtime: int = 60) -> dict:
        """This cluster as profiles/slurm/cluster.yaml describes a cluster."""
        return {
            "cpu_partition": PARTITION,
            "gpu_partition": None,
            "gpu_model": None,
            "account": None,
            "max_cpus": self.cpus,
            "max_mem_mb": self.memory_mb,
            "max_gpus": 0,
            "max_runtime": max_runtime,
        }

    def write_cluster_file(self, path: Path) -> None:
        path.write_text(yaml.safe_dump(self.cluster_file(), sort_keys=False))

    def start(self) -> None:
        for folder in ("etc", "state", "spool", "log"):
            (self.root / folder).mkdir(parents=True, exist_ok=True)
        key = self.root / "munge.key"
        key.write_bytes(os.urandom(1024))
        key.chmod(0o600)
        socket_path = self.root / "munge.socket"
        self.conf.write_text(self._slurm_conf(socket_path))
        log = self.root / "log"
        self._spawn(
            "munged",
            ["munged", "--foreground", "--force", f"--socket={socket_path}",
             f"--key-file={key}", f"--pid-file={self.root / 'munged.pid'}",
             f"--log-file={log / 'munged.log'}", f"--seed-file={self.root / 'munged.seed'}"],
        )  # fmt: skip
        self._wait_for(socket_path.exists, "munged's socket")
        self._spawn("slurmctld", ["slurmctld", "-D", "-i"])
        # slurmd in a mount namespace of its own, where /etc/slurm is this cluster's folder: a
        # job finds the config at the default path, since the SLURM plugin drops SLURM_CONF from
        # the environment of the step it starts; nothing outside changes
        self._spawn(
            "slurmd",
            ["unshare", "--mount", "--propagation", "private", "sh", "-c",
             f"mount --bind {self.conf.parent} /etc/slurm && exec slurmd -D -N {NODE}"],
        )  # fmt: skip
        self._wait_for(self._node_idle, f"node {NODE} idle")

    def stop(self) -> None:
        for process in reversed(self.processes):
            process.terminate()
        for process in reversed(self.processes):
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        self.processes.clear()

    def run(self, *command: str) -> str:
        """A SLURM client command against this cluster; its stdout."""
        return subprocess.run(
            command, env=self.env, capture_output=True, text=True, check=True, timeout=60
        ).stdout

    def jobs(self) -> list[dict[str, str]]:
        """Every job the cluster knows (MinJobAge keeps finished ones): id, state, comment
        (the plugin's ``rule_<rule>_wildcards_<values>``), CPUs, memory (e.g. ``8000M``) and
        partition."""
        keys = ("id", "state", "comment", "cpus", "memory", "partition")
        out = self.run("squeue", "--states=all", "--noheader", "--format=%i|%T|%k|%C|%m|%P")
        rows = [line.split("|") for line in out.splitlines() if line.strip()]
        return [dict(zip(keys, row, strict=True)) for row in rows]

    def logs(self) -> str:
        return "\n".join(
            f"--- {path.name}\n{path.read_text(errors='replace')[-3000:]}"
            for path in sorted((self.root / "log").glob("*"))
        )

    def _spawn(self, name: str, command: list[str], env: dict[str, str] | None = None) -> None:
        out = open(self.root / "log" / f"{name}.out", "wb")  # noqa: SIM115 - the daemon's
        self.processes.append(
            subprocess.Popen(command, env=env or self.env, stdout=out, stderr=subprocess.STDOUT)
        )

    def _node_idle(self) -> bool:
        done = subprocess.run(
            ["sinfo", "--noheader", "--format=%T", "--nodes", NODE],
            env=self.env, capture_output=True, text=True, timeout=30,
        )  # fmt: skip
        return done.returncode == 0 and done.stdout.strip() == "idle"

    def _wait_for(self, ready, what: str, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while not ready():
            dead = [p.args[0] for p in self.processes if p.poll() is not None]
            if dead or time.monotonic() > deadline:
                raise RuntimeError(
                    f"the test cluster did not start ({what}; exited: {dead}):\n{self.logs()}"
                )
            time.sleep(0.3)

    def _slurm_conf(self, munge_socket: Path) -> str:
        root = self.root
        node = (
            f"NodeName={NODE} NodeAddr=127.0.0.1 NodeHostname={socket.gethostname()} "
            f"CPUs={self.cpus} RealMemory={self.memory_mb} State=UNKNOWN"
        )
        return f"""\
ClusterName=docqatest
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort={self.ctld_port}
SlurmdPort={free_port()}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket={munge_socket}
CredType=cred/munge
MpiDefault=none
StateSaveLocation={root / "state"}
SlurmdSpoolDir={root / "spool"}
SlurmctldPidFile={root / "slurmctld.pid"}
SlurmdPidFile={root / "slurmd.pid"}
SlurmctldLogFile={root / "log" / "slurmctld.log"}
SlurmdLogFile={root / "log" / "slurmd.log"}
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
ReturnToService=2
# squeue sees a finished job this long: the status command of profiles/slurm, and the test's
# count of the jobs a run submitted
MinJobAge=3600
KillWait=5
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
{node}
PartitionName={PARTITION} Nodes=ALL Default=YES MaxTime=INFINITE State=UP
"""

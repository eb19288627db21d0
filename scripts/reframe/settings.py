"""settings.py — ReFrame site configuration for headroom's checks.

`generic` is this machine with the local scheduler and launcher (what ReFrame does without
a configuration). `headroom-ci` is the single-node Slurm that scripts/slurm/ci-cluster.sh
starts: partition `ci`, jobs submitted with sbatch and polled with squeue (the `squeue`
backend: that cluster has no accounting, so no sacct). A real site copies the
`headroom-ci` entry per node type (partition name, access flags such as --account,
--exclusive) and adds its references to headroom_check.py's REFERENCE.
"""

site_configuration = {
    "systems": [
        {
            "name": "headroom-ci",
            "descr": "single-node Slurm of scripts/slurm/ci-cluster.sh",
            "hostnames": [r"^headroom-ci-never-matches$"],  # chosen with --system headroom-ci:ci
            "modules_system": "nomod",
            "partitions": [
                {
                    "name": "ci",
                    "scheduler": "squeue",
                    "launcher": "local",
                    "access": ["--partition=ci"],
                    "environs": ["builtin"],
                    "max_jobs": 4,
                }
            ],
        },
        {
            "name": "generic",
            "descr": "this machine, local scheduler and launcher",
            "hostnames": [r".*"],
            "modules_system": "nomod",
            "partitions": [
                {"name": "default", "scheduler": "local", "launcher": "local", "environs": ["builtin"]}
            ],
        },
    ],
    "environments": [{"name": "builtin", "cc": "cc", "cxx": "c++", "ftn": ""}],
}

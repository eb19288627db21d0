"""headroom_check.py — a ReFrame regression check for headroom.

Builds headroom (make in the checkout), runs a small sweep (headroom_check.ini: every
kernel on one shape, checked against the oracle, with the concurrent-ceiling probes) and
reports per kernel two performance variables: `<kernel>_gflops` (median GFLOP/s) and
`<kernel>_frac_of_ceiling` (the kernel's rate over the probe's ceiling measured around
each repetition, so a slow or busy node moves it less than GFLOP/s).

References are per system:partition. `generic:default` (ReFrame without a site config,
what CI runs) only bounds frac_of_ceiling from below, loosely: a test must not fail
because a shared machine was slow. A site adds its node types to REFERENCE with tighter
tolerances (an example is given). Run:

    reframe -c scripts/reframe/headroom_check.py -r                      # local launcher
    reframe -C scripts/reframe/settings.py --system headroom-ci:ci \\
        -c scripts/reframe/headroom_check.py -r                           # Slurm (ci-cluster.sh)
"""
import json
import os

import reframe as rfm
import reframe.utility.sanity as sn
from reframe.core.builtins import run_before, sanity_function, variable

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

# (reference, lower, upper, unit); lower/upper are fractions of the reference, None = unbounded.
_LOOSE_FRAC = {
    k: (f, -0.9, None, "") for k, f in {
        "naive": 0.04, "blocked": 0.04, "simd": 0.2, "omp": 0.2,
        "flash": 0.5, "gqa": 0.3, "decode": 0.3, "blas": 0.2}.items()
}
REFERENCE = {
    # What CI runs: GFLOP/s reported, never judged; frac_of_ceiling at least a tenth of typical
    # (a kernel that far below is broken, not on a busy machine).
    "generic:default": {f"{k}_frac_of_ceiling": v for k, v in _LOOSE_FRAC.items()},
    "headroom-ci:ci": {f"{k}_frac_of_ceiling": v for k, v in _LOOSE_FRAC.items()},
    # An example node type (an AVX-512 node, 1 thread): 10% below its references fails.
    "mycluster:genoa": {
        "flash_gflops": (44.0, -0.10, None, "GFLOP/s"),
        "flash_frac_of_ceiling": (0.85, -0.10, None, ""),
        "simd_gflops": (25.0, -0.10, None, "GFLOP/s"),
    },
}


@sn.deferrable
def _median(path, kernel, counter):
    """The counter of kernel's median aggregate row in a results.json."""
    with open(path) as f:
        doc = json.load(f)
    for b in doc["benchmarks"]:
        if b.get("kernel") == kernel and b.get("aggregate_name") == "median":
            return float(b[counter])
    raise ValueError(f"{path}: no median row of kernel {kernel}")


@rfm.simple_test
class headroom_sweep_check(rfm.RegressionTest):
    descr = "headroom: every kernel on one shape; GFLOP/s and frac_of_ceiling per kernel"
    valid_systems = ["*"]
    valid_prog_environs = ["*"]
    sourcesdir = None
    build_system = "CustomBuild"
    build_locally = True
    num_tasks = 1
    tags = {"headroom", "benchmark"}
    config = variable(str, value=os.path.join(ROOT, "scripts", "reframe", "headroom_check.ini"))
    make_flags = variable(str, value="")
    reference = REFERENCE

    @run_before("compile")
    def build(self):
        self.build_system.commands = [f"make -C {ROOT} -j$(nproc) {self.make_flags}"]

    @run_before("run")
    def sweep(self):
        self.executable = os.path.join(ROOT, "headroom")
        self.executable_opts = ["sweep", self.config, "--out", "results", "--no-wisdom"]
        self.num_cpus_per_task = 1

    @sanity_function
    def validate(self):
        return sn.all([
            sn.assert_found(r"headroom sweep: \d+ rows \(\d+ new, \d+ resumed\), \d+ skipped, 0 failed checks",
                            self.stderr),
            sn.assert_true(os.path.exists(os.path.join(self.stagedir, "results", "results.json"))),
        ])

    @run_before("performance")
    def perf_vars(self):
        path = os.path.join(self.stagedir, "results", "results.json")
        with open(path) as f:
            kernels = sorted({b["kernel"] for b in json.load(f)["benchmarks"] if b.get("kernel")})
        self.perf_variables = {}
        for k in kernels:
            self.perf_variables[f"{k}_gflops"] = sn.make_performance_function(_median(path, k, "GFLOPS"), "GFLOP/s")
            self.perf_variables[f"{k}_frac_of_ceiling"] = sn.make_performance_function(
                _median(path, k, "frac_of_ceiling"), "")

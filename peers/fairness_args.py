"""fairness_args.py — the flags every peer's fairness timer takes (peers/<name>/fairness_timer.py,
run by its fairness.sh): the problem as `headroom run` names it, the threads and how long to time."""
import argparse


def parser():
    """An ArgumentParser with the shared flags; a timer adds its own before parse_args."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--heads", type=int, required=True)
    ap.add_argument("--kv-heads", type=int, required=True)
    ap.add_argument("--seq-q", type=int, required=True)
    ap.add_argument("--seq-kv", type=int, required=True)
    ap.add_argument("--d-head", type=int, required=True)
    ap.add_argument("--causal", action="store_true")
    ap.add_argument("--threads", type=int, required=True)
    ap.add_argument("--min-run-time", type=float, default=1.0)
    return ap

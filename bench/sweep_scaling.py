#!/usr/bin/env python3
"""How `hysim sweep` scales with its threads, as a user runs it (the program, its files).

Two sweeps, the long runs and the short ones:
  pwm   hysim sweep pwm-servo --param kp=0.05:0.2:RUNS --t-end 10       (about 1 ms a run)
  rod   hysim sweep falling-rod --param theta0=uniform:0.1:1.2 --draws RUNS --seed 3
                                                                         (about 60 us a run)
each with --out (summary.csv and summary.json) and --jobs N for every N in --threads. The
thread counts take turns, round after round (--repeats), so that a slow spell of a shared
machine falls on all of them; each keeps its fastest time, as the program reports it in its
closing line (the sweep itself, not the start of the process). Per N: runs per second, the
speedup over 1 thread and the efficiency speedup / N, which must be >= --target (0.75) at every
N for PASS. The summaries must be the same at every N but for the wall time (every other
column is independent of --jobs): the script exits 1 otherwise, or when a target is missed.

Usage: sweep_scaling.py HYSIM [--threads 1,2|all] [--repeats 3] [--pwm-runs 4000]
                              [--rod-runs 100000] [--target 0.75]
--threads all: 1, 2, 4, ... up to the cores of the machine, and the cores themselves.
"""
import argparse
import csv
import io
import os
import re
import subprocess
import sys
import tempfile

CLOSING = re.compile(r"sweep: (\d+) runs of \S+ in ([0-9.e+-]+) s")


def thread_counts(text):
    if text != "all":
        return [int(n) for n in text.split(",")]
    cores = os.cpu_count() or 1
    counts, n = [], 1
    while n < cores:
        counts.append(n)
        n *= 2
    return counts + [cores]


def sweeps(args):
    return {
        "pwm": ["pwm-servo", "--param", f"kp=0.05:0.2:{args.pwm_runs}", "--t-end", "10"],
        "rod": ["falling-rod", "--param", "theta0=uniform:0.1:1.2", "--draws", str(args.rod_runs), "--seed", "3"],
    }


def run_once(hysim, arguments, threads, folder):
    """One sweep: its seconds (the program's own count) and its summary without the wall time."""
    command = [hysim, "sweep", *arguments, "--jobs", str(threads), "--out", folder]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"sweep_scaling: {' '.join(command)} failed ({done.returncode}): {done.stderr.strip()}")
    closing = CLOSING.search(done.stderr)
    if not closing:
        sys.exit(f"sweep_scaling: no closing line from {' '.join(command)}: {done.stderr.strip()}")
    with open(os.path.join(folder, "summary.csv"), newline="") as f:
        rows = list(csv.reader(f))
    wall = rows[0].index("wall_s")
    summary = [row[:wall] + row[wall + 1:] for row in rows]
    return float(closing.group(2)), summary


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("hysim")
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--pwm-runs", type=int, default=4000)
    parser.add_argument("--rod-runs", type=int, default=100000)
    parser.add_argument("--target", type=float, default=0.75)
    args = parser.parse_args()
    counts = thread_counts(args.threads)
    if 1 not in counts or args.repeats < 1:
        sys.exit("sweep_scaling: --threads must include 1, and --repeats must be >= 1")
    missed, differ = 0, 0
    print(f"{'sweep':5} {'threads':>7} {'seconds':>8} {'runs/s':>9} {'speedup':>8} {'efficiency':>10}  verdict")
    with tempfile.TemporaryDirectory() as scratch:
        for name, arguments in sweeps(args).items():
            best, reference = {}, None
            for _ in range(args.repeats):
                for n in counts:
                    seconds, summary = run_once(args.hysim, arguments, n, os.path.join(scratch, f"{name}{n}"))
                    best[n] = min(best.get(n, float("inf")), seconds)
                    if reference is None:
                        reference = summary
                    elif summary != reference:
                        differ += 1
                        print(f"{name}: the summary with --jobs {n} differs from the first", file=sys.stderr)
            runs = len(reference) - 1
            for n in counts:
                speedup = best[1] / best[n]
                efficiency = speedup / n
                ok = efficiency >= args.target
                missed += 0 if ok else 1
                print(f"{name:5} {n:7d} {best[n]:8.3f} {runs / best[n]:9.0f} {speedup:8.2f} {efficiency:10.2f}  "
                      f"{'PASS' if ok else 'FAIL'}")
    print(f"target: efficiency >= {args.target} at every thread count; summaries "
          f"{'identical' if differ == 0 else 'DIFFER'}")
    return 1 if missed or differ else 0


if __name__ == "__main__":
    sys.exit(main())

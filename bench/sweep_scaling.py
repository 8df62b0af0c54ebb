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

The machine's own ceiling (--ceiling, on by default for N > 2): N independent processes at once,
each a 1-thread sweep of the same kind with a share RUNS / N of the runs, nothing shared
between them but the machine. Its efficiency, T(1 process, all runs) / (N x the slowest
process's time), is what the cores give when every one is busy (a shared host, the clock of
a chip whose cores all work, the caches and memory they share); no threading can beat it by
much. A thread count whose efficiency misses --target but reaches 0.95 of the ceiling reads
MACHINE (the limit is the machine's, not the sweep's) and does not fail the script.

Usage: sweep_scaling.py HYSIM [--threads 1,2|all] [--repeats 3] [--pwm-runs 4000]
                              [--rod-runs 100000] [--target 0.75] [--no-ceiling]
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
    return {"pwm": lambda runs: ["pwm-servo", "--param", f"kp=0.05:0.2:{runs}", "--t-end", "10"],
            "rod": lambda runs: ["falling-rod", "--param", "theta0=uniform:0.1:1.2", "--draws", str(runs), "--seed", "3"]}


def ceiling_once(hysim, arguments, n, folder):
    """n independent 1-thread sweeps at once: the slowest one's seconds (its own closing line)."""
    procs = []
    for k in range(n):
        command = [hysim, "sweep", *arguments, "--jobs", "1", "--out", os.path.join(folder, f"part{k}")]
        procs.append((command, subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)))
    slowest = 0.0
    for command, proc in procs:
        _, err = proc.communicate()
        closing = CLOSING.search(err)
        if proc.returncode != 0 or not closing:
            sys.exit(f"sweep_scaling: {' '.join(command)} failed ({proc.returncode}): {err.strip()}")
        slowest = max(slowest, float(closing.group(2)))
    return slowest


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
    parser.add_argument("--no-ceiling", action="store_true", help="skip the machine's ceiling (N processes)")
    args = parser.parse_args()
    counts = thread_counts(args.threads)
    if 1 not in counts or args.repeats < 1:
        sys.exit("sweep_scaling: --threads must include 1, and --repeats must be >= 1")
    missed, differ = 0, 0
    print(f"{'sweep':5} {'threads':>7} {'seconds':>8} {'runs/s':>9} {'speedup':>8} {'efficiency':>10} "
          f"{'ceiling':>8}  verdict")
    with tempfile.TemporaryDirectory() as scratch:
        for name, arguments_of in sweeps(args).items():
            total = args.pwm_runs if name == "pwm" else args.rod_runs
            arguments = arguments_of(total)
            best, ceiling_best, reference = {}, {}, None
            for _ in range(args.repeats):
                for n in counts:
                    seconds, summary = run_once(args.hysim, arguments, n, os.path.join(scratch, f"{name}{n}"))
                    best[n] = min(best.get(n, float("inf")), seconds)
                    if reference is None:
                        reference = summary
                    elif summary != reference:
                        differ += 1
                        print(f"{name}: the summary with --jobs {n} differs from the first", file=sys.stderr)
                    if n > 2 and not args.no_ceiling:
                        share = arguments_of(max(1, total // n))
                        slowest = ceiling_once(args.hysim, share, n, os.path.join(scratch, f"{name}c{n}"))
                        ceiling_best[n] = min(ceiling_best.get(n, float("inf")), slowest)
            runs = len(reference) - 1
            for n in counts:
                speedup = best[1] / best[n]
                efficiency = speedup / n
                ceiling = best[1] / (n * ceiling_best[n]) if n in ceiling_best else None
                verdict = "PASS" if efficiency >= args.target else (
                    "MACHINE" if ceiling is not None and efficiency >= 0.95 * ceiling else "FAIL")
                missed += 1 if verdict == "FAIL" else 0
                print(f"{name:5} {n:7d} {best[n]:8.3f} {runs / best[n]:9.0f} {speedup:8.2f} {efficiency:10.2f} "
                      f"{'' if ceiling is None else f'{ceiling:.2f}':>8}  {verdict}")
    print(f"target: efficiency >= {args.target} at every thread count, or within 0.95 of the machine's ceiling "
          f"(MACHINE); summaries {'identical' if differ == 0 else 'DIFFER'}")
    return 1 if missed or differ else 0


if __name__ == "__main__":
    sys.exit(main())

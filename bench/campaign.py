#!/usr/bin/env python3
"""The robustness campaign (docs/testing.md): random draws must all run.

For every catalog model (`hysim list`), every shipped model file (models/*.hym) and every rule
table on the engine (models/rules/*.rules.tsv), under every strategy that locates events (all of
`hysim list`'s but `step`), one `hysim sweep` of N draws: every parameter with a declared range
drawn uniformly over it (--declared-ranges), rtol log-uniform in [1e-12, 1e-4] and atol =
rtol * 1e-3 (--draw-rtol, with --rtol 1e-6 --atol 1e-9), to the model's end (a catalog model or
a model file: the default t_end, 1 s; a rule table: its [model] t_end), each sweep bounded by
--time-limit and each run by 1e5 events (--event-limit). A run fails when it does not reach its end: an error, an event limit, a stall, or
the time limit. A Zeno accumulation that the model does not continue past is a correct end,
counted apart.

The known failures (a file, one line per MODEL STRATEGY KIND REASON, tab-separated; STRATEGY
may be '*') are left out of the zero-failure verdict, and each must still happen: KIND `fails`
(at least one failed run in the draw) or `refused` (the sweep refuses the model, exit 2, with
one error line, or refuses runs midway: rows with reason `refused`, as the cvode peer refuses a
run where a sliding motion begins; every other run reaches its end). A listed case that no longer fails makes the verdict fail too: the list
shrinks as the engine is fixed.

Usage: campaign.py HYSIM SOURCE_DIR [--draws N] [--seed S] [--jobs J] [--time-limit SECONDS]
                   [--known FILE] [--models SUBSTRING] [--strategies a,b]
Prints the table (model, strategy, draws, failed, zeno, verdict, the first error line of each
kind of failure) and exits 0 when the verdict holds, 1 otherwise, 2 for bad arguments.
"""
import argparse
import concurrent.futures
import csv
import io
import os
import re
import subprocess
import sys
import tempfile
import time

RTOL_RANGE = "1e-12:1e-4"
ATOL_PER_RTOL = ("1e-6", "1e-9")  # --rtol, --atol: a drawn rtol's atol is rtol * 1e-3
REACHED, ZENO = "reached t_end", "Zeno accumulation"
REFUSED_EXIT = 2
EVENT_LIMIT = 100000  # a short run with more events than this is a failure (reason: event limit)


def catalog(hysim):
    listing = subprocess.run([hysim, "list"], check=True, capture_output=True, text=True).stdout
    models = [line for line in listing.split("\nsolvers:")[0].splitlines() if re.match(r"^[a-z]", line)]
    strategies = re.findall(r"^  ([a-z0-9-]+) ", listing.split("\nstrategies:")[1], re.M)
    if not models or not strategies:
        sys.exit("campaign: cannot read `hysim list`")
    return models, [s for s in strategies if s != "step"]


def table_end(path):
    with open(path, encoding="utf-8") as table:
        for line in table:
            cells = line.rstrip("\n").split("\t")
            if len(cells) >= 2 and cells[0].strip() == "t_end":
                return cells[1].strip()
    return None


def subjects(hysim, source):
    """(label, model argument, t_end or None) of every model of the campaign."""
    models, strategies = catalog(hysim)
    out = [(m, m, None) for m in models]
    files = os.path.join(source, "models")
    for name in sorted(os.listdir(files)):
        if name.endswith(".hym"):
            out.append(("models/" + name, os.path.join(files, name), None))
    rules = os.path.join(files, "rules")
    for name in sorted(os.listdir(rules)):
        if name.endswith(".rules.tsv"):
            out.append(("models/rules/" + name, os.path.join(rules, name), table_end(os.path.join(rules, name))))
    return out, strategies


def read_known(path):
    known = []
    if not path:
        return known
    with open(path, encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            if not line.strip() or line.startswith("#"):
                continue
            cells = line.rstrip("\n").split("\t")
            if len(cells) != 4 or cells[2] not in ("fails", "refused") or not cells[3].strip():
                sys.exit(f"{path}:{number}: expected MODEL<TAB>STRATEGY<TAB>fails|refused<TAB>REASON")
            known.append({"model": cells[0], "strategy": cells[1], "kind": cells[2], "line": number, "used": False})
    return known


def sweep(hysim, case, options):
    """One model under one strategy: the counts and the first error line of each kind."""
    label, model, t_end, strategy = case
    with tempfile.TemporaryDirectory() as out:
        command = [hysim, "sweep", model, "--strategy", strategy, "--declared-ranges", "--draw-rtol", RTOL_RANGE,
                   "--rtol", ATOL_PER_RTOL[0], "--atol", ATOL_PER_RTOL[1], "--draws", str(options.draws),
                   "--seed", str(options.seed), "--jobs", "1", "--events", "0",
                   "--event-limit", str(EVENT_LIMIT), "--time-limit", str(options.time_limit), "--out", out]
        if t_end:
            command += ["--t-end", t_end]
        start = time.monotonic()
        done = subprocess.run(command, capture_output=True, text=True)
        result = {"case": case, "exit": done.returncode, "seconds": time.monotonic() - start,
                  "draws": options.draws, "failed": 0, "refused": 0, "zeno": 0, "kinds": {}}
        errors = [line for line in done.stderr.splitlines() if line.strip()]
        if done.returncode == REFUSED_EXIT or not os.path.exists(os.path.join(out, "summary.csv")):
            result["refused" if done.returncode == REFUSED_EXIT else "failed"] = options.draws
            first = [line for line in errors if "error:" in line] or errors
            result["kinds"]["refused"] = first[0] if first else f"exit {done.returncode}, no message"
            return result
        with open(os.path.join(out, "summary.csv"), encoding="utf-8") as summary:
            rows = list(csv.DictReader(summary))
        if done.returncode == 124:
            result["kinds"]["time limit"] = (errors[-1] if errors else "") + f" (--time-limit {options.time_limit})"
        for row in rows:
            reason = row["reason"]
            if reason == ZENO:
                result["zeno"] += 1
            if reason in (REACHED, ZENO):
                continue
            result["refused" if reason == "refused" else "failed"] += 1
            if reason not in result["kinds"]:
                drawn = {k: row[k] for k in swept_columns(row)}
                result["kinds"][reason] = f"{row['message'] or reason} [run {row['run']}: " + \
                    " ".join(f"{k}={v}" for k, v in drawn.items()) + "]"
        result["failed"] += max(0, options.draws - len(rows))  # a sweep ended before writing every row
        return result


def swept_columns(row):  # the columns before `reason`: the drawn parameters, rtol and atol
    names = list(row.keys())
    return names[1:names.index("reason")]


def matching(known, label, strategy):
    for entry in known:
        if entry["model"] == label and entry["strategy"] in ("*", strategy):
            return entry
    return None


def verdict(result, known):
    label, _, _, strategy = result["case"]
    entry = matching(known, label, strategy)
    if entry is None:
        return "NEW FAILURE" if result["failed"] else "NEW REFUSAL" if result["refused"] else "ok"
    entry["used"] = True
    if entry["kind"] == "refused":
        if result["failed"]:
            return "NEW FAILURE (listed as refused)"
        return "known (refused)" if result["refused"] else "STALE: listed as refused, but every run reached its end"
    if result["refused"]:
        return "NEW REFUSAL (listed as fails)"
    return "known (fails)" if result["failed"] > 0 else "STALE: listed as failing, but every run reached its end"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("hysim")
    parser.add_argument("source")
    parser.add_argument("--draws", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--time-limit", type=float, default=20)
    parser.add_argument("--known", default=None)
    parser.add_argument("--models", default="", help="only the models whose label holds this text")
    parser.add_argument("--strategies", default="", help="only these strategies (comma-separated)")
    options = parser.parse_args()
    if options.draws < 1 or options.jobs < 1 or not options.time_limit > 0:
        parser.error("--draws and --jobs must be >= 1, --time-limit > 0")
    models, strategies = subjects(options.hysim, options.source)
    if options.strategies:
        wanted = options.strategies.split(",")
        unknown = [s for s in wanted if s not in strategies]
        if unknown:
            parser.error(f"unknown strategy {unknown[0]} (known: {', '.join(strategies)})")
        strategies = wanted
    known = read_known(options.known)
    # certified proves with the guards' interval enclosures, which model files and rule tables
    # give and the built-in C++ models do not (they run their files: models/NAME.hym)
    cases = [(label, model, t_end, s) for label, model, t_end in models if options.models in label for s in strategies
             if not (s == "certified" and label == model)]
    start = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(options.jobs) as pool:
        results = list(pool.map(lambda case: sweep(options.hysim, case, options), cases))
    return report(results, known, options, time.monotonic() - start)


def report(results, known, options, seconds):
    bad = 0
    print("model\tstrategy\tdraws\tfailed\trefused\tzeno\tseconds\tverdict\tfirst error of each kind")
    for result in results:
        label, _, _, strategy = result["case"]
        state = verdict(result, known)
        bad += 0 if state.startswith(("ok", "known")) else 1
        kinds = " | ".join(f"{kind}: {line}" for kind, line in result["kinds"].items())
        print(f"{label}\t{strategy}\t{result['draws']}\t{result['failed']}\t{result['refused']}\t{result['zeno']}\t"
              f"{result['seconds']:.1f}\t{state}\t{kinds}")
    ran = {(r["case"][0]) for r in results}
    for entry in known:
        if not entry["used"] and entry["model"] in ran and (not options.strategies or entry["strategy"] == "*" or
                                                           entry["strategy"] in options.strategies.split(",")):
            print(f"STALE: known-failures line {entry['line']} ({entry['model']} {entry['strategy']}) matched no case")
            bad += 1
    runs = sum(r["draws"] for r in results)
    failed = sum(r["failed"] for r in results)
    refused = sum(r["refused"] for r in results)
    print(f"campaign: {len(results)} sweeps, {runs} runs, {failed} failed, {refused} refused "
          f"({sum(1 for r in results if r['failed'])} sweeps with failures), {bad} against the verdict, "
          f"{seconds:.1f} s on {options.jobs} jobs; draws {options.draws}, seed {options.seed}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

"""The PWM servo of ISMA 2024 ("Modeling and Simulation of Event Systems", docs/papers/README.md)
run with two event-detection strategies from Python: the default one-sided gamma-refine and
ISMA's gamma rule. Prints how far apart their first events are and how much work each did, and
draws the angle phi(t) with both strategies' switching times.

    PYTHONPATH=build/python /usr/bin/python3 examples/python/pwm_strategies.py [out.png]
"""
import sys

import matplotlib

matplotlib.use("Agg")  # no display needed
import matplotlib.pyplot as plt
import numpy as np

import hysim

T_END = 2.0
model = hysim.Model("pwm-servo")
runs = {name: model.run(t_end=T_END, strategy=name, output_step=0.002) for name in ("gamma-refine", "gamma")}

first = {name: run["events"]["t"][0] for name, run in runs.items()}
print(f"first switch (s1 -> s3, exact (sqrt(6) - 2)/10 = {(np.sqrt(6) - 2) / 10:.17f}):")
for name, run in runs.items():
    stats = run["stats"]
    print(f"  {name:13s} t = {first[name]:.17f}  events {stats['events']:4d}  field evaluations "
          f"{stats['rhs_evals']:5d}  one-sided {stats['one_sided_events']}/{stats['events']}")

figure, axes = plt.subplots(2, 1, figsize=(9, 6), sharex=True)
reference = runs["gamma-refine"]
phi = reference["states"].index("phi")
axes[0].plot(reference["trajectory"]["t"], reference["trajectory"]["x"][:, phi], color="black", lw=1)
axes[0].set_ylabel("phi [rad]")
axes[0].set_title("PWM servo (ISMA 2024): angle, and the switching times of two strategies")
for row, (name, run) in enumerate(runs.items()):
    axes[1].vlines(run["events"]["t"], row, row + 0.8, lw=0.8, label=name)
axes[1].set_yticks([0.4, 1.4], list(runs))
axes[1].set_xlabel("t [s]")
figure.tight_layout()
out = sys.argv[1] if len(sys.argv) > 1 else "pwm_strategies.png"
figure.savefig(out, dpi=100)
print(f"wrote {out}")

"""A/B of two builds of the Rust facade: `abws-bench calls … N` of
each, alternately (the order swapping each round), against one release sandbox; prints the
median wall and CPU µs a call of each and after ÷ before per round.

    .venv/bin/python benches/ab_facade.py BEFORE/abws-bench AFTER/abws-bench [ROUNDS] [CALLS]

after `scripts/bench.sh` has built target-bench/ (keep a copy of the first build's
target-bench/release/abws-bench before building the second).
"""

import json
import resource
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import run  # noqa: E402  (benches/run.py: the sandbox)

bins = {"before": sys.argv[1], "after": sys.argv[2]}
rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 9
calls = int(sys.argv[4]) if len(sys.argv) > 4 else 5000
sb = run.Sandbox.binary()
wall: dict[str, list[float]] = {k: [] for k in bins}
cpu: dict[str, list[float]] = {k: [] for k in bins}
try:
    c = sb.cred
    invs = ",".join(run.invoice_numbers(sb))
    for r in range(rounds):
        for k in (list(bins) if r % 2 == 0 else list(bins)[::-1]):
            r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
            p = subprocess.run([bins[k], "calls", sb.base, sb.auth, c["client_id"], c["client_secret"],
                                c["refresh_token"], invs, str(calls)], capture_output=True, text=True, check=True)
            r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
            x = json.loads(p.stdout.strip().splitlines()[-1])
            wall[k].append(x["seconds"] / x["calls"] * 1e6)
            # the child's CPU includes its start and its warm-up calls (50 in builds before 0af697b)
            done = calls + x.get("warm_up", 50)
            cpu[k].append(((r1.ru_utime + r1.ru_stime) - (r0.ru_utime + r0.ru_stime)) / done * 1e6)
    for k in bins:
        print(f"{k:7s} wall µs/call {statistics.median(wall[k]):6.1f} ({min(wall[k]):.1f}–{max(wall[k]):.1f})"
              f"  CPU µs/call {statistics.median(cpu[k]):6.1f} ({min(cpu[k]):.1f}–{max(cpu[k]):.1f})")
    ratios = [a / b for a, b in zip(wall["after"], wall["before"])]
    print("after ÷ before, wall, per round:", " ".join(f"{x:.3f}" for x in ratios),
          f"median {statistics.median(ratios):.3f}")
finally:
    sb.stop()

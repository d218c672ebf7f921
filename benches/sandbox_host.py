"""Runs the embedded sandbox (abws.Sandbox) in its own process, for the benchmarks that
need fault rules too large for the control path's 1 MiB request limit (B2's 10,000-
transaction page). Prints the sandbox's JSON line (like the abws-sandbox binary), then
serves until stdin closes or the process is terminated.

    python benches/sandbox_host.py [--rate-limits off|spec] [--today DATE] [--inject rules.json]
"""

import argparse
import json
import sys
import time

import abws


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rate-limits", default="off")
    ap.add_argument("--today", default=None)
    ap.add_argument("--inject", default=None, help="a JSON file holding one fault rule or a list")
    a = ap.parse_args()
    sb = abws.Sandbox(rate_limits=a.rate_limits, today=a.today)
    if a.inject:
        with open(a.inject, encoding="utf-8") as f:
            rules = json.load(f)
        for rule in rules if isinstance(rules, list) else [rules]:
            sb._native.inject(json.dumps(rule))
    print(sb._native.describe(), flush=True)
    try:
        while sys.stdin.read(1):
            pass
    except KeyboardInterrupt:
        pass
    time.sleep(0.05)
    sb.stop()


if __name__ == "__main__":
    main()

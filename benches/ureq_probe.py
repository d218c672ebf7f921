"""A one-off probe (docs/decisions/011-transport.md): the same keep-alive GETs as B1's Rust
floors through a raw `TcpStream`, bare reqwest and ureq (a synchronous HTTP library abws
does not use), `abws-bench raw|reqwest|ureq` as child processes, ROUNDS rounds of CALLS calls
each, the order rotating; prints the median µs a call of each and their differences.

    (cd benches/rust && CARGO_TARGET_DIR=../../target-bench/ureq-probe cargo build --release --features ureq)
    ABWS_BENCH_RUST=target-bench/ureq-probe/release/abws-bench .venv/bin/python benches/ureq_probe.py [ROUNDS] [CALLS]

after `scripts/bench.sh` has built target-bench/release/abws-sandbox. Not part of
scripts/bench.sh: ureq is built only with the feature.
"""

import json
import os
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Dict, List

sys.path.insert(0, str(Path(__file__).resolve().parent))
import run  # noqa: E402  (benches/run.py: the sandbox, the Rust program)

rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 7
calls = sys.argv[2] if len(sys.argv) > 2 else "5000"
modes = ["raw", "reqwest", "ureq"]
sb = run.Sandbox.binary()
us: Dict[str, List[float]] = {m: [] for m in modes}
try:
    urls = [run.detail_url(sb, i) for i in run.invoice_numbers(sb)]
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump({"urls": urls, "headers": sb.headers()}, f)
    for r in range(rounds):
        for m in modes[r % 3:] + modes[: r % 3]:
            x = run.rust_calls(sb, m, f.name, calls)
            us[m].append(x["seconds"] / x["calls"] * 1e6)
    os.unlink(f.name)
    med = {m: statistics.median(us[m]) for m in modes}
    for m in modes:
        print(f"{m:8s} {med[m]:6.1f} µs a call ({min(us[m]):.1f}–{max(us[m]):.1f})")
    print(f"reqwest − raw {med['reqwest'] - med['raw']:+.1f} µs, ureq − raw {med['ureq'] - med['raw']:+.1f} µs, "
          f"reqwest − ureq {med['reqwest'] - med['ureq']:+.1f} µs")
finally:
    sb.stop()

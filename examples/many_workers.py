"""Several worker processes closing several regions' months at once, on one account and one
shared state: what a Celery/RQ pool or a set of pods does.

    python examples/many_workers.py [--regions JP,US,UK,DE] [--shared-state redis://host:6379/0]

It starts the embedded sandbox (the whole service on loopback, at the spec's rate limits, its
clock 600x faster) and, unless ``--shared-state``/``ABWS_SHARED_STATE`` names a Redis, a
``redis-server`` of its own on a free loopback port. Then one process per region runs the
month-end close (the ``abws close`` command, installed with the package) as a real run would — the ``ABWS_*``
variables of the account, ``ABWS_SHARED_STATE`` — all at once. UK and DE share the EU
group's rate buckets, so they pace each other through Redis instead of drawing 429s; the
whole fleet refreshes its access token once. At the end it prints what the service saw:
requests, 429 answers and token refreshes.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from datetime import date, timedelta
from typing import Dict, List, Optional

import abws

SCALE = 600.0


def start_redis(workdir: str) -> "tuple[subprocess.Popen[bytes], str]":
    server = shutil.which("redis-server")
    if server is None:
        raise SystemExit("redis-server is not installed (scripts/ensure-redis.sh installs it), "
                         "or pass --shared-state redis://host:port/0")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([server, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                             "--dir", workdir], stdout=subprocess.DEVNULL)
    deadline = time.monotonic() + 10
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return proc, f"redis://127.0.0.1:{port}/0"
        except OSError:
            if time.monotonic() > deadline:
                proc.kill()
                raise SystemExit("redis-server did not start")
            time.sleep(0.02)


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--regions", default="JP,US,UK,DE", help="one worker process per region")
    ap.add_argument("--shared-state", default=os.environ.get("ABWS_SHARED_STATE"),
                    help="a Redis address (default: start a redis-server of our own)")
    ap.add_argument("--out", default="many-workers", help="output directory (one subdirectory per region)")
    args = ap.parse_args(argv)
    regions = [r.strip().upper() for r in args.regions.split(",") if r.strip()]
    # The package's console script, beside this Python (a venv) or on PATH.
    command = shutil.which("abws", path=os.path.dirname(sys.executable)) or shutil.which("abws")
    if command is None:
        raise SystemExit("the abws command is not installed (pip install abws)")
    os.makedirs(args.out, mode=0o700, exist_ok=True)
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as workdir:
        redis_proc = None
        shared = args.shared_state
        if not shared:
            redis_proc, shared = start_redis(workdir)
        sb = abws.Sandbox(rate_limits="spec", time_scale=SCALE, token_lifetime=3600 * SCALE,
                          page_token_lifetime=900 * SCALE, presigned_lifetime=300 * SCALE)
        try:
            c = sb.credentials()
            today = date.fromisoformat(sb.dataset()["today"])
            month = (today.replace(day=1) - timedelta(days=1)).strftime("%Y-%m")
            print(f"{len(regions)} workers ({', '.join(regions)}) closing {month} on one account, "
                  f"shared state {abws.Client('JP', access_token='x', endpoint=sb.base_url, shared_state=shared).settings['shared_state']}")
            workers: Dict[str, "subprocess.Popen[str]"] = {}
            for region in regions:
                env = {k: v for k, v in os.environ.items() if not k.startswith("ABWS_")}
                env.update({
                    "ABWS_REGION": region, "ABWS_CLIENT_ID": c["client_id"],
                    "ABWS_CLIENT_SECRET": c["client_secret"], "ABWS_REFRESH_TOKEN": c["refresh_token"],
                    "ABWS_USER_EMAIL": c["user_email"], "ABWS_ENDPOINT": sb.group_url(region),
                    "ABWS_AUTH_ENDPOINT": sb.base_url, "ABWS_SHARED_STATE": shared,
                    # The sandbox's made-up data only: the month-end job's documented demo key.
                    "ABWS_ARCHIVE_KEY": "5a" * 32,
                })
                workers[region] = subprocess.Popen(
                    [command, "close", "--month", month, "--out", os.path.join(args.out, region),
                     "--poll-interval", str(15 / SCALE), "--fresh", "--output", "json"],
                    env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            failed = 0
            for region, proc in workers.items():
                out, err = proc.communicate(timeout=900)
                if proc.returncode != 0:
                    failed += 1
                    print(f"  {region}: failed\n{err}")
                    continue
                r = json.loads(out)
                print(f"  {region}: invoices {r['invoices']}, credit memos {r['credit_memos']}; "
                      f"PDFs filed {r['pdfs_filed']}")
            counters = sb.counters()
            requests = sum(sum(by_status.values()) for op, by_status in counters["requests"].items()
                           if op[:1].islower() and op not in ("token", "consent", "foreign", "unknown", "documentDownload"))
            throttled = sum(counters["throttled"].values())
            create_429 = sum(n for k, n in counters["throttled"].items() if k.endswith(":createReport"))
            refreshes = counters["tokenCalls"].get("refresh_token", 0)
            print(f"the service saw {requests} API requests, {throttled} answered 429 "
                  f"({create_429} of createReport, the bucket that sets the pace), "
                  f"{refreshes} token refresh{'es' if refreshes != 1 else ''}; {time.monotonic() - started:.1f} s")
            return 1 if failed else 0
        finally:
            sb.stop()
            if redis_proc is not None:
                redis_proc.kill()
                redis_proc.wait()


if __name__ == "__main__":
    sys.exit(main())

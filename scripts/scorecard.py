"""Writes the reliability scorecard, docs/reliability.md (docs/reliability-full.md when the
Rust scenarios ran at the plan's full sizes), from the figures the suites left in
target/scorecards/ (or $ABWS_SCORECARD_DIR): the Rust scenarios' card (reliability.md or
reliability-full.md, from `cargo test -p abws --test it reliability`), the Python lines
(python.md, J, from tests/python/test_reliability.py) and the C lines (c.md, K, from
scripts/test-c.sh), and the release builds' lines (release.md, R, from scripts/repro-check.sh,
when `make release-check` ran). Run by `make scorecards` after those three; `make test` never calls it,
so a test run leaves the tracked files alone."""

import os
import re
import sys
from pathlib import Path

root = Path(__file__).resolve().parents[1]
scores = Path(os.environ.get("ABWS_SCORECARD_DIR") or root / "target" / "scorecards")
name = "reliability-full.md" if os.environ.get("ABWS_RELIABILITY_FULL") == "1" else "reliability.md"
parts = {"Rust": scores / name, "Python": scores / "python.md", "C": scores / "c.md"}
missing = [f"{k} ({p})" for k, p in parts.items() if not p.exists()]
if missing:
    sys.exit(f"scorecard: no figures from {', '.join(missing)}: run `make scorecards`")

text = parts["Rust"].read_text().rstrip() + "\n"
extra = parts["Python"].read_text().strip() + "\n\n" + parts["C"].read_text().strip()
text += "\n## Bindings\n\n" + extra + "\n"
# The release builds' lines (R), from the last `make release-check` (scripts/repro-check.sh):
# too long a build for `make scorecards` to run itself.
release = scores / "release.md"
text += "\n## Release builds\n\n" + (
    release.read_text().strip()
    if release.exists()
    else "Not measured in this run: `make release-check` (scripts/repro-check.sh) writes the R lines."
) + "\n"
lines = dict(re.findall(r"^- (J\d|K\d[^:]*): (.*)$", extra, re.M))
python = "; ".join(f"{k} {lines[k]}" for k in ("J1", "J2") if k in lines)
c_abi = "; ".join(f"{k} {v}" for k, v in lines.items() if k.startswith("K"))
if python:
    text = re.sub(r"^9\. \*\*Python\*\*: .*$", lambda _: f"9. **Python**: {python}", text, flags=re.M)
if c_abi:
    text = re.sub(r"^8\. \*\*C ABI\*\*: .*$", lambda _: f"8. **C ABI**: {c_abi}", text, flags=re.M)
out = root / "docs" / name
out.write_text(text)
print(f"scorecard: wrote {out.relative_to(root)}")

"""Merges the bindings' reliability figures (Python J, C K: docs/reliability-bindings.md,
written by their suites) into docs/reliability.md (written by the Rust harness), so the
scorecard of one `make test` run shows every section."""

import re
import sys
from pathlib import Path

docs = Path(__file__).resolve().parents[1] / "docs"
card = docs / "reliability.md"
bindings = docs / "reliability-bindings.md"
if not card.exists() or not bindings.exists():
    sys.exit(0)
text = card.read_text()
extra = bindings.read_text().strip()
text = text.split("\n## Bindings")[0].rstrip() + "\n\n## Bindings\n\n" + extra + "\n"
lines = dict(re.findall(r"^- (J\d|K\d[^:]*): (.*)$", extra, re.M))
python = "; ".join(f"{k} {lines[k]}" for k in ("J1", "J2") if k in lines)
c_abi = "; ".join(f"{k} {v}" for k, v in lines.items() if k.startswith("K"))
if python:
    text = re.sub(r"^9\. \*\*Python\*\*: .*$", f"9. **Python**: {python}", text, flags=re.M)
if c_abi:
    text = re.sub(r"^8\. \*\*C ABI\*\*: .*$", f"8. **C ABI**: {c_abi}", text, flags=re.M)
card.write_text(text)

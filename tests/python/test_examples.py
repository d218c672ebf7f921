"""Every example runs, as a user would run it, against the embedded sandbox."""

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def run(script: str, *args: str, cwd: Path) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ABWS_")}
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / script), *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_month_end_close(tmp_path: Path) -> None:
    out = run("month_end_close.py", "--out", str(tmp_path / "close"), cwd=tmp_path)
    assert "credit memos" in out and "tax at 10%" in out and "amount differences 0" in out
    archive = next((tmp_path / "close").glob("invoices-*.zip"))
    assert stat.S_IMODE(archive.stat().st_mode) == 0o600, "the PDFs are owner-only"
    assert stat.S_IMODE((tmp_path / "close").stat().st_mode) == 0o700
    import zipfile

    with zipfile.ZipFile(archive) as z:
        names = z.namelist()
        assert names and all(n.endswith(".pdf") for n in names)
        assert z.read(names[0]).startswith(b"%PDF-")
    assert not list((tmp_path / "close").glob("*.pdf")), "never a plain PDF file"
    ledger = next((tmp_path / "close").glob("ledger-*.csv")).read_text().splitlines()
    assert ledger[0].startswith("invoice_number,type") and len(ledger) > 10


def test_month_end_close_encrypted(tmp_path: Path) -> None:
    pytest.importorskip("cryptography")
    out = run("month_end_close.py", "--out", str(tmp_path / "c"), "--archive", "encrypted", "--no-pdfs", cwd=tmp_path)
    assert "invoices" in out


def test_quickstart(tmp_path: Path) -> None:
    out = run("quickstart.py", cwd=tmp_path)
    assert "invoices issued" in out and "tax" in out


def test_purchase(tmp_path: Path) -> None:
    out = run("purchase.py", cwd=tmp_path)
    assert "placed" in out and "package" in out


def test_notebook(tmp_path: Path) -> None:
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("pandas")
    pytest.importorskip("matplotlib")
    nb = nbformat.read(str(EXAMPLES / "notebook.ipynb"), as_version=4)
    nbclient.NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    assert any(o.get("output_type") == "display_data" and "image/png" in o.get("data", {}) for o in outputs), "a chart"
    assert any("total" in "".join(o.get("text", "")) for o in outputs)

"""The release workflow's helper scripts (run on the repository's own files)."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

try:
    import tomllib
except ImportError:  # Python 3.10
    tomllib = pytest.importorskip("tomli")

ROOT = Path(__file__).resolve().parents[2]


def project_urls(pyproject: Path, *args: str) -> "subprocess.CompletedProcess[str]":
    return subprocess.run([sys.executable, str(ROOT / "scripts" / "project-urls.py"), *args, str(pyproject)],
                          capture_output=True, text=True)


def test_the_project_urls_name_the_repository_and_tag(tmp_path: Path) -> None:
    p = tmp_path / "pyproject.toml"
    shutil.copy(ROOT / "pyproject.toml", p)
    before = tomllib.loads(p.read_text())
    assert "urls" not in before["project"], "the checked-in file names no address"
    for _ in range(2):  # a second run replaces the table
        r = project_urls(p, "https://github.com/acme/abws", "v1.2.3")
        assert r.returncode == 0, r.stderr
    after = tomllib.loads(p.read_text())
    assert after["project"]["urls"] == {
        "Homepage": "https://github.com/acme/abws",
        "Source": "https://github.com/acme/abws",
        "Documentation": "https://github.com/acme/abws/tree/v1.2.3/docs",
        "Changelog": "https://github.com/acme/abws/blob/v1.2.3/CHANGELOG.md",
        "Issues": "https://github.com/acme/abws/issues",
    }
    # Nothing else changed.
    del after["project"]["urls"]
    assert after == before


@pytest.mark.parametrize("repo, ref", [("http://github.com/acme/abws", "v1"), ("https://github.com/acme", "v1"),
                                       ("https://github.com/acme/abws", "../x"), ("https://github.com/a/b\"", "v1")])
def test_a_bad_address_or_ref_is_refused_and_nothing_written(tmp_path: Path, repo: str, ref: str) -> None:
    p = tmp_path / "pyproject.toml"
    shutil.copy(ROOT / "pyproject.toml", p)
    r = project_urls(p, repo, ref)
    assert r.returncode != 0 and "project-urls:" in r.stderr
    assert p.read_text() == (ROOT / "pyproject.toml").read_text()

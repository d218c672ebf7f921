#!/usr/bin/env python3
"""Writes the wheel's and sdist's project URLs into pyproject.toml, for a release built
from the repository it is published from (the release workflow passes
"$GITHUB_SERVER_URL/$GITHUB_REPOSITORY" and the tag). The checked-in pyproject.toml names
no address: the project's public home is wherever the workflow runs, and an invented one
would send users to the wrong place.

    python3 scripts/project-urls.py https://github.com/OWNER/abws v0.1.0 [pyproject.toml]

Adds (or replaces) a [project.urls] table: Homepage, Source, Documentation (the docs/ of
that tag), Changelog and Issues.
"""
import re
import sys
from pathlib import Path


def urls_table(repo: str, ref: str) -> str:
    if not re.fullmatch(r"https://[A-Za-z0-9.-]+(:[0-9]+)?/[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+", repo):
        raise SystemExit(f"project-urls: {repo!r} is not a repository address (https://HOST/OWNER/NAME)")
    if not re.fullmatch(r"[A-Za-z0-9_./-]+", ref) or ".." in ref:
        raise SystemExit(f"project-urls: {ref!r} is not a tag or branch name")
    rows = {
        "Homepage": repo,
        "Source": repo,
        "Documentation": f"{repo}/tree/{ref}/docs",
        "Changelog": f"{repo}/blob/{ref}/CHANGELOG.md",
        "Issues": f"{repo}/issues",
    }
    return "[project.urls]\n" + "".join(f'{k} = "{v}"\n' for k, v in rows.items())


def with_urls(text: str, table: str) -> str:
    # An earlier table goes (it runs to the next header or the end).
    text = re.sub(r"(?ms)^\[project\.urls\]\n.*?(?=^\[|\Z)", "", text)
    # Right after [project]'s own keys, before the next table.
    m = re.search(r"(?ms)^\[project\]\n.*?(?=^\[)", text)
    if m is None:
        raise SystemExit("project-urls: no [project] table followed by another table")
    return text[: m.end()] + table + "\n" + text[m.end():]


def main(argv: list) -> int:
    if len(argv) not in (2, 3):
        print(__doc__, file=sys.stderr)
        return 2
    path = Path(argv[2] if len(argv) == 3 else "pyproject.toml")
    path.write_text(with_urls(path.read_text(), urls_table(argv[0], argv[1])))
    print(f"project-urls: {path} names {argv[0]} at {argv[1]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

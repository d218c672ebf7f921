"""``python -m abws``: command-line helpers.

    python -m abws decrypt FILE -o OUT.pdf     # opens a sealed document file
    python -m abws decrypt FILE > OUT.pdf      # the PDF to standard output

The ``abws`` command (``abws --help``) does this and every operation besides.

The key comes from ``ABWS_DOCUMENT_KEY`` (64 hex digits) or ``--key-file PATH`` (a file
holding them); never from the command line, where other users could read it. A
password-sealed file (the month-end close's archive sealed with a password) opens with
``ABWS_ARCHIVE_PASSWORD`` or ``--password-file PATH`` (its first line).
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import List, Optional, Tuple

from . import _abws
from .exceptions import Error


def _secrets(args: argparse.Namespace) -> Tuple[Optional[str], Optional[str]]:
    """The key of --key-file and the password of --password-file; ``None``: the
    variables, read by the core."""
    key = password = None
    if args.key_file:
        with open(args.key_file, encoding="ascii") as fh:
            key = fh.read().strip()
    if args.password_file:
        with open(args.password_file, encoding="utf-8") as fh:
            password = (fh.read().splitlines() or [""])[0]
    given = key or password or os.environ.get("ABWS_DOCUMENT_KEY", "").strip() or os.environ.get("ABWS_ARCHIVE_PASSWORD", "")
    if not given:
        # The library's own message says "give key=", which a shell user cannot.
        raise _NoKey(
            "a key or a password is needed to open a sealed file: give --key-file PATH (a file holding 64 hex digits) "
            "or set ABWS_DOCUMENT_KEY; for a password-sealed file give --password-file PATH or set ABWS_ARCHIVE_PASSWORD"
        )
    return key, password


class _NoKey(Exception):
    """Neither --key-file nor ABWS_DOCUMENT_KEY."""


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m abws", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    dec = sub.add_parser(
        "decrypt",
        help="open a sealed document file (written by documents.download_to(id, path))",
        description="Opens a sealed file. The key: ABWS_DOCUMENT_KEY (64 hex digits) or --key-file; "
        "a password-sealed file's password: ABWS_ARCHIVE_PASSWORD or --password-file.",
    )
    dec.add_argument("file", help="the sealed file")
    dec.add_argument("-o", "--output", help="where to write the PDF (default: standard output)")
    dec.add_argument("--key-file", help="a file holding the key (64 hex digits)")
    dec.add_argument("--password-file", help="a file holding the password of a password-sealed file (its first line)")
    args = parser.parse_args(argv)
    try:
        key, password = _secrets(args)
        if args.output:
            size = _abws.decrypt_file(args.file, os.fspath(args.output), key, password)
            print(f"{args.output}: {size} bytes", file=sys.stderr)
        else:
            if sys.stdout.isatty():
                print("refusing to write a PDF to a terminal: use -o FILE or redirect", file=sys.stderr)
                return 2
            with open(args.file, "rb") as fh:
                data = fh.read()
            sys.stdout.buffer.write(_abws.decrypt(data, key, password))
            sys.stdout.buffer.flush()
    except (Error, OSError, _NoKey) as e:
        print(f"abws decrypt: {e}", file=sys.stderr)
        return 1
    return 0


def cli() -> None:
    """The ``abws`` console script: the command line of the C release's ``abws`` binary,
    run by the extension (every operation, ``fetch-pdf``, ``decrypt``, ``sandbox``;
    ``abws --help``). Ctrl-C stops it as it stops the binary."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)
    sys.exit(_abws.run_cli(["abws", *sys.argv[1:]]))


if __name__ == "__main__":
    sys.exit(main())

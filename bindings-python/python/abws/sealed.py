"""Encrypted document files ("abws sealed file", version 1).

``documents.fetch_pdf(..., to=path)`` and ``documents.download_to(id, path)`` write a
report document to ``path`` encrypted under the caller's key (``key=``, or
``ABWS_DOCUMENT_KEY``: 64 hex digits). ``decrypt`` and ``decrypt_file`` open such a file
again (``python -m abws decrypt FILE -o OUT.pdf`` does it from a shell); ``encrypt`` seals
bytes the caller already holds, into the same format.

The format, for any AES-GCM library (docs/python-api.md has a dozen lines that open it
with the ``cryptography`` package alone)::

    header    "ABWSENC1" | segment size (u32 big-endian, 65536) | salt (16 bytes)
    file key  HKDF-SHA256(key, salt, info=b"abws document v1"), 32 bytes
    segments  AES-256-GCM(file key, nonce, plaintext, aad=header) = ciphertext | 16-byte tag;
              each holds `segment size` plaintext bytes, the last 0..segment size;
              nonce = 7 zero bytes | segment index (u32 big-endian) | 1 if last else 0

A password instead of a key: the month-end close's archive sealed with
``archive_password`` (or ``ABWS_ARCHIVE_PASSWORD``) is this format behind a 34-byte
prefix that says how its key was derived (``docs/close.md``)::

    prefix    "ABWSPWD1" | kdf (1 = scrypt) | log2 N (1 byte) | r (u32 big-endian)
              | p (u32 big-endian) | salt (16 bytes)
    key       scrypt(password as UTF-8, salt, N, r, p), 32 bytes; then the format above

``decrypt`` and ``decrypt_file`` open it with ``password=`` (or ``ABWS_ARCHIVE_PASSWORD``):
the file's first bytes say whether it needs the key or the password.

The key and the password are never printed or logged, and no error repeats them.
"""

from __future__ import annotations

import os
from typing import Optional, Union

from . import _abws

KeyLike = Union[bytes, bytearray, str, None]


def encrypt(data: bytes, key: KeyLike = None) -> bytes:
    """Seals ``data`` (a PDF, or any bytes) and returns the sealed file's bytes, which
    ``decrypt`` (or ``python -m abws decrypt``) opens. ``key``: 32 bytes or 64 hex
    digits; ``None`` reads ``ABWS_DOCUMENT_KEY``; neither raises ``ValidationError``.
    Every call draws a fresh salt: sealing the same bytes twice gives different files."""
    return _abws.encrypt(data, key)


def decrypt(data: bytes, key: KeyLike = None, *, password: Optional[str] = None) -> bytes:
    """Opens a sealed file's bytes and returns the PDF (or the close's zip). ``key``: 32
    bytes or 64 hex digits; ``None`` reads ``ABWS_DOCUMENT_KEY``. A password-sealed file
    (the close's archive under ``archive_password``) opens with ``password``; ``None``
    reads ``ABWS_ARCHIVE_PASSWORD``. A wrong key or password, or a damaged, cut or
    reordered file raises ``DocumentError``; a key for a password-sealed file (or a
    password for a key's) raises ``ValidationError`` naming what it needs."""
    return _abws.decrypt(data, key, password)


def decrypt_file(
    src: Union[str, "os.PathLike[str]"],
    dest: Union[str, "os.PathLike[str]"],
    key: KeyLike = None,
    *,
    password: Optional[str] = None,
) -> int:
    """Opens the sealed file ``src`` (with ``key``, or ``password`` for a password-sealed
    one, as ``decrypt``) and writes the plain document to ``dest`` — an explicit
    plaintext write, done like every file the SDK writes (a temporary file created
    owner-only, no symbolic link followed, renamed once the whole file opened). Returns
    its size."""
    return _abws.decrypt_file(os.fspath(src), os.fspath(dest), key, password)

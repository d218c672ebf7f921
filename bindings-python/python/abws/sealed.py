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

The key is never printed or logged, and no error repeats it.
"""

from __future__ import annotations

import os
from typing import Union

from . import _abws

KeyLike = Union[bytes, bytearray, str, None]


def encrypt(data: bytes, key: KeyLike = None) -> bytes:
    """Seals ``data`` (a PDF, or any bytes) and returns the sealed file's bytes, which
    ``decrypt`` (or ``python -m abws decrypt``) opens. ``key``: 32 bytes or 64 hex
    digits; ``None`` reads ``ABWS_DOCUMENT_KEY``; neither raises ``ValidationError``.
    Every call draws a fresh salt: sealing the same bytes twice gives different files."""
    return _abws.encrypt(data, key)


def decrypt(data: bytes, key: KeyLike = None) -> bytes:
    """Opens a sealed file's bytes and returns the PDF. ``key``: 32 bytes or 64 hex
    digits; ``None`` reads ``ABWS_DOCUMENT_KEY``. A wrong key or a damaged, cut or
    reordered file raises ``DocumentError``."""
    return _abws.decrypt(data, key)


def decrypt_file(src: Union[str, "os.PathLike[str]"], dest: Union[str, "os.PathLike[str]"], key: KeyLike = None) -> int:
    """Opens the sealed file ``src`` and writes the plain PDF to ``dest`` — an explicit
    plaintext write, done like every file the SDK writes (a temporary file created
    owner-only, no symbolic link followed, renamed once the whole file opened). Returns
    the PDF's size."""
    return _abws.decrypt_file(os.fspath(src), os.fspath(dest), key)

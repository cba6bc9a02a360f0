"""``lesson lti-keys``: a new RSA key pair for the tool, in PEM files the LTI configuration names."""

from __future__ import annotations

import os
from pathlib import Path

from jwcrypto.jwk import JWK

PRIVATE, PUBLIC = "private.key", "public.key"


class KeysExist(FileExistsError):
    pass


def write_keys(folder: Path, force: bool = False, size: int = 2048) -> tuple[Path, Path]:
    """Write ``private.key`` (readable by its owner only) and ``public.key`` into ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    private, public = folder / PRIVATE, folder / PUBLIC
    if not force and (private.exists() or public.exists()):
        raise KeysExist(f"{private} or {public} exists already; --force replaces them")
    key = JWK.generate(kty="RSA", size=size)
    fd = os.open(private, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as out:
        out.write(key.export_to_pem(private_key=True, password=None))
    os.chmod(private, 0o600)  # an existing file keeps its mode through O_TRUNC
    public.write_bytes(key.export_to_pem())
    return private, public

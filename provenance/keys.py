"""Ed25519 signing keys: load or create the private key file, fingerprints, signatures."""

from __future__ import annotations

import base64
import hashlib
import logging
import os
import threading
from dataclasses import dataclass
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from .canonical import b32

log = logging.getLogger(__name__)

ALGORITHM = "ed25519"
_lock = threading.Lock()
_loaded: dict[tuple[str, float], Ed25519PrivateKey] = {}


def fingerprint_hex(public_raw: bytes) -> str:
    """First 16 bytes of SHA-256(raw public key) as 32 hex characters (PROVENANCE.md)."""
    return hashlib.sha256(public_raw).hexdigest()[:32]


def fingerprint_b32(public_raw: bytes) -> str:
    """``fingerprint_sha256_b32_first128bits``: first 26 base32 characters of SHA-256(raw key)."""
    return b32(hashlib.sha256(public_raw).digest())[:26]


def public_raw(private_key: Ed25519PrivateKey) -> bytes:
    """The raw 32-byte public key of ``private_key``."""
    return private_key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def verify_signature(public_key_raw: bytes, signature_b64: str, message: bytes) -> bool:
    """True when ``signature_b64`` (base64 ed25519) signs ``message`` under the raw public key."""
    try:
        signature = base64.b64decode(signature_b64, validate=True)
        Ed25519PublicKey.from_public_bytes(public_key_raw).verify(signature, message)
    except (InvalidSignature, ValueError, TypeError):
        return False
    return True


def _create(path: Path) -> None:
    """Write a new PKCS#8 PEM key readable by the owner only (mode 0600, directory 0700).

    ``O_EXCL`` makes two processes starting at once agree: the loser's open fails and it
    reads the winner's file.
    """
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    pem = Ed25519PrivateKey.generate().private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return
    with os.fdopen(fd, "wb") as handle:
        handle.write(pem)
    log.warning("provenance: created a new ed25519 signing key at %s", path)


def load_private_key(path: str | os.PathLike) -> Ed25519PrivateKey:
    """The ed25519 private key in the PEM file ``path``, created (0600) when it is missing.

    Cached per path and modification time, so replacing the file (key rotation) takes effect
    without a restart. Raises ``ValueError`` when the file holds something other than an
    unencrypted ed25519 key.
    """
    file = Path(path)
    with _lock:
        if not file.exists():
            _create(file)
        key = (str(file.resolve()), file.stat().st_mtime)
        cached = _loaded.get(key)
        if cached is not None:
            return cached
        private = serialization.load_pem_private_key(file.read_bytes(), password=None)
        if not isinstance(private, Ed25519PrivateKey):
            raise ValueError(f"{file}: not an ed25519 private key")
        _loaded[key] = private
        return private


@dataclass(frozen=True)
class Signer:
    """The key that signs now: private key, raw public key, fingerprint and ``key_id``."""

    private_key: Ed25519PrivateKey
    public_raw: bytes
    fingerprint: str
    key_id: str

    def sign_digest(self, digest_hex: str) -> str:
        """Sign the 32 raw bytes of a SHA-256 hex digest (never its hex text); base64 signature."""
        return base64.b64encode(self.private_key.sign(bytes.fromhex(digest_hex))).decode("ascii")

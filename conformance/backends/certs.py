"""Temporary certificates of a throwaway control plane, made with the ``cryptography`` package.

One run gets its own CA (valid for a day), a serving certificate for ``127.0.0.1``/``localhost``
(kube-apiserver, and kube-scheduler's metrics endpoint, so clients verify both against the CA),
a client certificate (``CN=kschedconf-admin``, ``O=system:masters``: the driver and the
scheduler authenticate with it) and the service-account signing key pair kube-apiserver
requires. Nothing is reused between runs and everything lives in the run's temporary directory.

``cryptography`` (added to the ``backends`` extra) is used rather than the ``openssl`` command:
the backends then need no system tool, the same code runs wherever ``openssl`` is missing or
behaves differently (LibreSSL, old versions without ``-addext``), and there is no shell quoting
of subject names; it ships wheels for every common platform.
"""

from __future__ import annotations

import datetime as dt
import ipaddress
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ADMIN_USER = "kschedconf-admin"
ADMIN_GROUP = "system:masters"
VALIDITY = dt.timedelta(days=1)


@dataclass(frozen=True, slots=True)
class CertBundle:
    """Paths of the PEM files of one control plane."""

    directory: Path
    ca_cert: Path
    ca_key: Path
    server_cert: Path
    server_key: Path
    client_cert: Path
    client_key: Path
    sa_key: Path  # service-account signing key (private)
    sa_pub: Path  # service-account verification key (public)


def _key() -> Any:
    # optional dependency: cryptography (the backends extra)
    from cryptography.hazmat.primitives.asymmetric import ec

    return ec.generate_private_key(ec.SECP256R1())


def _write_key(path: Path, key: Any) -> None:
    # optional dependency: cryptography (the backends extra)
    from cryptography.hazmat.primitives import serialization

    path.write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                       serialization.PrivateFormat.PKCS8,
                                       serialization.NoEncryption()))
    os.chmod(path, 0o600)


def _write_cert(path: Path, cert: Any) -> None:
    # optional dependency: cryptography (the backends extra)
    from cryptography.hazmat.primitives import serialization

    path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))


def make_certs(directory: str | os.PathLike[str],
               hosts: tuple[str, ...] = ("127.0.0.1", "localhost")) -> CertBundle:
    """Write a fresh CA, serving, client and service-account keys into ``directory``.
    ``hosts``: the serving certificate's names (IP addresses become IP SANs)."""
    # optional dependency: cryptography (the backends extra)
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    now = dt.datetime.now(dt.UTC) - dt.timedelta(minutes=5)
    ca_key = _key()
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "kschedconf-throwaway-ca")])
    ca = (x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name)
          .public_key(ca_key.public_key()).serial_number(x509.random_serial_number())
          .not_valid_before(now).not_valid_after(now + VALIDITY)
          .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
          .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True,
                                       content_commitment=False, key_encipherment=False,
                                       data_encipherment=False, key_agreement=False,
                                       encipher_only=False, decipher_only=False), critical=True)
          .sign(ca_key, hashes.SHA256()))

    def leaf(subject: x509.Name, usage: x509.ObjectIdentifier,
             sans: list[x509.GeneralName] | None) -> tuple[Any, Any]:
        key = _key()
        b = (x509.CertificateBuilder().subject_name(subject).issuer_name(ca_name)
             .public_key(key.public_key()).serial_number(x509.random_serial_number())
             .not_valid_before(now).not_valid_after(now + VALIDITY)
             .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
             .add_extension(x509.ExtendedKeyUsage([usage]), critical=False))
        if sans:
            b = b.add_extension(x509.SubjectAlternativeName(sans), critical=False)
        return key, b.sign(ca_key, hashes.SHA256())

    sans: list[x509.GeneralName] = []
    for h in hosts:
        try:
            sans.append(x509.IPAddress(ipaddress.ip_address(h)))
        except ValueError:
            sans.append(x509.DNSName(h))
    server_key, server = leaf(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME,
                                                            "kschedconf-apiserver")]),
                              ExtendedKeyUsageOID.SERVER_AUTH, sans)
    client_key, client = leaf(x509.Name([
        x509.NameAttribute(NameOID.ORGANIZATION_NAME, ADMIN_GROUP),
        x509.NameAttribute(NameOID.COMMON_NAME, ADMIN_USER)]),
        ExtendedKeyUsageOID.CLIENT_AUTH, None)
    sa_key = _key()

    b = CertBundle(d, d / "ca.crt", d / "ca.key", d / "server.crt", d / "server.key",
                   d / "client.crt", d / "client.key", d / "sa.key", d / "sa.pub")
    _write_cert(b.ca_cert, ca)
    _write_key(b.ca_key, ca_key)
    _write_cert(b.server_cert, server)
    _write_key(b.server_key, server_key)
    _write_cert(b.client_cert, client)
    _write_key(b.client_key, client_key)
    _write_key(b.sa_key, sa_key)
    b.sa_pub.write_bytes(sa_key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo))
    return b

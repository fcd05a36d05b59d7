"""A throwaway PKI for the local control plane: CA, serving cert, admin client cert, SA key."""

from __future__ import annotations

import datetime as dt
import ipaddress
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

_PEM = serialization.Encoding.PEM


@dataclass(frozen=True)
class Pki:
    ca_cert: Path
    ca_key: Path
    serving_cert: Path
    serving_key: Path
    admin_cert: Path
    admin_key: Path
    sa_key: Path
    sa_pub: Path


def _write_key(path: Path, key: ec.EllipticCurvePrivateKey | rsa.RSAPrivateKey) -> None:
    fmt = serialization.PrivateFormat.TraditionalOpenSSL
    path.write_bytes(key.private_bytes(_PEM, fmt, serialization.NoEncryption()))
    path.chmod(0o600)


def _name(common_name: str, org: str | None = None) -> x509.Name:
    attrs = [x509.NameAttribute(NameOID.COMMON_NAME, common_name)]
    if org:
        attrs.append(x509.NameAttribute(NameOID.ORGANIZATION_NAME, org))
    return x509.Name(attrs)


def _builder(
    subject: x509.Name, issuer: x509.Name, key: ec.EllipticCurvePrivateKey
) -> x509.CertificateBuilder:
    now = dt.datetime.now(dt.UTC)
    return (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(issuer)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(minutes=5))
        .not_valid_after(now + dt.timedelta(days=7))
    )


def _leaf(
    ca_key: ec.EllipticCurvePrivateKey,
    ca_name: x509.Name,
    subject: x509.Name,
    usage: x509.ObjectIdentifier,
    sans: list[x509.GeneralName] | None = None,
) -> tuple[x509.Certificate, ec.EllipticCurvePrivateKey]:
    key = ec.generate_private_key(ec.SECP256R1())
    builder = _builder(subject, ca_name, key).add_extension(
        x509.ExtendedKeyUsage([usage]), critical=False
    )
    if sans:
        builder = builder.add_extension(x509.SubjectAlternativeName(sans), critical=False)
    return builder.sign(ca_key, hashes.SHA256()), key


def client_cert(pki: Pki, user: str, groups: tuple[str, ...] = ()) -> tuple[bytes, bytes]:
    """PEM certificate and key for ``user`` (and ``groups``), signed by the test CA."""
    ca = x509.load_pem_x509_certificate(pki.ca_cert.read_bytes())
    ca_key = serialization.load_pem_private_key(pki.ca_key.read_bytes(), None)
    assert isinstance(ca_key, ec.EllipticCurvePrivateKey)
    attrs = [x509.NameAttribute(NameOID.COMMON_NAME, user)]
    attrs += [x509.NameAttribute(NameOID.ORGANIZATION_NAME, group) for group in groups]
    cert, key = _leaf(ca_key, ca.subject, x509.Name(attrs), ExtendedKeyUsageOID.CLIENT_AUTH)
    fmt = serialization.PrivateFormat.TraditionalOpenSSL
    return cert.public_bytes(_PEM), key.private_bytes(_PEM, fmt, serialization.NoEncryption())


def make_pki(directory: Path) -> Pki:
    directory.mkdir(parents=True, exist_ok=True)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = _name("kube-notifier-test-ca")
    ca = (
        _builder(ca_name, ca_name, ca_key)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(ca_key, hashes.SHA256())
    )
    sans: list[x509.GeneralName] = [
        x509.DNSName("localhost"),
        x509.DNSName("kubernetes.default.svc"),
        x509.IPAddress(ipaddress.ip_address("127.0.0.1")),
        x509.IPAddress(ipaddress.ip_address("10.0.0.1")),
    ]
    serving, serving_key = _leaf(
        ca_key, ca_name, _name("kube-apiserver"), ExtendedKeyUsageOID.SERVER_AUTH, sans
    )
    admin, admin_key = _leaf(
        ca_key, ca_name, _name("admin", "system:masters"), ExtendedKeyUsageOID.CLIENT_AUTH
    )
    sa_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)

    pki = Pki(
        *(
            directory / n
            for n in (
                "ca.crt",
                "ca.key",
                "apiserver.crt",
                "apiserver.key",
                "admin.crt",
                "admin.key",
                "sa.key",
                "sa.pub",
            )
        )
    )
    pki.ca_cert.write_bytes(ca.public_bytes(_PEM))
    _write_key(pki.ca_key, ca_key)
    pki.serving_cert.write_bytes(serving.public_bytes(_PEM))
    _write_key(pki.serving_key, serving_key)
    pki.admin_cert.write_bytes(admin.public_bytes(_PEM))
    _write_key(pki.admin_key, admin_key)
    _write_key(pki.sa_key, sa_key)
    pub_fmt = serialization.PublicFormat.SubjectPublicKeyInfo
    pki.sa_pub.write_bytes(sa_key.public_key().public_bytes(_PEM, pub_fmt))
    return pki

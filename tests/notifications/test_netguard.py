"""The network guard of player-typed addresses: only public destinations, checked once, pinned."""

from __future__ import annotations

import ipaddress
import ssl
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import requests
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from notifications.channels import netguard
from notifications.channels.netguard import DestinationRefused

from .loopback_http import Receiver, receiver_fixture  # noqa: F401 (a fixture)

NOT_PUBLIC = [
    "127.0.0.1",
    "127.8.9.10",
    "10.0.0.1",
    "172.16.5.4",
    "192.168.1.1",
    "169.254.169.254",  # cloud metadata
    "100.64.0.1",  # shared address space (carrier NAT)
    "0.0.0.0",
    "224.0.0.1",  # multicast: Python 3.11 calls it global
    "240.0.0.1",
    "255.255.255.255",
    "198.51.100.7",  # documentation
    "::1",
    "::",
    "fc00::1",
    "fd12:3456::1",
    "fe80::1",
    "ff02::1",
    "::ffff:127.0.0.1",  # IPv4-mapped loopback
    "::ffff:10.0.0.1",
    "::10.0.0.1",  # IPv4-compatible
    "2002:7f00:1::",  # 6to4 around 127.0.0.1
    "2002:a00:1::",  # 6to4 around 10.0.0.1
    "64:ff9b::a00:1",  # NAT64 around 10.0.0.1
    "2001:db8::1",
]
PUBLIC = ["93.184.216.34", "8.8.8.8", "2606:4700::1111", "::ffff:8.8.8.8"]


@pytest.mark.parametrize("address", NOT_PUBLIC)
def test_non_public_addresses_are_refused(address: str, settings: Any) -> None:
    settings.NOTIFICATION_WEBHOOK_ALLOW = []
    assert not netguard.is_public(ipaddress.ip_address(address))
    host = f"[{address}]" if ":" in address else address
    with pytest.raises(DestinationRefused) as refused:
        netguard.resolve(f"https://{host}/hook")
    assert refused.value.code == "private"


@pytest.mark.parametrize("address", PUBLIC)
def test_public_addresses_pass(address: str) -> None:
    assert netguard.is_public(ipaddress.ip_address(address))


def fake_dns(monkeypatch: pytest.MonkeyPatch, *answers: list[str]) -> list[str]:
    """The resolver answers ``answers`` in turn (the last one again after that); returns the
    list of names it was asked."""
    asked: list[str] = []

    def lookup(host: str, port: int) -> list[str]:
        asked.append(host)
        return answers[min(len(asked), len(answers)) - 1]

    monkeypatch.setattr(netguard, "lookup", lookup)
    return asked


def test_a_host_name_that_resolves_to_a_private_address_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fake_dns(monkeypatch, ["10.1.2.3"])
    with pytest.raises(DestinationRefused) as refused:
        netguard.resolve("https://hooks.example/x")
    assert refused.value.code == "private"


def test_one_private_address_among_public_ones_refuses_the_host(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fake_dns(monkeypatch, ["93.184.216.34", "127.0.0.1"])
    with pytest.raises(DestinationRefused):
        netguard.resolve("https://hooks.example/x")


def test_a_public_host_resolves_to_the_address_to_connect_to(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fake_dns(monkeypatch, ["93.184.216.34"])
    target = netguard.resolve("https://Hooks.Example:8443/api/hook?x=1")
    assert (target.scheme, target.host, target.port) == ("https", "hooks.example", 8443)
    assert (target.path, target.address) == ("/api/hook?x=1", "93.184.216.34")


@pytest.mark.parametrize(
    ("url", "code"),
    [
        ("ftp://hooks.example/x", "scheme"),
        ("file:///etc/passwd", "scheme"),
        ("gopher://hooks.example/", "scheme"),
        ("https://hooks.example:25/", "port"),
        ("https://hooks.example:22/", "port"),
        ("http://user:pass@hooks.example/", "host"),
        ("https:///nohost", "host"),
    ],
)
def test_schemes_ports_and_credentials(url: str, code: str) -> None:
    with pytest.raises(DestinationRefused) as refused:
        netguard.resolve(url)
    assert refused.value.code == code


def test_a_name_that_does_not_resolve(monkeypatch: pytest.MonkeyPatch) -> None:
    def lookup(host: str, port: int) -> list[str]:
        raise OSError("no such host")

    monkeypatch.setattr(netguard, "lookup", lookup)
    with pytest.raises(DestinationRefused) as refused:
        netguard.resolve("https://nowhere.example/")
    assert refused.value.code == "unresolvable"


# -- requests to a receiver on loopback ---------------------------------------------------------
def test_loopback_is_refused_unless_allowed(receiver: Receiver, settings: Any) -> None:
    settings.NOTIFICATION_WEBHOOK_ALLOW = []
    with pytest.raises(DestinationRefused):
        netguard.post(receiver.url(), b"{}", {})
    assert receiver.requests == []
    settings.NOTIFICATION_WEBHOOK_ALLOW = ["127.0.0.1"]
    assert netguard.post(receiver.url(), b"{}", {}).status == 204
    assert len(receiver.requests) == 1


def test_a_redirect_is_returned_not_followed(receiver: Receiver, settings: Any) -> None:
    settings.NOTIFICATION_WEBHOOK_ALLOW = ["127.0.0.1"]
    receiver.status = 307
    receiver.headers = {"Location": receiver.url("/elsewhere")}
    answer = netguard.post(receiver.url(), b"{}", {})
    assert (answer.status, answer.location) == (307, receiver.url("/elsewhere"))
    assert [path for path, _h, _b in receiver.requests] == ["/hook"]


def test_the_connection_goes_to_the_checked_address(
    receiver: Receiver, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A second DNS answer (rebinding) is never asked for: the request goes to the address
    that was checked, under the host's name."""
    settings.NOTIFICATION_WEBHOOK_ALLOW = ["127.0.0.1"]
    asked = fake_dns(monkeypatch, ["127.0.0.1"], ["10.9.9.9"])
    answer = netguard.post(f"http://hooks.example:{receiver.port}/hook", b"{}", {})
    assert answer.status == 204
    assert asked == ["hooks.example"]
    [(_path, headers, _body)] = receiver.requests
    assert headers["Host"] == f"hooks.example:{receiver.port}"


def test_the_answer_is_read_up_to_a_cap(receiver: Receiver, settings: Any) -> None:
    settings.NOTIFICATION_WEBHOOK_ALLOW = ["127.0.0.1"]
    receiver.status = 200
    receiver.body = b"x" * 1_000_000
    answer = netguard.post(receiver.url(), b"{}", {})
    assert answer.status == 200
    assert len(answer.body) == netguard.MAX_ANSWER_BYTES


def test_a_receiver_that_never_answers_is_given_up(
    receiver: Receiver, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings.NOTIFICATION_WEBHOOK_ALLOW = ["127.0.0.1"]
    monkeypatch.setattr(netguard, "TOTAL_TIMEOUT", 0.3)
    receiver.hold.clear()
    with pytest.raises(netguard.RequestFailed):
        netguard.post(receiver.url(), b"{}", {})


def test_nothing_listening_is_a_failed_request(settings: Any) -> None:
    settings.NOTIFICATION_WEBHOOK_ALLOW = ["127.0.0.1"]
    server = Receiver()
    url = server.url()
    server.close()
    with pytest.raises(netguard.RequestFailed):
        netguard.post(url, b"{}", {})


@pytest.fixture
def tls_files(tmp_path: Path) -> tuple[Path, Path]:
    """A self-signed certificate for hooks.example (and its key), made with ``cryptography``
    (a dependency already: pywebpush's)."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "hooks.example")])
    now = datetime.now(UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - timedelta(minutes=5))
        .not_valid_after(now + timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName("hooks.example")]), False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert, key_file = tmp_path / "cert.pem", tmp_path / "key.pem"
    cert.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert, key_file


@pytest.mark.parametrize(("host", "ok"), [("hooks.example", True), ("other.example", False)])
def test_https_goes_to_the_checked_address_and_checks_the_host_names_certificate(
    tls_files: tuple[Path, Path],
    settings: Any,
    monkeypatch: pytest.MonkeyPatch,
    host: str,
    ok: bool,
) -> None:
    """TLS to a pinned address: the certificate must still be the host name's (SNI)."""
    cert, key = tls_files
    server_side = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server_side.load_cert_chain(cert, key)
    monkeypatch.setattr(
        netguard, "tls_context", lambda: ssl.create_default_context(cafile=str(cert))
    )
    settings.NOTIFICATION_WEBHOOK_ALLOW = ["127.0.0.1"]
    fake_dns(monkeypatch, ["127.0.0.1"])
    server = Receiver(tls=server_side)
    try:
        url = server.url(host=host, scheme="https")
        if ok:
            assert netguard.post(url, b"{}", {}).status == 204
            [(_path, headers, _body)] = server.requests
            assert headers["Host"] == f"hooks.example:{server.port}"
        else:
            with pytest.raises(netguard.RequestFailed):
                netguard.post(url, b"{}", {})
            assert server.requests == []
    finally:
        server.close()


@pytest.mark.parametrize(("host", "ok"), [("hooks.example", True), ("other.example", False)])
def test_the_pinned_requests_session_checks_the_host_names_certificate(
    tls_files: tuple[Path, Path], host: str, ok: bool
) -> None:
    """``pinned_session`` (pywebpush's transport) connects to the checked address, and over
    TLS the certificate must still be the host name's."""
    cert, key = tls_files
    server_side = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server_side.load_cert_chain(cert, key)
    server = Receiver(tls=server_side)
    try:
        target = netguard.Target("https", host, server.port, "/hook", "127.0.0.1")
        session = netguard.pinned_session(target)
        url = f"https://{host}:{server.port}/hook"
        if ok:
            assert session.post(url, data=b"{}", verify=str(cert)).status_code == 204
            [(_path, headers, _body)] = server.requests
            assert headers["Host"] == f"hooks.example:{server.port}"
        else:
            with pytest.raises(requests.exceptions.SSLError):
                session.post(url, data=b"{}", verify=str(cert))
            assert server.requests == []
    finally:
        server.close()

"""Outgoing requests to addresses a player typed, which must not reach the server's own network.

A webhook address is chosen by a player, so without a guard it could make the site POST to
its database, its metadata service or anything else on its network (SSRF). The rules:

- ``http`` and ``https`` only; ports 80, 443 and 1024-65535 (no SMTP, SSH or other
  privileged services, which an HTTP body could be smuggled into).
- The host is resolved once; every address it resolves to must be public (not private,
  loopback, link-local, multicast, reserved, unspecified, shared (100.64/10), documentation,
  nor an IPv6 address embedding such an IPv4 one: mapped, IPv4-compatible, 6to4, Teredo,
  NAT64). One non-public address refuses the host.
- The connection goes to the checked address itself (the TLS certificate is still checked
  against the host name), so a second DNS answer cannot swap in another (DNS rebinding).
- No redirect is followed; no proxy from the environment is used.
- Libraries that speak HTTP through ``requests`` (pywebpush) get ``pinned_session``: the same
  pinning, through a transport adapter that connects to the checked address only.
- Connect within 3 s, the whole exchange within 5 s (a watchdog closes the socket), and at
  most 4 KiB of the answer is read.

``settings.NOTIFICATION_WEBHOOK_ALLOW`` lists hosts or addresses let through without the
address check, for tests against a receiver on loopback; it is empty by default and has no
place in production.
"""

from __future__ import annotations

import contextlib
import http.client
import ipaddress
import socket
import ssl
import threading
import time
from dataclasses import dataclass
from urllib.parse import urlsplit

import requests
from django.conf import settings
from requests.adapters import HTTPAdapter

CONNECT_TIMEOUT = 3.0
TOTAL_TIMEOUT = 5.0
MAX_ANSWER_BYTES = 4096
ALLOWED_SCHEMES = {"http": 80, "https": 443}
NAT64 = ipaddress.ip_network("64:ff9b::/96")
IPV4_COMPATIBLE = ipaddress.ip_network("::/96")

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


class DestinationRefused(Exception):
    """The address may not be used: ``code`` says why (``scheme``, ``port``, ``host``,
    ``private``, ``unresolvable``). Unresolvable may pass later; the others never will."""

    def __init__(self, code: str, detail: str = "") -> None:
        self.code = code
        super().__init__(f"{code}: {detail}" if detail else code)


class RequestFailed(Exception):
    """The request did not get an answer: refused, reset, timed out, TLS failed."""


@dataclass(frozen=True)
class Target:
    """A checked destination: where to connect (``address``) and what to call it."""

    scheme: str
    host: str
    port: int
    path: str
    address: str


@dataclass(frozen=True)
class Answer:
    status: int
    body: bytes  # at most MAX_ANSWER_BYTES
    location: str


def _allowed() -> set[str]:
    return {h.lower().strip("[]") for h in getattr(settings, "NOTIFICATION_WEBHOOK_ALLOW", [])}


def is_public(address: IPAddress) -> bool:
    """Whether ``address`` is an ordinary public Internet address (and so is any IPv4 address
    an IPv6 one embeds). Python 3.11's ``is_global`` alone passes multicast and some
    reserved ranges, so each property is checked."""
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return is_public(address.ipv4_mapped)
        if address in IPV4_COMPATIBLE or address in NAT64:
            return False
        embedded: list[IPAddress] = []
        if address.sixtofour is not None:
            embedded.append(address.sixtofour)
        if address.teredo is not None:
            embedded.extend(address.teredo)
        if not all(is_public(inner) for inner in embedded):
            return False
    return not (
        not address.is_global
        or address.is_private
        or address.is_loopback
        or address.is_link_local
        or address.is_multicast
        or address.is_reserved
        or address.is_unspecified
        or (isinstance(address, ipaddress.IPv6Address) and address.is_site_local)
    )


def lookup(host: str, port: int) -> list[str]:
    """The addresses ``host`` resolves to, in the resolver's order (the one DNS query)."""
    addresses: list[str] = []
    for _family, _type, _proto, _name, sockaddr in socket.getaddrinfo(
        host, port, type=socket.SOCK_STREAM
    ):
        text = str(sockaddr[0]).split("%", 1)[0]  # an IPv6 zone means link-local anyway
        if text not in addresses:
            addresses.append(text)
    return addresses


def check_url(url: str) -> tuple[str, str, int, str]:
    """(scheme, host, port, path) of a URL the rules allow, else ``DestinationRefused``."""
    parts = urlsplit(url.strip())
    scheme = parts.scheme.lower()
    if scheme not in ALLOWED_SCHEMES:
        raise DestinationRefused("scheme", scheme)
    if parts.username or parts.password:
        raise DestinationRefused("host", "credentials in the address")
    host = (parts.hostname or "").lower()
    if not host:
        raise DestinationRefused("host", "no host")
    try:
        port = parts.port or ALLOWED_SCHEMES[scheme]
    except ValueError:
        raise DestinationRefused("port", "not a port") from None
    if port not in (80, 443) and not 1024 <= port <= 65535 and host not in _allowed():
        raise DestinationRefused("port", str(port))
    path = parts.path or "/"
    if parts.query:
        path = f"{path}?{parts.query}"
    return scheme, host, port, path


def resolve(url: str) -> Target:
    """Check ``url`` and resolve its host to one public address to connect to."""
    scheme, host, port, path = check_url(url)
    allowed = _allowed()
    try:
        addresses = lookup(host, port)
    except (OSError, UnicodeError) as exc:
        raise DestinationRefused("unresolvable", host) from exc
    if not addresses:
        raise DestinationRefused("unresolvable", host)
    if host not in allowed:
        for text in addresses:
            if text not in allowed and not is_public(ipaddress.ip_address(text)):
                raise DestinationRefused("private", f"{host} is {text}")
    return Target(scheme=scheme, host=host, port=port, path=path, address=addresses[0])


class _PinnedHTTPConnection(http.client.HTTPConnection):
    """An HTTP connection to ``address``, however its host name resolves meanwhile."""

    def __init__(self, target: Target) -> None:
        super().__init__(target.host, target.port, timeout=CONNECT_TIMEOUT)
        self.address = target.address

    def connect(self) -> None:
        self.sock = socket.create_connection((self.address, self.port), timeout=self.timeout)


def tls_context() -> ssl.SSLContext:
    """The system's trusted certificates, host names checked (tests trust their own CA)."""
    return ssl.create_default_context()


class _PinnedHTTPSConnection(_PinnedHTTPConnection):
    """TLS to the checked address; the certificate must still be the host name's."""

    def connect(self) -> None:
        super().connect()
        self.sock = tls_context().wrap_socket(self.sock, server_hostname=self.host)


class _PinnedAdapter(HTTPAdapter):
    """A ``requests`` transport to one checked address: the URL's host is only a name (the
    Host header and, over TLS, the name the certificate must carry); any other destination,
    a redirect's included, is refused."""

    def __init__(self, target: Target) -> None:
        super().__init__(max_retries=0)
        self.target = target

    def get_connection_with_tls_context(
        self,
        request: requests.PreparedRequest,
        verify: bool | str | None,
        proxies: dict[str, str] | None = None,
        cert: object = None,
    ) -> object:
        parts = urlsplit(request.url or "")
        port = parts.port or ALLOWED_SCHEMES.get(parts.scheme, 0)
        target = self.target
        if (parts.scheme, (parts.hostname or "").lower(), port) != (
            target.scheme,
            target.host,
            target.port,
        ):
            raise requests.ConnectionError(f"{parts.hostname} is not the checked destination")
        _host, pool_kwargs = self.build_connection_pool_key_attributes(request, verify, cert)  # type: ignore[arg-type]
        if target.scheme == "https":
            pool_kwargs = {
                **pool_kwargs,
                "server_hostname": target.host,
                "assert_hostname": target.host,
            }
        return self.poolmanager.connection_from_host(
            target.address, port=target.port, scheme=target.scheme, pool_kwargs=pool_kwargs
        )

    def send(
        self, request: requests.PreparedRequest, *args: object, **kwargs: object
    ) -> requests.Response:  # type: ignore[override]
        default = ALLOWED_SCHEMES[self.target.scheme] == self.target.port
        request.headers["Host"] = self.target.host + ("" if default else f":{self.target.port}")
        return super().send(request, *args, **kwargs)  # type: ignore[arg-type]


def pinned_session(target: Target) -> requests.Session:
    """A ``requests`` session that reaches ``target.address`` only (see ``_PinnedAdapter``):
    no redirect, no proxy from the environment."""
    session = requests.Session()
    session.max_redirects = 0
    session.trust_env = False
    adapter = _PinnedAdapter(target)
    session.mount("http://", adapter)
    session.mount("https://", adapter)
    return session


def post(url: str, body: bytes, headers: dict[str, str]) -> Answer:
    """POST ``body`` to ``url`` under the rules above: the answer's status and at most
    MAX_ANSWER_BYTES of its body; a redirect is returned as it is, never followed.
    ``DestinationRefused`` before any connection, ``RequestFailed`` when none was answered."""
    target = resolve(url)
    connection_class = _PinnedHTTPSConnection if target.scheme == "https" else _PinnedHTTPConnection
    connection = connection_class(target)
    started = time.monotonic()
    expired = threading.Event()

    def abort() -> None:
        expired.set()
        sock = connection.sock
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

    watchdog = threading.Timer(TOTAL_TIMEOUT, abort)
    watchdog.daemon = True
    watchdog.start()
    try:
        connection.connect()
        assert connection.sock is not None
        connection.sock.settimeout(max(0.1, TOTAL_TIMEOUT - (time.monotonic() - started)))
        connection.request(
            "POST", target.path, body=body, headers={**headers, "Connection": "close"}
        )
        response = connection.getresponse()
        answer = response.read(MAX_ANSWER_BYTES)
        return Answer(
            status=response.status, body=answer, location=response.getheader("Location", "")
        )
    except (OSError, http.client.HTTPException) as exc:
        if expired.is_set():
            raise RequestFailed(f"no answer within {TOTAL_TIMEOUT:g} s") from exc
        raise RequestFailed(f"{type(exc).__name__}: {exc}") from exc
    finally:
        watchdog.cancel()
        connection.close()

"""Where a webhook may be delivered: guarding the platform's network from its own
deliveries (server-side request forgery).

A target is an https URL (locally http too) whose host resolves only to public
addresses: never a private, loopback, link-local (the cloud's metadata service at
169.254.169.254), shared, reserved, multicast or unspecified one, on whatever port;
locally loopback is allowed, so a developer receives on 127.0.0.1. An IPv6 address that
carries an IPv4 one (IPv4-mapped or -translated, NAT64's 64:ff9b::/96, 6to4's 2002::/16)
is judged by the IPv4 address it reaches; the forms that reach nothing public or are
deprecated (IPv4-compatible ::/96, NAT64's local-use 64:ff9b:1::/48, site-local
fec0::/10) are refused, and so are the clouds' metadata addresses that are not private.
The host is resolved, not just parsed: a name can point anywhere. It is checked when the
endpoint is created and again at each delivery (DNS can change), and the delivery
connects to the address that was checked, so the name cannot be made to point elsewhere
between the check and the connection.
"""

import ipaddress
import socket
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as ResolveTimeout
from dataclasses import dataclass
from urllib.parse import urlsplit

# A name that takes longer than this to resolve is refused (a request waits on it).
RESOLVE_SECONDS = 2.0

Resolver = Callable[[str, int], list[str]]
Address = ipaddress.IPv4Address | ipaddress.IPv6Address


class Refused(Exception):
    """Not a target the platform delivers to; str() says why (for the field `url`)."""


@dataclass(frozen=True)
class Target:
    """A parsed target: its scheme, host (for Host and TLS), port, and path with query."""

    scheme: str
    host: str
    port: int
    path: str


def parse(url: str, local: bool) -> Target:
    """The URL's parts, or Refused: https only (locally http too), a host, no
    credentials or fragment in it, a valid port."""
    schemes = ("https", "http") if local else ("https",)
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        raise Refused("must be a valid URL") from None
    if parts.scheme.lower() not in schemes:
        raise Refused("must be an https URL" + (" (or http, locally)" if local else ""))
    if not parts.hostname:
        raise Refused("must name a host")
    if parts.username is not None or parts.password is not None:
        raise Refused("must not carry credentials")
    if parts.fragment:
        raise Refused("must not have a fragment")
    if port == 0:
        raise Refused("must have a port from 1 to 65535")
    scheme = parts.scheme.lower()
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return Target(scheme, parts.hostname, port or (443 if scheme == "https" else 80), path)


# The clouds' metadata and platform services, those that Python does not already count
# as private or link-local: AWS's over IPv6 is unique-local, Alibaba's is shared address
# space, Azure's platform address and Oracle's are in public space.
METADATA = frozenset(
    map(
        ipaddress.ip_address,
        ("169.254.169.254", "fd00:ec2::254", "168.63.129.16", "100.100.100.200", "192.0.0.192"),
    )
)
# IPv6 prefixes whose last 32 bits are the IPv4 address they reach.
_CARRYING_IPV4 = (
    ipaddress.IPv6Network("64:ff9b::/96"),  # NAT64 (RFC 6052)
    ipaddress.IPv6Network("::ffff:0:0:0/96"),  # IPv4-translated (SIIT, RFC 7915)
)
# IPv6 prefixes no delivery goes to, whatever they carry.
_NEVER = (
    ipaddress.IPv6Network("::/96"),  # IPv4-compatible (deprecated), :: and ::1 aside
    ipaddress.IPv6Network("64:ff9b:1::/48"),  # NAT64's local use (RFC 8215)
    ipaddress.IPv6Network("fec0::/10"),  # site-local (deprecated: private in effect)
)


def _reached(address: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 one carries and reaches, if it does."""
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address.sixtofour is not None:
        return address.sixtofour
    if any(address in prefix for prefix in _CARRYING_IPV4):
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return None


def allowed(address: Address, local: bool) -> bool:
    """A public address, or one that reaches only a public one; loopback too when
    `local`."""
    if address in METADATA:
        return False
    if isinstance(address, ipaddress.IPv6Address):
        if int(address) > 1 and any(address in prefix for prefix in _NEVER):
            return False
        reached = _reached(address)
        if reached is not None:
            return allowed(reached, local)
    if address.is_loopback:
        return local
    return address.is_global and not address.is_multicast


def check(target: Target, local: bool, resolve: Resolver) -> str:
    """The address to connect to: the host's first, once every address it resolves to
    is allowed; Refused otherwise."""
    try:
        found = resolve(target.host, target.port)
    except OSError:
        raise Refused(f"host {target.host!r} does not resolve") from None
    addresses = [ipaddress.ip_address(found_address.split("%")[0]) for found_address in found]
    if not addresses:
        raise Refused(f"host {target.host!r} does not resolve")
    if not all(allowed(address, local) for address in addresses):
        where = "private, loopback or link-local" if not local else "private or link-local"
        raise Refused(f"host {target.host!r} resolves to a {where} address")
    return str(addresses[0])


_resolving = ThreadPoolExecutor(4, thread_name_prefix="resolve")


def resolve(host: str, port: int) -> list[str]:
    """The addresses `host` resolves to (getaddrinfo), within RESOLVE_SECONDS; OSError
    when it does not, or not in time."""
    lookup = _resolving.submit(socket.getaddrinfo, host, port, 0, socket.SOCK_STREAM)
    try:
        infos = lookup.result(timeout=RESOLVE_SECONDS)
    except ResolveTimeout:
        raise OSError(f"resolving {host!r} took more than {RESOLVE_SECONDS:g} s") from None
    except (UnicodeError, ValueError) as exc:  # a name getaddrinfo cannot even encode
        raise OSError(str(exc)) from None
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


def checked(url: str, local: bool, resolver: Resolver = resolve) -> tuple[Target, str]:
    """The target of `url` and the address to deliver to; Refused says why not."""
    target = parse(url, local)
    return target, check(target, local, resolver)

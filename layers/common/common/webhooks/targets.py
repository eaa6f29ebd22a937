"""Where a webhook may be delivered: guarding the platform's network from its own
deliveries (server-side request forgery). The webhooks function checks an endpoint's URL
when it is set, the delivery function each attempt's address: both through this.

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
import threading
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlsplit

# A name that takes longer than this to resolve is refused when an endpoint is created
# (its request waits on it); a delivery gives its lookup what is left of its deadline.
RESOLVE_SECONDS = 2.0

# (host, port, seconds) -> the addresses; OSError when it does not resolve in time.
Resolver = Callable[[str, int, float], list[str]]
Address = ipaddress.IPv4Address | ipaddress.IPv6Address


class Refused(Exception):
    """Not a target the platform delivers to; str() says why (for the field `url`)."""


class LookupTooSlow(OSError):
    """The name did not resolve in the time it was given."""


class OutOfTime(Refused):
    """The host's name did not resolve in the time given (it may later)."""


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
    `local`, as itself (127.0.0.0/8, ::1): a developer's receiver is never reached
    through an IPv6 form that carries it."""
    if address in METADATA:
        return False
    if isinstance(address, ipaddress.IPv6Address):
        if int(address) > 1 and any(address in prefix for prefix in _NEVER):
            return False
        reached = _reached(address)
        if reached is not None:
            return allowed(reached, local=False)
    if address.is_loopback:
        return local
    return address.is_global and not address.is_multicast


def check(target: Target, local: bool, resolve: Resolver, timeout: float = RESOLVE_SECONDS) -> str:
    """The address to connect to: the host's first, once every address it resolves to
    (within `timeout` seconds) is allowed; Refused otherwise."""
    try:
        found = resolve(target.host, target.port, timeout)
    except LookupTooSlow:
        raise OutOfTime(f"host {target.host!r} did not resolve within {timeout:g} s") from None
    except OSError:
        raise Refused(f"host {target.host!r} does not resolve") from None
    addresses = [ipaddress.ip_address(found_address.split("%")[0]) for found_address in found]
    if not addresses:
        raise Refused(f"host {target.host!r} does not resolve")
    if not all(allowed(address, local) for address in addresses):
        where = "private, loopback or link-local" if not local else "private or link-local"
        raise Refused(f"host {target.host!r} resolves to a {where} address")
    return str(addresses[0])


def resolve(host: str, port: int, timeout: float = RESOLVE_SECONDS) -> list[str]:
    """The addresses `host` resolves to (getaddrinfo), within `timeout` seconds;
    LookupTooSlow when it does not answer in time, OSError when it does not resolve.

    Each lookup runs on a thread of its own: a name whose lookup hangs holds that thread
    (getaddrinfo cannot be cancelled; it ends when the system's resolver gives up),
    never another name's lookup, as a shared pool would once its threads were all held.
    """
    found: list[tuple] = []
    failed: list[OSError] = []
    done = threading.Event()

    def lookup() -> None:
        try:
            found.extend(socket.getaddrinfo(host, port, 0, socket.SOCK_STREAM))
        except OSError as exc:
            failed.append(exc)
        except (UnicodeError, ValueError) as exc:  # a name getaddrinfo cannot even encode
            failed.append(OSError(str(exc)))
        finally:
            done.set()

    threading.Thread(target=lookup, name="resolve", daemon=True).start()
    if not done.wait(timeout):
        raise LookupTooSlow(f"resolving {host!r} took more than {timeout:g} s")
    if failed:
        raise failed[0]
    return list(dict.fromkeys(str(info[4][0]) for info in found))


def checked(
    url: str, local: bool, resolver: Resolver = resolve, timeout: float = RESOLVE_SECONDS
) -> tuple[Target, str]:
    """The target of `url` and the address to deliver to; Refused says why not."""
    target = parse(url, local)
    return target, check(target, local, resolver, timeout)

"""The client an address stands for, as every per-address limit counts it.

One machine on IPv6 is handed a whole /64, so counting its addresses one by one caps
nothing: registrations, log-ins, submissions, runs, quiz runs, event streams and
connections all count an IPv6 client by its /64. An IPv4-mapped IPv6 address
(::ffff:10.0.0.1) is the IPv4 client it maps; anything that is no IP address (a unix
socket's peer) counts as it is.
"""

from __future__ import annotations

import ipaddress


def client_key(address: str) -> str:
    """`address` (an IPv6 one may carry a %zone) as the client it counts as."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)

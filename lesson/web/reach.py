"""Where learners can reach a server that is starting: what ``lesson serve`` prints.

Bound to every interface (``0.0.0.0`` or ``::``) the URL to hand out is none of those: it is one of the
machine's own addresses, so they are listed (loopback and link-local left out, since no other machine can
use them). Bound to loopback, only this machine can open the lesson, and the line says so.
"""

from __future__ import annotations

import ipaddress

import ifaddr

ANY = {"0.0.0.0", "::", ""}


def machine_addresses(ipv6: bool = False) -> list[str]:
    """This machine's addresses another machine could use: IPv4 (and IPv6 when asked), without loopback
    or link-local ones, in interface order."""
    out: list[str] = []
    for adapter in ifaddr.get_adapters():
        for ip in adapter.ips:
            text = ip.ip if isinstance(ip.ip, str) else ip.ip[0]
            addr = ipaddress.ip_address(text)
            if addr.version == 6 and not ipv6:
                continue
            if addr.is_loopback or addr.is_link_local or addr.is_unspecified or text in out:
                continue
            out.append(text)
    return out


def _url(host: str, port: int, prefix: str = "") -> str:
    where = f"[{host}]" if ":" in host else host
    return f"http://{where}:{port}{prefix.rstrip('/')}/"


def learner_urls(host: str, port: int, prefix: str = "") -> list[str]:
    """The URLs to give a class for a server bound to ``host``:``port``, the app mounted under ``prefix``
    (gunicorn's ``SCRIPT_NAME``: it serves nothing outside it)."""
    if host in ANY:
        found = machine_addresses(ipv6=host == "::")
        return [_url(a, port, prefix) for a in found] or [_url("localhost", port, prefix)]
    return [_url(host, port, prefix)]


def loopback_only(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def startup_lines(host: str, port: int, how: str, prefix: str = "") -> list[str]:
    """What ``lesson serve`` prints once it is listening: ``how`` it serves, then the addresses."""
    urls = learner_urls(host, port, prefix)
    if loopback_only(host):
        return [
            f"MCP Churn Lab: {how} on {urls[0]}  (Ctrl-C stops)",
            "  this machine only: --host 0.0.0.0 (make serve HOST=0.0.0.0) lets a class in",
        ]
    bound = f"[{host}]" if ":" in host else host or "*"
    lines = [f"MCP Churn Lab: {how} on {bound}:{port}  (Ctrl-C stops); learners can open:"]
    lines += [f"  {u}" for u in urls]
    return lines


__all__ = ["learner_urls", "machine_addresses", "startup_lines"]

"""The grammar of each string format, as the RFC JSON Schema 2020-12 cites for it defines it.

One function per format says whether a string is one (the ``grammar`` of its row in
:mod:`tooldesign.contract.formats`): the generated models' format types read
values with it (``tooldesign.runtime.Rfc3986Uri``…), the runtime's format checker checks the
formats inside ``Any(schema=...)`` with it, design validation checks defaults and examples with
it, and the docs cite the RFCs :mod:`tooldesign.contract.formats` names. Each is an ASCII
grammar, matched whole (``fullmatch``), written so that no input makes it backtrack more than
linearly (every repetition is unambiguous), and bounded by the lengths its RFC sets.

Where the RFC's ABNF and what Python can hold part (a leap second, a duration in years), the
grammar says so at the function, and docs/limits.md lists it.
"""

from __future__ import annotations

import datetime as dt
import ipaddress
import re
from collections.abc import Callable

_A = re.ASCII

# ── RFC 3339 §5.6: full-date, full-time, date-time ─────────────────────────────────────────────
_HOUR, _MINUTE = r"(?:[01][0-9]|2[0-3])", r"[0-5][0-9]"
_FULL_DATE = r"[0-9]{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12][0-9]|3[01])"
# time-second stops at 59: a leap second (60) is RFC 3339's, but no Python time can hold it.
_FULL_TIME = rf"{_HOUR}:{_MINUTE}:{_MINUTE}(?:\.[0-9]+)?(?:[Zz]|[+-]{_HOUR}:{_MINUTE})"
DATE_TIME = re.compile(f"{_FULL_DATE}[Tt]{_FULL_TIME}", _A)
DATE = re.compile(_FULL_DATE, _A)
TIME = re.compile(_FULL_TIME, _A)


def _parses(read: Callable[[str], object], text: str) -> bool:
    try:
        read(text)
    except ValueError:  # the right shape, an impossible value (February 30)
        return False
    return True


def date_time(text: str) -> bool:
    return DATE_TIME.fullmatch(text) is not None and _parses(
        dt.datetime.fromisoformat, text.upper()
    )


def date(text: str) -> bool:
    return DATE.fullmatch(text) is not None and _parses(dt.date.fromisoformat, text)


def time(text: str) -> bool:
    return TIME.fullmatch(text) is not None


# ── RFC 3339 Appendix A: duration ──────────────────────────────────────────────────────────────
# dur-time = "T" (dur-hour / dur-minute / dur-second); dur-date = (dur-day / dur-month /
# dur-year) [dur-time]; duration = "P" (dur-date / dur-time / dur-week). No fractions, no
# sign, weeks alone, the designators in upper case.
_DUR_TIME = r"T(?:[0-9]+H(?:[0-9]+M(?:[0-9]+S)?)?|[0-9]+M(?:[0-9]+S)?|[0-9]+S)"
_DUR_DATE = rf"(?:[0-9]+D|[0-9]+M(?:[0-9]+D)?|[0-9]+Y(?:[0-9]+M(?:[0-9]+D)?)?)(?:{_DUR_TIME})?"
DURATION = re.compile(rf"P(?:{_DUR_DATE}|{_DUR_TIME}|[0-9]+W)", _A)


def duration(text: str) -> bool:
    return DURATION.fullmatch(text) is not None


# ── RFC 5321 §4.1.2: Mailbox, with the sizes of §4.5.3.1 ───────────────────────────────────────
_ATEXT = r"[A-Za-z0-9!#$%&'*+\-/=?^_`{|}~]"
_DOT_STRING = rf"{_ATEXT}+(?:\.{_ATEXT}+)*"
_QUOTED_STRING = r'"(?:[\x20\x21\x23-\x5b\x5d-\x7e]|\\[\x20-\x7e])*"'
_LABEL = r"[A-Za-z0-9](?:-*[A-Za-z0-9])*"  # Let-dig [Ldh-str]
_DOMAIN = rf"{_LABEL}(?:\.{_LABEL})*"
_SNUM = r"(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9]|0[0-9]{1,2})"  # 1*3DIGIT, 0-255
_LOCAL = re.compile(f"{_DOT_STRING}|{_QUOTED_STRING}", _A)
_EMAIL_DOMAIN = re.compile(_DOMAIN, _A)
_V4_LITERAL = re.compile(rf"{_SNUM}(?:\.{_SNUM}){{3}}", _A)
_GENERAL_LITERAL = re.compile(r"([A-Za-z0-9](?:-*[A-Za-z0-9])*):[\x21-\x5a\x5e-\x7e]+", _A)


def email(text: str) -> bool:
    local, at, domain = text.rpartition("@")
    if not at or not text.isascii() or len(local) > 64 or len(domain) > 255:
        return False
    if _LOCAL.fullmatch(local) is None:
        return False
    if domain.startswith("[") and domain.endswith("]"):
        literal = domain[1:-1]
        if literal[:5].lower() == "ipv6:":
            return ipv6(literal[5:])
        if _V4_LITERAL.fullmatch(literal) is not None:
            return True
        general = _GENERAL_LITERAL.fullmatch(literal)
        return general is not None and general.group(1).lower() != "ipv6"
    return _EMAIL_DOMAIN.fullmatch(domain) is not None


# ── RFC 1123 §2.1: hostname, with the lengths of RFC 1034 §3.1 ────────────────────────────────
_HOSTNAME_LABEL = re.compile(_LABEL, _A)


def hostname(text: str) -> bool:
    if not text or len(text) > 253 or not text.isascii():
        return False
    return all(
        len(label) <= 63 and _HOSTNAME_LABEL.fullmatch(label) is not None
        for label in text.split(".")
    )


# ── RFC 3986 §3: URI (an absolute URI, ASCII; an IRI is another format) ───────────────────────
_UNRESERVED_SUB = r"A-Za-z0-9\-._~!$&'()*+,;="
_PCT = r"%[0-9A-Fa-f]{2}"
_PCHAR = rf"(?:[{_UNRESERVED_SUB}:@]|{_PCT})"
_SEGMENT = rf"{_PCHAR}*"
_SEGMENT_NZ = rf"{_PCHAR}+"
_USERINFO = rf"(?:[{_UNRESERVED_SUB}:]|{_PCT})*"
_REG_NAME = rf"(?:[{_UNRESERVED_SUB}]|{_PCT})*"
_IP_LITERAL = r"\[(?P<ip>[0-9A-Fa-f:.]+|[vV][0-9A-Fa-f]+\.[A-Za-z0-9\-._~!$&'()*+,;=:]+)\]"
_AUTHORITY = rf"(?:{_USERINFO}@)?(?:{_IP_LITERAL}|{_REG_NAME})(?::[0-9]*)?"
_HIER_PART = (
    rf"//{_AUTHORITY}(?:/{_SEGMENT})*"  # "//" authority path-abempty
    rf"|/(?:{_SEGMENT_NZ}(?:/{_SEGMENT})*)?"  # path-absolute
    rf"|{_SEGMENT_NZ}(?:/{_SEGMENT})*"  # path-rootless
    r"|"  # path-empty
)
_QUERY = rf"(?:{_PCHAR}|[/?])*"
URI = re.compile(rf"[A-Za-z][A-Za-z0-9+\-.]*:(?:{_HIER_PART})(?:\?{_QUERY})?(?:#{_QUERY})?", _A)


def uri(text: str) -> bool:
    match = URI.fullmatch(text)
    if match is None:
        return False
    ip = match.group("ip")
    return ip is None or ip[:1] in "vV" or ipv6(ip)


# ── RFC 4122 §3: uuid (the string representation, hex in either case) ────────────────────────
UUID = re.compile(r"[0-9A-Fa-f]{8}-(?:[0-9A-Fa-f]{4}-){3}[0-9A-Fa-f]{12}", _A)


def uuid(text: str) -> bool:
    return UUID.fullmatch(text) is not None


# ── RFC 2673 §3.2: ipv4 (dotted-quad); RFC 4291 §2.2: ipv6 (its three text forms) ─────────────
# A leading zero (010) is refused: many readers take it for octal (JSON Schema's test suite).
_DEC_OCTET = r"(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])"
IPV4 = re.compile(rf"{_DEC_OCTET}(?:\.{_DEC_OCTET}){{3}}", _A)
_IPV6_CHARS = re.compile(r"[0-9A-Fa-f:.]+", _A)


def ipv4(text: str) -> bool:
    return IPV4.fullmatch(text) is not None


def ipv6(text: str) -> bool:
    # No zone id (fe80::1%eth0): RFC 6874's, not RFC 4291's. The embedded IPv4 of the third
    # form is a dotted-quad as above.
    if len(text) > 45 or _IPV6_CHARS.fullmatch(text) is None:
        return False
    if "." in text and not ipv4(text.rpartition(":")[2]):
        return False
    try:
        ipaddress.IPv6Address(text)
    except ValueError:
        return False
    return True

"""Contact surrogates: phone/fax numbers, e-mail addresses, URLs and IP addresses.

* Phones keep their layout (length, separators, brackets), an international prefix (``+34``, ``0034``, or the
  home country's code written before a full national number), the national trunk ``0`` and the first
  significant digit (mobile vs. landline); every other digit is keyed. So a surrogate stays in the national
  format; a number that ``phonenumbers`` finds valid gets a surrogate it finds valid too. A "number" that is a
  numeric full date (``05.11.2024``, a date the detector took for a phone) is shifted as a date
  (:func:`~.dates.surrogate_date`) and stays a valid date of its shape.
* E-mail: the local part's letter runs become keyed surnames or given names of the note's locale (ASCII,
  same case), single letters keyed letters, digit runs keyed digits of the same length; a free-mail domain
  (gmail.com, hotmail.es, yahoo.es ...) is kept, any other domain gets a keyed name before its top-level domain.
* URL: scheme, ``www.`` and top-level domain kept; other host labels keyed words; the path format-preserving.
* IPv4: four keyed octets in the same address class (private ranges stay private); IPv6: keyed hex digits.
"""

from __future__ import annotations

import ipaddress
import re
import string

from clinanon.caches import memo
from clinanon.transform.surrogate._data import faker_attr, given_names, surnames
from clinanon.transform.surrogate._text import fold_accents, normalize
from clinanon.transform.surrogate.dates import is_full_date, surrogate_date
from clinanon.transform.surrogate.identifiers import format_preserving
from clinanon.transform.surrogate.keys import KeyedStream
from clinanon.transform.surrogate.scope import GenContext

__all__ = ["surrogate_email", "surrogate_ip", "surrogate_phone", "surrogate_url"]

_MAX_ATTEMPTS = 50
_LOCAL_SEGMENT = re.compile(r"[A-Za-z\u00c0-\u024f]+|\d+|.")
_EMAIL = re.compile(r"(\s*)([^@\s]+)@([^@\s]+?)(\W*)")
_URL = re.compile(r"(\s*(?:[a-zA-Z][a-zA-Z0-9+.-]*://)?)([^/\s:?#]+)(.*)", re.DOTALL)
_HOME_CODES = {"es": "34", "en": "1", "nl": "31", "sv": "46", "de": "49"}
_NATIONAL_DIGITS = {"es": 9, "en": 10, "nl": 9, "sv": 9, "de": 10}
_FREE_MAIL = frozenset({
    "gmail.com", "googlemail.com", "hotmail.com", "hotmail.es", "hotmail.co.uk", "hotmail.de", "hotmail.nl",
    "hotmail.se", "outlook.com", "outlook.es", "live.com", "live.nl", "msn.com", "yahoo.com", "yahoo.es",
    "yahoo.co.uk", "yahoo.de", "yahoo.se", "icloud.com", "me.com", "aol.com", "gmx.de", "gmx.net", "web.de",
    "t-online.de", "ziggo.nl", "kpnmail.nl", "telia.com", "protonmail.com", "terra.es", "telefonica.net",
})


def _country_code_len(digits: str) -> int:
    """Length of the country calling code that starts ``digits`` (1-3), using phonenumbers' table if present."""
    try:
        from phonenumbers import COUNTRY_CODE_TO_REGION_CODE as table
    except ImportError:  # pragma: no cover - phonenumbers is optional
        table = {}
    for n in (1, 2, 3):
        if int(digits[:n] or 0) in table:
            return n
    return 2 if len(digits) > 2 else 0


@memo(maxsize=4096, kind="text")
def _phone_keep(text: str, lang: str) -> int:
    """How many leading digits of ``text`` a phone surrogate keeps."""
    digits = "".join(c for c in text if c.isdigit())
    stripped = text.lstrip()
    keep = 0
    if stripped.startswith("+"):
        keep = _country_code_len(digits)
    elif digits.startswith("00"):
        keep = 2 + _country_code_len(digits[2:])
    else:
        code = _HOME_CODES.get(lang, "")
        if code and digits.startswith(code) and len(digits) - len(code) >= _NATIONAL_DIGITS.get(lang, 9) - 1:
            first_group = re.match(r"\D*(\d+)", text)
            if first_group and first_group.group(1) == code:
                keep = len(code)
    rest = digits[keep:]
    if rest.startswith("0"):
        keep += 1
        rest = rest[1:]
    return keep + (1 if rest else 0)


_REGION = {"es": "ES", "en": "US", "nl": "NL", "sv": "SE", "de": "DE"}


@memo(maxsize=4096, kind="text")
def _phone_valid(text: str, lang: str) -> bool | None:
    """Whether ``phonenumbers`` (when installed) finds ``text`` a valid number of the note's country (cached)."""
    try:
        import phonenumbers
    except ImportError:  # pragma: no cover - optional
        return None
    try:
        return bool(phonenumbers.is_valid_number(phonenumbers.parse(text, _REGION.get(lang, "US"))))
    except phonenumbers.NumberParseException:
        return False


def surrogate_phone(text: str, ctx: GenContext) -> str:
    """A phone/fax number in the same national format (see the module docstring).

    When the original is a valid number (``phonenumbers``), the surrogate is re-drawn until it is valid too.
    """
    must_be_valid = _phone_valid(text, ctx.lang) is True
    if is_full_date(text, ctx.lang) and not (must_be_valid and text.strip().isdigit()):
        # a date taken for a number ("05.11.2024", "20130608" when no valid number): a date, never "05.65.9773"
        return surrogate_date(text, ctx)
    keep = _phone_keep(text, ctx.lang)
    key = normalize(text)
    out = text
    rng = ctx.rand.stream("phone", key)
    for _ in range(_MAX_ATTEMPTS):
        seen = 0
        chars = []
        for ch in text:
            if ch.isdigit() and ch.isascii():
                chars.append(ch if seen < keep else str(rng.below(10)))
                seen += 1
            else:
                chars.append(ch)
        out = "".join(chars)
        if out != text and not ctx.leaks(out) and (not must_be_valid or _phone_valid(out, ctx.lang)):
            break
    return out


@memo(maxsize=8192, kind="text")
def _ascii_word(word: str) -> str:
    return re.sub(r"[^a-z]", "", fold_accents(word).lower()) or "x"


def _ascii(word: str) -> str:
    """:func:`_ascii_word`; an ASCII word of letters only (most list entries) is just lower-cased, uncached."""
    return word.lower() if word.isascii() and word.isalpha() else _ascii_word(word)


def _email_local(local: str, ctx: GenContext, domain_key: str) -> str:
    out = []
    for seg in _LOCAL_SEGMENT.findall(local):
        if seg[0].isdigit():
            rng = ctx.rand.stream("email-digits", normalize(local), seg)
            out.append(rng.decimal(len(seg), True))  # str(rng.randrange(1, 10)) + str(rng.below(10)) per further digit
        elif seg[0].isalpha() and len(seg) == 1:
            c = ctx.rand.choice(string.ascii_lowercase, "email-letter", normalize(seg))
            out.append(c.upper() if seg.isupper() else c)
        elif seg[0].isalpha():
            word_stream = ctx.rand.stream("email-word", normalize(seg), domain_key)
            pool = surnames(ctx.lang) if word_stream.below(3) else given_names(ctx.lang, "N")
            word = _ascii(pool.pick(word_stream.unit()))
            out.append(word.upper() if seg.isupper() and len(seg) > 1 else word)
        else:
            out.append(seg)
    return "".join(out)


@memo(maxsize=16)
def _free_mail(lang: str) -> frozenset[str]:
    extra = faker_attr("internet", lang, "free_email_domains", ())
    return _FREE_MAIL | frozenset(str(d).lower() for d in extra)  # type: ignore[union-attr]


def _host(host: str, ctx: GenContext, purpose: str) -> str:
    labels = host.split(".")
    if len(labels) < 2:
        return _ascii(surnames(ctx.lang).pick(ctx.rand.unit(purpose, normalize(host))))
    out = []
    for i, lab in enumerate(labels):
        second_level = i == len(labels) - 2 and lab.lower() in ("co", "com", "org", "ac", "gov", "nhs")
        if i == len(labels) - 1 or lab.lower() == "www" or second_level:
            out.append(lab)
        else:
            word = _ascii(surnames(ctx.lang).pick(ctx.rand.unit(purpose, normalize(lab), i)))
            out.append(word.upper() if lab.isupper() else word)
    return ".".join(out)


def surrogate_email(text: str, ctx: GenContext) -> str:
    """A keyed e-mail address of the same shape (see the module docstring)."""
    m = _EMAIL.fullmatch(text)
    if m is None:
        return format_preserving(text, ctx, "email")
    lead, local, domain, trail = m.groups()
    dkey = normalize(domain)
    new_domain = domain if dkey in _free_mail(ctx.lang) else _host(domain, ctx, "email-domain")
    out = text
    key = normalize(text)
    for attempt in range(_MAX_ATTEMPTS):
        new_local = _email_local(local, ctx, f"{dkey}:{attempt}" if attempt else dkey)
        out = f"{lead}{new_local}@{new_domain}{trail}"
        if ctx.fresh(out, key):  # normalize(out) != normalize(text) and not ctx.leaks(out)
            break
    return out


def surrogate_url(text: str, ctx: GenContext) -> str:
    """A keyed URL with the same scheme, top-level domain and path shape."""
    m = _URL.fullmatch(text)
    if m is None or "." not in m.group(2):
        return format_preserving(text, ctx, "url")
    scheme, host, rest = m.groups()
    new_rest = format_preserving(rest, ctx, "url-path") if any(c.isalnum() for c in rest) else rest
    out = scheme + _host(host, ctx, "url-host") + new_rest
    return out if normalize(out) != normalize(text) else format_preserving(text, ctx, "url")


def _ipv4(text: str, rng: KeyedStream) -> str:
    addr = ipaddress.IPv4Address(text)
    if addr.is_private:
        if text.startswith("10."):
            octets = [10, rng.randrange(256), rng.randrange(256), rng.randrange(1, 255)]
        elif text.startswith("192.168."):
            octets = [192, 168, rng.randrange(256), rng.randrange(1, 255)]
        else:
            octets = [172, rng.randrange(16, 32), rng.randrange(256), rng.randrange(1, 255)]
    else:
        while True:
            octets = [rng.randrange(1, 224), rng.randrange(256), rng.randrange(256), rng.randrange(1, 255)]
            cand = ipaddress.IPv4Address(".".join(map(str, octets)))
            if cand.is_global:
                break
    return ".".join(map(str, octets))


def surrogate_ip(text: str, ctx: GenContext) -> str:
    """A keyed IP address of the same version and class (see the module docstring)."""
    core = text.strip()
    key = normalize(core)
    rng = ctx.rand.stream("ip", key)
    for _ in range(_MAX_ATTEMPTS):
        try:
            ipaddress.IPv4Address(core)
            new = _ipv4(core, rng)
        except ValueError:
            try:
                ipaddress.IPv6Address(core)
            except ValueError:
                return format_preserving(text, ctx, "ip")
            new = "".join(rng.choice("0123456789abcdef") if c in string.hexdigits else c for c in core)
            new = "".join(n.upper() if o.isupper() else n for o, n in zip(core, new, strict=True))
        if new != core:
            return text.replace(core, new, 1)
    return format_preserving(text, ctx, "ip")

"""The lines a player wrote in a reply: the text part (or the HTML part made text), without the
quoted turn email, the client's quote header or the signature.

Mail clients quote in two ways: with ``>`` before each line and a header line ("On ... wrote:",
"... írta:", "... napisał(a):", ...; Gmail, Apple Mail, Thunderbird; above or below the answer),
or with the original pasted unquoted under a separator and a From/Sent block (Outlook, many
webmails). The first way is handled here, in every language (a header is the line, wrapped or
not, that ends in ":" right above the quoted lines); the second by mail-parser-reply, which
knows those blocks in many languages. Quoted-printable and base64 are undone by the email
library. A phone client's line of its own ("Sent from my iPhone", "Von meinem iPhone
gesendet", "Get Outlook for Android") is left out too: whatever is not a move is posted to
the table as the player's message, and that line is not theirs.
"""

from __future__ import annotations

import re
from email.message import EmailMessage, Message
from html.parser import HTMLParser

from mailparser_reply import EmailReplyParser

#: the quote headers the clients of the site's seven languages write, for a header that is not
#: directly followed by ">" lines (a blank line between, or the quote taken out of an HTML part)
_QUOTE_HEADERS = re.compile(
    r"(\bwrote|írta|napisał\(a\)|napisal\(a\)|napsal\(a\)|napísal\(a\)"
    r"|\u043d\u0430\u043f\u0438\u0441\u0430\u043b(\(\u0430\))?"
    r"|\bschrieb\b.*):?\s*$",
    re.IGNORECASE,
)
_PARSER = EmailReplyParser(languages=["en", "de", "pl", "cs"])
#: the lines mail apps add under what the player wrote, in the site's languages
_CLIENT_LINES = re.compile(
    r"(sent from my \S.*|sent from (mail|outlook|yahoo mail|samsung)\b.*|get outlook for \S.*"
    r"|von meinem \S.* gesendet|gesendet von \S.*|wysłane z \S.*|wysłano z \S.*"
    r"|odesláno z \S.*|odoslané z \S.*|отправлено (\u0441|из) \S.*|\S.*(ról|ről) küldve)",
    re.IGNORECASE,
)


def message_text(message: Message) -> str:
    """The reply's text: its first text/plain part, else its first text/html part as text
    (attachments are never read)."""
    if not isinstance(message, EmailMessage):
        return ""
    part = message.get_body(preferencelist=("plain", "html"))
    if part is None:
        return ""
    try:
        if part.get_content_charset() is None:
            # no charset said (a hand-written message, a careless client): RFC 2045 says
            # US-ASCII, which turns "zöld" into replacement characters; UTF-8 reads both
            raise LookupError("no charset")
        content = part.get_content()
    except (LookupError, ValueError, AssertionError):  # an unknown charset, a broken encoding
        payload = part.get_payload(decode=True) or b""
        content = payload.decode("utf-8", errors="replace") if isinstance(payload, bytes) else ""
    if not isinstance(content, str):
        return ""
    if part.get_content_subtype() == "html":
        return html_text(content)
    return content


# -- HTML ------------------------------------------------------------------------------------------
_BLOCKS = {"p", "div", "br", "li", "tr", "h1", "h2", "h3", "h4", "pre", "table", "ul", "ol"}
_SKIPPED = {"style", "script", "head", "title", "blockquote"}
#: containers of the quoted original: Gmail, Thunderbird's header, Outlook's reply block
_QUOTE_CLASSES = {"gmail_quote", "moz-cite-prefix", "yahoo_quoted", "protonmail_quote"}
_QUOTE_IDS = {"divrplyfwdmsg", "appendonsend", "mail-editor-reference-message-container"}


class _Text(HTMLParser):
    """HTML to lines of text, leaving out the quoted original and everything after Outlook's
    reply block begins."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self.skip: list[str] = []  # the open elements being skipped, innermost last
        self.stopped = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.stopped:
            return
        values = dict(attrs)
        classes = set((values.get("class") or "").split())
        ident = (values.get("id") or "").lower()
        if ident in _QUOTE_IDS:
            self.stopped = True  # Outlook: the rest of the body is the original
            return
        if self.skip or tag in _SKIPPED or classes & _QUOTE_CLASSES:
            if tag not in ("br", "img", "hr", "meta", "input", "wbr"):
                self.skip.append(tag)
            return
        if tag in _BLOCKS or tag == "hr":
            self.out.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if self.skip:
            if self.skip[-1] == tag:
                self.skip.pop()
            return
        if tag in _BLOCKS:
            self.out.append("\n")

    def handle_data(self, data: str) -> None:
        if not self.skip and not self.stopped:
            self.out.append(data.replace("\xa0", " "))


def html_text(html: str) -> str:
    parser = _Text()
    parser.feed(html)
    parser.close()
    lines = [" ".join(line.split()) for line in "".join(parser.out).splitlines()]
    return "\n".join(lines)


# -- quotes and signatures ---------------------------------------------------------------------
def _is_quoted(line: str) -> bool:
    return line.lstrip().startswith(">")


def _without_quotes(lines: list[str]) -> list[str]:
    """Drop ``>`` lines and the header line above them (with the line it wrapped from)."""
    keep = [True] * len(lines)
    for i, line in enumerate(lines):
        if _is_quoted(line):
            keep[i] = False
            continue
        following = next((x for x in lines[i + 1 :] if x.strip()), None)
        is_header = _QUOTE_HEADERS.search(line) or (
            line.rstrip().endswith(":") and following is not None and _is_quoted(following)
        )
        if not is_header or not line.strip():
            continue
        keep[i] = False
        # Gmail wraps a long header: "On Mon, ... Keltis <" / "play+...@...> wrote:"
        j = i - 1
        header = line
        while j >= 0 and lines[j].strip() and header.count("<") < header.count(">"):
            header = lines[j] + header
            keep[j] = False
            j -= 1
    return [line for line, kept in zip(lines, keep, strict=True) if kept]


def _without_signature(lines: list[str]) -> list[str]:
    """Everything from the signature separator ``-- `` on (RFC 3676; some clients drop its
    blank)."""
    for i, line in enumerate(lines):
        if line.rstrip() == "--" or line == "-- ":
            return lines[:i]
    return lines


def written_lines(text: str) -> list[str]:
    """The non-empty lines the player wrote, in order."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    lines = _without_signature(_without_quotes(lines))
    latest = _PARSER.parse_reply("\n".join(lines)) or ""
    return [
        line.strip()
        for line in latest.splitlines()
        if line.strip() and not _CLIENT_LINES.fullmatch(line.strip())
    ]

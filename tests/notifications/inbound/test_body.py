"""Replies as Gmail, Outlook, Apple Mail and Thunderbird write them, in the seven languages:
only the lines the player wrote are read."""

from __future__ import annotations

from email import policy
from email.parser import BytesParser

import pytest

from notifications.inbound.body import message_text, written_lines

from .conftest import reply

MOVES = {
    "en": ["red 5 big", "draw deck"],
    "hu": ["piros 5 nagy", "húz pakli"],
    "pl": ["czerwona 5 duży", "dobierz talia"],
    "cs": ["červená 5 velká", "lízni balíček"],
    "sk": ["červená 5 veľká", "ťahaj balíček"],
    "ru": ["красная 5 большая", "взять колода"],
    "de": ["rot 5 groß", "ziehe stapel"],
}
#: the quote header each language's clients write (Gmail's, wrapped as Gmail wraps it in en)
HEADERS = {
    "en": "On Mon, 3 Mar 2025 at 10:00, Keltis by mail <\nplay+1-0-3-abcdefgh@play.example> wrote:",
    "hu": "Keltis by mail <noreply@keltis.example> ezt írta (időpont: 2025. márc. 3., H, 10:00):",
    "pl": "pon., 3 mar 2025 o 10:00 Keltis by mail <noreply@keltis.example> napisał(a):",
    "cs": "po 3. 3. 2025 v 10:00 odesílatel Keltis by mail <noreply@keltis.example> napsal(a):",
    "sk": "po 3. 3. 2025 o 10:00 Keltis by mail <noreply@keltis.example> napísal(a):",
    "ru": "пн, 3 мар. 2025 г. в 10:00, Keltis by mail <noreply@keltis.example>:",  # noqa: RUF001
    "de": "Am Mo., 3. März 2025 um 10:00 Uhr schrieb Keltis by mail <noreply@keltis.example>:",
}
QUOTED = ["Hello Anna,", "", "it is your turn in Keltis #1.", "  * Lay red 5", "red 9 big"]
OUTLOOK = {
    "en": [
        "From: Keltis by mail <noreply@keltis.example>",
        "Sent: Monday, March 3, 2025",
        "To: Anna",
        "Subject: Your turn",
    ],
    "de": [
        "Von: Keltis by mail <noreply@keltis.example>",
        "Gesendet: Montag, 3. März 2025",
        "An: Anna",
        "Betreff: Dein Zug",
    ],
    "pl": [
        "Od: Keltis by mail <noreply@keltis.example>",
        "Wysłane: poniedziałek",
        "Do: Anna",
        "Temat: Twój ruch",
    ],
    "cs": [
        "Od: Keltis by mail <noreply@keltis.example>",
        "Odesláno: pondělí",
        "Komu: Anna",
        "Předmět: Váš tah",
    ],
}


def quoted(lines: list[str]) -> str:
    return "\n".join(f"> {line}" if line else ">" for line in lines)


def parse(raw: bytes) -> list[str]:
    return written_lines(message_text(BytesParser(policy=policy.default).parsebytes(raw)))


@pytest.mark.parametrize("language", sorted(MOVES))
@pytest.mark.parametrize("cte", [None, "quoted-printable", "base64"])
def test_gmail_and_thunderbird_top_posted(language: str, cte: str | None) -> None:
    body = "\n".join(MOVES[language]) + f"\n\n{HEADERS[language]}\n{quoted(QUOTED)}\n"
    assert parse(reply("x@y", "a@b", body, cte=cte)) == MOVES[language]


@pytest.mark.parametrize("language", sorted(MOVES))
def test_bottom_posted_under_the_quote(language: str) -> None:
    body = f"{HEADERS[language]}\n{quoted(QUOTED)}\n\n" + "\n".join(MOVES[language]) + "\n"
    assert parse(reply("x@y", "a@b", body)) == MOVES[language]


@pytest.mark.parametrize("language", sorted(MOVES))
def test_apple_mail_quotes_its_header_too_and_a_signature_follows(language: str) -> None:
    header = " ".join(HEADERS[language].split("\n"))
    body = "\n".join(MOVES[language]) + f"\n\n-- \nAnna\nSent from my iPhone\n\n> {header}\n"
    body += quoted(QUOTED)
    assert parse(reply("x@y", "a@b", body, cte="quoted-printable")) == MOVES[language]


@pytest.mark.parametrize("language", sorted(OUTLOOK))
def test_outlook_pastes_the_original_unquoted_under_its_header_block(language: str) -> None:
    body = "\n".join(MOVES[language]) + "\n\n________________________________\n"
    body += "\n".join(OUTLOOK[language]) + "\n\n" + "\n".join(QUOTED) + "\n"
    assert parse(reply("x@y", "a@b", body)) == MOVES[language]


@pytest.mark.parametrize("language", sorted(MOVES))
def test_html_only_replies(language: str) -> None:
    moves = "".join(f"<div>{m}</div>" for m in MOVES[language])
    gmail = (
        f'<div dir="ltr">{moves}</div><br><div class="gmail_quote"><div class="gmail_attr">'
        f'{HEADERS[language]}<br></div><blockquote class="gmail_quote">Hello Anna,<br>'
        "red 9 big</blockquote></div>"
    )
    outlook = (
        f"<html><head><style>p {{margin:0}}</style></head><body><p>{MOVES[language][0]}</p>"
        f'<p>{MOVES[language][1]}</p><div id="appendonsend"></div><hr>'
        '<div id="divRplyFwdMsg"><b>From:</b> Keltis</div><div>red 9 big</div></body></html>'
    )
    thunderbird = (
        f"<html><body><p>{MOVES[language][0]}<br>{MOVES[language][1]}</p>"
        f'<div class="moz-cite-prefix">{HEADERS[language]}</div>'
        '<blockquote type="cite">red 9 big</blockquote></body></html>'
    )
    for html in (gmail, outlook, thunderbird):
        assert parse(reply("x@y", "a@b", "", html=html, cte="base64")) == MOVES[language]


def test_the_text_part_is_preferred_to_the_html_part() -> None:
    raw = reply("x@y", "a@b", "red 5 big", html="<p>something else</p>")
    assert parse(raw) == ["red 5 big"]


def test_an_attachment_is_never_read() -> None:
    from email.message import EmailMessage

    message = EmailMessage()
    message["From"], message["To"] = "a@b", "x@y"
    message.set_content("red 5 big")
    message.add_attachment(b"discard r9\n", maintype="text", subtype="plain", filename="m.txt")
    assert parse(message.as_bytes()) == ["red 5 big"]


def test_a_message_that_names_no_charset_is_read_as_utf8() -> None:
    """A reply typed by hand (or by a careless client) with no MIME headers: RFC 2045's
    US-ASCII would turn the accents into replacement characters."""
    raw = "From: a@example.org\nTo: b@example.org\nSubject: Re\n\nzöld 5 nagy\nhúz pakli\n"
    message = BytesParser(policy=policy.default).parsebytes(raw.encode("utf-8"))
    assert message_text(message).splitlines() == ["zöld 5 nagy", "húz pakli"]

"""The email writer: turns a ``Notification`` row into one email, or into nothing.

The email channel's sender (``notifications.channels.email``) calls ``send_notification``
outside any transaction, for the rows ``notifications.outbox`` claimed; it
returns False when there is nothing to send (the turn is over, the player asked for no such
email), True once the email is handed to the mail backend, and raises when sending failed (the
caller retries): ``RenderError`` when the email could not be written, anything else when the
mail server or the database failed. Each email is rendered in the recipient's language and
time zone from three templates, ``emails/<kind>.subject.txt``, ``.txt`` and ``.html`` (as
healthchecks does); the words of actions and events come from ``games.presenters``, as on the
game page.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from email.generator import Generator
from email.policy import Compat32
from functools import cache
from typing import Any

from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.core.mail.backends.base import BaseEmailBackend
from django.db import DatabaseError, connections, router
from django.db.models import Max
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import formats, timezone, translation
from django.utils.timesince import timeuntil
from django.utils.translation import gettext as _

from accounts.models import EmailMode, User
from games import presenters, selectors
from games.models import Event, EventSource, Game, GameStatus, Seat
from games.presenters.cards import CardChip
from keltis_site import mail_headers
from talk import selectors as talk_selectors
from talk.models import Message

from . import links, talk_news
from .channels import RenderError
from .inbound import routes
from .inbound.moves import reply_section
from .models import Channel, MessageMode, Notification, NotificationKind
from .reader import message_mode, waiting_games, zone_of

#: at most this many past events are listed under "since your last turn"
MAX_SINCE_EVENTS = 40
#: at most this many messages (the latest) are listed under "messages since your last turn"
MAX_SINCE_MESSAGES = 20


# -- who gets what --------------------------------------------------------------------------------
def wants(notification: Notification, user: User, reads: selectors.GameReads | None = None) -> bool:
    """The player's email setting: every turn, a daily digest instead, or nothing at all.

    Digest readers still get reminders (a deadline is near), the end of their games and the
    news that their own turn timed out: a day's wait could cost them their seat.
    """
    mode = user.email_mode
    if not user.is_active or not user.email or mode == EmailMode.NONE:
        return False
    kind = notification.kind
    if kind == NotificationKind.TURN:
        return mode == EmailMode.EVERY_TURN
    if kind == NotificationKind.DIGEST:
        return mode == EmailMode.DAILY_DIGEST
    if kind == NotificationKind.TIMEOUT and mode != EmailMode.EVERY_TURN:
        return _own_seat(notification, user, reads or selectors.GameReads())
    if kind == NotificationKind.MESSAGE:
        return message_mode(user, Channel.EMAIL) == MessageMode.EVERY_MESSAGE
    return True


def _own_seat(notification: Notification, user: User, reads: selectors.GameReads) -> bool:
    if notification.game is None:
        return False
    return any(
        seat.index == notification.seat and seat.user_id == user.pk
        for seat in reads.seat_rows(notification.game)
    )


def send_notification(
    notification: Notification,
    connection: BaseEmailBackend | None = None,
    reads: selectors.GameReads | None = None,
) -> bool:
    """Render and send the notification's email; False when there is nothing to send.

    ``connection`` is a mail backend shared by a batch of emails (``notify.mail_session``);
    without one the email opens a connection of its own. ``reads`` holds the game rows the
    batch's emails share (a game over goes to every player); without it they are read anew."""
    try:
        message = _write(notification, reads or selectors.GameReads())
    except DatabaseError:
        raise  # the database failed, not this email: retried like a refused send
    except Exception as exc:
        raise RenderError(f"{type(exc).__name__}: {exc}") from exc
    if message is None:
        return False
    if connection is not None:
        connection.open()  # a no-op while open: the batch's next emails reuse the session
    message.connection = connection
    message.send()
    return True


def _write(notification: Notification, reads: selectors.GameReads) -> EmailMultiAlternatives | None:
    """The notification's email in the recipient's language and time zone; None when there is
    nothing to send."""
    user = notification.user
    if not wants(notification, user, reads):
        return None
    build = _BUILDERS.get(notification.kind)
    if build is None:
        return None
    now = timezone.now()
    with (
        translation.override(user.language or settings.LANGUAGE_CODE),
        timezone.override(zone_of(user)),
    ):
        context = build(notification, user, now, reads)
        if context is None:
            return None
        return _message(notification, user, {**common_context(user), **context})


# -- the email itself -----------------------------------------------------------------------------
def _headers(notification: Notification, unsubscribe_url: str) -> dict[str, str]:
    headers = mail_headers.automatic(notification.key, unsubscribe_url=unsubscribe_url)
    if notification.game_id is not None:
        thread = mail_headers.message_id(f"game-{notification.game_id}")
        headers["References"] = thread
        headers["In-Reply-To"] = thread
    return headers


def _text(raw: str) -> str:
    """Plain-text templates: no trailing blanks, at most one empty line in a row."""
    lines = [line.rstrip() for line in raw.strip().splitlines()]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)) + "\n"


def _message(
    notification: Notification, user: User, context: dict[str, Any]
) -> EmailMultiAlternatives:
    return compose(
        notification.kind, user, context, _headers(notification, context["unsubscribe_url"])
    )


def compose(
    name: str, user: User, context: dict[str, Any], headers: dict[str, str]
) -> EmailMultiAlternatives:
    """The email ``emails/<name>`` to ``user``: subject, text and HTML rendered with
    ``context`` in the active language; a context with a ``reply_address`` (a turn that may
    be taken by reply) sets Reply-To to it."""
    base = f"emails/{name}"
    subject = " ".join(render_to_string(f"{base}.subject.txt", context).split())
    text = _text(render_to_string(f"{base}.txt", context))
    html = render_to_string(f"{base}.html", context)
    message = _Email(
        subject=subject,
        body=text,
        from_email=settings.DEFAULT_FROM_EMAIL,
        to=[user.email],
        headers=headers,
        reply_to=[context["reply_address"]] if context.get("reply_address") else None,
    )
    message.attach_alternative(html, "text/html")
    return message


class _Email(EmailMultiAlternatives):
    """An email whose MIME boundary is chosen before it is written out: the generator's own
    choice compiles a regular expression of the (random) boundary for every email, found
    in the worker's profile at about a tenth of an email's CPU. The boundary is made by the
    generator's own function, so it looks the same, and kept only when neither part's text
    holds it (else the generator chooses, as before)."""

    def message(self) -> Any:
        message = super().message()
        if message.is_multipart() and message.get_boundary() is None:
            boundary = Generator._make_boundary()
            texts = [self.body, *(content for content, _mimetype in self.alternatives)]
            if not any(boundary in str(text) for text in texts):
                message.set_boundary(boundary)
        message.policy = _FOLD_ONCE
        return message


#: folded header lines by (line end, line length, sanitised, name, value), at most
#: ``_FOLDED_MAX`` (then forgotten at once)
_folded: dict[tuple[str, int | None, bool, str, str], str] = {}
_FOLDED_MAX = 4096


class _FoldOnce(Compat32):
    """compat32 (the policy of Django's messages), its folding of a header remembered: most of
    an email's 23 headers (From, MIME-Version, Auto-Submitted, the parts' Content-Type...) are
    the same in every email, and ``email.header`` folded each anew, a fifth of writing the
    message out. The folded line is compat32's own, made by it the first time."""

    def _fold(self, name: str, value: Any, sanitize: bool) -> str:
        if not isinstance(value, str):
            return super()._fold(name, value, sanitize)
        key = (self.linesep, self.max_line_length, sanitize, name, value)
        folded = _folded.get(key)
        if folded is None:
            folded = super()._fold(name, value, sanitize)
            if len(_folded) >= _FOLDED_MAX:
                _folded.clear()
            _folded[key] = folded
        return folded


_FOLD_ONCE = _FoldOnce()


def common_context(user: User) -> dict[str, Any]:
    """What every game email's templates use: the name, the settings and unsubscribe links."""
    return {
        "user_name": user.public_name,
        "time_zone": user.time_zone,
        "preferences_url": links.absolute(reverse("email_preferences")),
        "unsubscribe_url": links.unsubscribe_url(user.pk),
    }


# -- pieces shared by several emails --------------------------------------------------------------
#: card colours in the HTML part (emails may carry inline CSS): (border, background)
_CHIP_COLOURS = {
    **presenters.PATH_COLOURS,
    "P": ("#6b6b6b", "#ececec"),
    "W": ("#5b4a9e", "#e4def7"),
}


class _Keyed:
    """An item of an email's templates that answers ``item["name"]`` too: a template looks
    ``{{ choice.url }}`` up by key first and as an attribute only once that raised, and a
    turn email makes about 150 lookups into its links, cards and messages (the exceptions
    were an eighth of rendering it)."""

    __slots__ = ()

    def __getitem__(self, name: str) -> Any:
        try:
            return getattr(self, name)
        except AttributeError:
            raise KeyError(name) from None


@dataclass(frozen=True)
class MailCard(_Keyed):
    name: str
    text: str
    border: str
    background: str


def mail_cards(cards: list[str] | None) -> list[MailCard]:
    """Cards as the HTML part draws them: a coloured chip, its full name for every reader."""
    return [mail_card(chip) for chip in presenters.chips(cards)]


def mail_card(chip: CardChip) -> MailCard:
    """One card's chip (``presenters.chip``) as the HTML part draws it."""
    border, background = _CHIP_COLOURS.get(chip.card[:1], ("#6b6b6b", "#ffffff"))
    return MailCard(chip.name, chip.text, border, background)


@dataclass(frozen=True)
class LinkedChoice(_Keyed):
    action: str
    label: str
    short: str
    #: the absolute address (for emails) and the path (for the site's own pages)
    url: str
    path: str


@dataclass(frozen=True)
class LinkedGroup(_Keyed):
    """One group of the game page's action buttons, each choice an emailed link."""

    title: str
    card: MailCard | None
    choices: list[LinkedChoice]


def linked_groups(
    kind: str, legal: list[str], view: dict[str, Any], link: links.ActionLink
) -> list[LinkedGroup]:
    """The legal actions grouped as on the game page, each with a link for the step
    ``link.seq`` of the turn ``link`` names (``link.action`` is ignored)."""
    groups = []
    action_path = _action_paths()
    for group in presenters.action_groups(kind, legal, view):
        card = mail_card(group.card) if group.card else None
        choices = []
        for choice in group.choices:
            path = action_path(link.next_step(seq=link.seq, action=choice.action).token())
            choices.append(
                LinkedChoice(choice.action, choice.label, choice.short, links.absolute(path), path)
            )
        groups.append(LinkedGroup(group.title, card, choices))
    return groups


#: what a signed token is made of (``signing.dumps``: URL-safe base64, ``:`` and a leading
#: ``.``): ``reverse`` puts it in the path as it is
_PLAIN_TOKEN = re.compile(r"[A-Za-z0-9_\-:.]+")
_PROBE = "TOKEN"


def _action_paths() -> Callable[[str], str]:
    """``ActionLink.path`` for the tokens of one email with one ``reverse`` (a turn email
    links twenty actions or more: resolving the URL pattern for each cost more than its
    signature); a token of other characters is reversed as before."""
    head, tail = reverse("email_action", args=[_PROBE]).rsplit(_PROBE, 1)

    def path(token: str) -> str:
        if _PLAIN_TOKEN.fullmatch(token):
            return head + token + tail
        return reverse("email_action", args=[token])

    return path


def game_title(game: Game) -> str:
    return _("%(game)s #%(id)s") % {"game": game.get_kind_display(), "id": game.pk}


def _game_common(game: Game, page: selectors.GamePage) -> dict[str, Any]:
    others = [s.name for s in page.seats if not s.is_viewer]
    return {
        "game": game,
        "title": game_title(game),
        "kind": game.kind,
        "is_board": game.kind == presenters.BOARD,
        "game_url": links.absolute(reverse("game_detail", args=[game.pk])),
        "opponents": others,
        "opponents_text": ", ".join(others),
    }


def since_last_turn(events: list[selectors.EventInfo], seat: int) -> list[selectors.EventInfo]:
    """The others' events between the seat's previous turn and this one (steps the seat has
    already taken in this turn are left out: the player knows them)."""
    start, end = _since_window(events, seat)
    return events[start:end]


def _since_window(events: list[selectors.EventInfo], seat: int) -> tuple[int, int]:
    """``since_last_turn``'s slice of ``events``: (start, end)."""
    end = len(events)
    while end and events[end - 1].seat == seat:
        end -= 1
    start = end
    while start and events[start - 1].seat != seat:
        start -= 1
    return max(start, end - MAX_SINCE_EVENTS), end


def previous_turn_seq(events: list[selectors.EventInfo], seat: int) -> int:
    """The move number the seat's previous turn ended at, less one: a message written once
    its last step was stored carries that step's number (``talk.Message.seq``), and is news
    for this turn. -1 before the seat's first turn: everything written so far is news."""
    end = len(events)
    while end and events[end - 1].seat == seat:
        end -= 1
    start = end
    while start and events[start - 1].seat != seat:
        start -= 1
    return events[start - 1].seq - 1 if start else -1


@dataclass(frozen=True)
class MailMessage(_Keyed):
    """A message of table talk as an email shows it: plain text, escaped by the HTML part's
    templates like any text (never linked), its lines indented under the name in the text
    part."""

    author: str
    text: str
    indented: str
    created_at: datetime
    hidden: bool
    #: the message the email is about (a message email's own)
    current: bool = False


def mail_messages(
    shown: list[talk_selectors.ShownMessage], current: int | None = None
) -> list[MailMessage]:
    return [
        MailMessage(
            author=m.author,
            text=m.text,
            indented=m.text.replace("\n", "\n  "),
            created_at=m.created_at,
            hidden=m.hidden,
            current=m.id == current,
        )
        for m in shown
    ]


def talk_since_last_turn(
    game: Game,
    user: User,
    events: list[selectors.EventInfo],
    seat: int,
    reads: selectors.GameReads | None = None,
) -> list[MailMessage]:
    """What the others wrote at the table since the seat's previous turn (the latest
    ``MAX_SINCE_MESSAGES``), for the turn email; nothing for a reader whose email choice for
    table talk is "never" or who muted the table."""
    if message_mode(user, Channel.EMAIL) == MessageMode.NONE:
        return []
    since = previous_turn_seq(events, seat)
    wrote = reads.others_wrote(game, user, since) if isinstance(reads, MailReads) else None
    if not (_others_wrote(game, user, since) if wrote is None else wrote):
        return []
    shown = talk_selectors.messages_since_turn(game, user, since)
    return mail_messages(shown[-MAX_SINCE_MESSAGES:])


def _others_wrote(game: Game, user: User, since_seq: int) -> bool:
    """Whether anyone but ``user`` wrote a message at the table after ``since_seq`` that is
    not hidden: without one, ``messages_since_turn`` has nothing to say (it shows only such
    messages), and its two queries (the mute, the messages without the blocked) are left
    out. One statement, its SQL written once: most turns have no table talk."""
    connection = connections[router.db_for_read(Message)]
    with connection.cursor() as cursor:
        cursor.execute(_others_wrote_sql(connection.alias), [game.pk, since_seq, user.pk])
        return cursor.fetchone() is not None


@cache
def _others_wrote_sql(alias: str) -> str:
    quote = connections[alias].ops.quote_name
    meta = Message._meta

    def column(name: str) -> str:
        return quote(meta.get_field(name).column)

    return (
        f"SELECT 1 FROM {quote(meta.db_table)} WHERE {column('game')} = %s"
        f" AND {column('seq')} > %s AND {column('author')} <> %s"
        f" AND {column('hidden_at')} IS NULL LIMIT 1"
    )


class MailReads(selectors.GameReads):
    """``GameReads`` with what the turn emails of an outbox chunk ask of their tables' talk
    (``_others_wrote``): each author's latest message, not hidden, at each game, read for all
    the chunk's games at once (``read_ahead``). Most turns have no talk: this answers them
    without a query each."""

    def __init__(self) -> None:
        super().__init__()
        #: by game and move number, as the logs are: a later turn of the game reads again
        self._latest_talk: dict[tuple[int, int], dict[int, int]] = {}

    def read_talk_ahead(self, games: list[Game]) -> None:
        known = self._latest_talk
        wanted = {game.pk: game.seq for game in games if (game.pk, game.seq) not in known}
        if not wanted:
            return
        latest: dict[int, dict[int, int]] = {game_id: {} for game_id in wanted}
        rows = (
            Message.objects.filter(game_id__in=wanted, hidden_at__isnull=True)
            .values("game_id", "author_id")
            .annotate(latest=Max("seq"))
            .values_list("game_id", "author_id", "latest")
            .order_by()
        )
        for game_id, author_id, seq in rows:
            latest[game_id][author_id] = seq
        # kept only once the query has answered whole
        self._latest_talk.update({(pk, wanted[pk]): authors for pk, authors in latest.items()})

    def others_wrote(self, game: Game, user: User, since_seq: int) -> bool | None:
        """``_others_wrote`` from what was read ahead; None for a game not read ahead."""
        latest = self._latest_talk.get((game.pk, game.seq))
        if latest is None:
            return None
        return any(seq > since_seq for author, seq in latest.items() if author != user.pk)


def _deadline(game: Game, now: datetime) -> dict[str, Any]:
    """The deadline in the reader's time zone and words, formatted once for the text and the
    HTML part (as the ``date`` filter would: each part formatting it anew cost more than
    the rest of the line)."""
    if game.deadline is None:
        return {"deadline": None, "deadline_text": "", "time_left": ""}
    return {
        "deadline": game.deadline,
        "deadline_text": formats.date_format(timezone.localtime(game.deadline), "DATETIME_FORMAT"),
        "time_left": timeuntil(game.deadline, now),
    }


# -- turn and reminder ----------------------------------------------------------------------------
def read_ahead(notifications: list[Notification], reads: selectors.GameReads) -> None:
    """Read together what the emails of ``notifications`` will read of their games: the seats
    of each game, and the whole log of each whose turn email is still to be written
    (``turn_context`` replays it), and with ``MailReads`` what was written at those tables
    (the talk check). A chunk of the outbox is twenty emails of twenty games: three queries
    instead of sixty."""
    games, logs = [], []
    for notification in notifications:
        if notification.game is None:
            continue
        reads.known(notification.game)
        game = reads.game(notification.game)
        games.append(game)
        if notification.kind in _BUILT_ON_THE_TURN and _announced_turn_on(notification, game):
            logs.append(game)
    reads.read_ahead(games, events_of=logs)
    if isinstance(reads, MailReads):
        reads.read_talk_ahead(logs)


def _announced_turn_on(notification: Notification, game: Game) -> bool:
    """Whether the game still waits on the turn the notification announced (by its row; the
    seat's player is checked apart)."""
    return (
        game.status == GameStatus.RUNNING
        and game.to_move is not None
        and game.to_move == notification.seat
        and game.turn_seq == notification.seq
    )


def _turn_is_on(notification: Notification, user: User, reads: selectors.GameReads) -> Game | None:
    """The notification's game, if the turn it announced is still waiting for this player."""
    if notification.game is None:
        return None
    game = reads.game(notification.game)
    if not _announced_turn_on(notification, game):
        return None
    seat = _seat(reads, game, game.to_move)
    if seat is None or seat.user_id != user.pk or seat.retired:
        return None
    return game


def _turn(
    notification: Notification, user: User, now: datetime, reads: selectors.GameReads
) -> dict[str, Any] | None:
    game = _turn_is_on(notification, user, reads)
    if game is None:
        return None
    return turn_context(game, user, now, reads)


def turn_context(
    game: Game, user: User, now: datetime, reads: selectors.GameReads | None = None
) -> dict[str, Any] | None:
    """The position of ``user``'s turn in ``game`` as the turn email shows it (hand, what
    happened since, the legal moves as links and as reply lines); None unless it is their
    turn."""
    reads = reads or selectors.GameReads()
    mine = next((s.index for s in reads.seat_rows(game) if s.user_id == user.pk), None)
    if mine is None or game.to_move != mine:
        return None
    # the whole log is replayed for the drawn cards "since your last turn": the page takes
    # the engine of that replay (and its latest events) instead of reading the snapshot
    events = selectors.latest_events(
        game=game, reads=reads, window=lambda events: _since_window(events, mine)
    )
    page = selectors.game_page(game=game, user=user, reads=reads, with_rated=False)
    seat = page.viewer_seat
    if seat is None or not page.legal or page.view is None:
        return None
    link = links.ActionLink(game.pk, seat, game.turn_seq, game.seq, "")
    groups = linked_groups(game.kind, page.legal, page.view, link)
    since = presenters.event_lines(game.kind, since_last_turn(events, seat))
    return {
        **_game_common(game, page),
        **_deadline(game, now),
        "seat": seat,
        "hand": mail_cards(page.view["players"][seat].get("hand")),
        "since": since,
        "talk": talk_since_last_turn(game, user, events, seat, reads),
        "phase_text": presenters.phase_text(game.kind, page.phase, page.view),
        "started_turn": game.seq != game.turn_seq,
        "groups": groups,
        **reply_section(
            page.legal,
            ((c.action, c.label) for g in groups for c in g.choices),
            links.ReplyKey(game.pk, seat, game.turn_seq),
        ),
    }


def _reminder(
    notification: Notification, user: User, now: datetime, reads: selectors.GameReads
) -> dict[str, Any] | None:
    game = notification.game
    if game is None or game.deadline is None or game.deadline <= now:
        return None
    return _turn(notification, user, now, reads)


def _seat(reads: selectors.GameReads, game: Game, index: int | None) -> Seat | None:
    return next((seat for seat in reads.seat_rows(game) if seat.index == index), None)


# -- timeout, game over ---------------------------------------------------------------------------
def _timeout_run(game: Game, seat: int, seq: int) -> list[int]:
    """The seqs of the actions the timeout policy took for ``seat`` right after ``seq`` (the
    game's seq when the deadline passed)."""
    rows = list(
        Event.objects.filter(game=game, seq__gt=seq)
        .order_by("seq")
        .values_list("seq", "seat", "source")[:50]
    )
    run = []
    for event_seq, event_seat, source in rows:
        if event_seat != seat or source != EventSource.TIMEOUT:
            break
        run.append(event_seq)
    return run


def _timeout(
    notification: Notification, user: User, now: datetime, reads: selectors.GameReads
) -> dict[str, Any] | None:
    if notification.game is None or notification.seat is None:
        return None
    game = reads.game(notification.game)
    timed_out = _seat(reads, game, notification.seat)
    if timed_out is None:
        return None
    page = selectors.game_page(game=game, user=user, reads=reads, with_rated=False)
    names = {s.index: s.name for s in page.seats}
    is_me = timed_out.user_id == user.pk
    run = set(_timeout_run(game, timed_out.index, notification.seq or 0))
    played = []
    if run:
        history = selectors.game_history(game=game)
        played = [
            presenters.event_text(game.kind, e.action, None if is_me else e.seat_name, e.drawn)
            for e in history.events
            if e.seq in run
        ]
    to_move = page.to_move if game.status == GameStatus.RUNNING else None
    return {
        **_game_common(game, page),
        "is_me": is_me,
        "who": names.get(timed_out.index, ""),
        "played": played,
        "retired": timed_out.retired,
        "timeouts": timed_out.timeouts,
        "timeouts_left": max(0, game.max_timeouts - timed_out.timeouts),
        "finished": game.status == GameStatus.FINISHED,
        "my_turn_now": to_move is not None and to_move == page.viewer_seat,
        "to_move_name": names.get(to_move) if to_move is not None else None,
    }


def _finished(
    notification: Notification, user: User, now: datetime, reads: selectors.GameReads
) -> dict[str, Any] | None:
    if notification.game is None:
        return None
    game = reads.game(notification.game)
    if game.status != GameStatus.FINISHED:
        return None
    page = selectors.game_page(game=game, user=user, reads=reads, with_rated=False)
    if page.view is None:  # its log does not replay: there is no result to announce
        return None
    mine = next((s for s in reads.seat_rows(game) if s.user_id == user.pk), None)
    return {
        **_game_common(game, page),
        "results": presenters.results(page.seats, page.scores, page.winners),
        "my_place": mine.place if mine else None,
        # the stored place ranks retired seats last, whatever their score
        "i_won": mine is not None and mine.place == 1,
        "end_reason": presenters.end_reason_text(game.kind, page.view),
        "history_url": links.absolute(reverse("game_history", args=[game.pk])),
        **_rematch_reply(game, mine),
    }


def _rematch_reply(game: Game, seat: Seat | None) -> dict[str, Any]:
    """With INBOUND_EMAIL_DOMAIN set, a player's game-over email takes "yes" (a rematch) or
    "no" by reply: Reply-To ``rematch+<game>-<seat>-<signature>@domain``, answered by the
    route friends registers (``routes.REPLY_ROUTES``)."""
    if seat is None:
        return {}
    address = routes.address(routes.REMATCH_PREFIX, routes.REMATCH_PURPOSE, game.pk, seat.index)
    if address is None:
        return {}
    yes, _no = routes.yes_no_words(translation.get_language() or settings.LANGUAGE_CODE)
    return {"reply_address": address, "rematch_yes": yes}


# -- table talk ----------------------------------------------------------------------------------
def _talk(
    notification: Notification, user: User, now: datetime, reads: selectors.GameReads
) -> dict[str, Any] | None:
    """A message written at the reader's table: who wrote what, the latest few messages up to
    it, the game's page; Reply-To the reader's seat, so that a reply is a message (or a move
    when it is their turn: ``inbound.handler``). Nothing once it is no news (muted, blocked,
    hidden, or the reader wrote since: ``talk_news.still_news``)."""
    message = notification.message
    if message is None or notification.game is None:
        return None
    if not talk_news.still_news(message, user):
        return None
    game = reads.game(notification.game)
    seat = next((s for s in reads.seat_rows(game) if s.user_id == user.pk), None)
    if seat is None:
        return None
    shown = [
        m
        for m in talk_selectors.messages_for(game, user, limit=talk_news.RECENT_MESSAGES * 4)
        if m.id <= message.pk
    ][-talk_news.RECENT_MESSAGES :]
    context: dict[str, Any] = {
        "game": game,
        "title": game_title(game),
        "game_url": links.absolute(reverse("game_detail", args=[game.pk])),
        "author_name": message.author.public_name,
        "text": message.text,
        "indented_text": "  " + message.text.replace("\n", "\n  "),
        "subject_text": talk_news.short(message.text, 60),
        "recent": mail_messages(shown, current=message.pk),
        "talk_preferences_url": links.absolute(reverse("email_preferences")),
    }
    address = links.reply_address(links.ReplyKey(game.pk, seat.index, game.turn_seq))
    if address is not None:
        context["reply_address"] = address
    return context


# -- the daily digest -----------------------------------------------------------------------------
@dataclass(frozen=True)
class DigestEntry(_Keyed):
    title: str
    opponents: str
    deadline: datetime | None
    time_left: str
    url: str


def _digest(
    notification: Notification, user: User, now: datetime, reads: selectors.GameReads
) -> dict[str, Any] | None:
    games = waiting_games(user=user)
    if not games:
        return None
    names = _names_by_game(games)
    entries = [
        DigestEntry(
            title=game_title(game),
            opponents=", ".join(n for uid, n in names.get(game.pk, []) if uid != user.pk),
            deadline=game.deadline,
            time_left=timeuntil(game.deadline, now) if game.deadline else "",
            url=links.absolute(reverse("game_detail", args=[game.pk])),
        )
        for game in games
    ]
    return {
        "entries": entries,
        "count": len(entries),
        "my_games_url": links.absolute(reverse("my_games")),
    }


def _names_by_game(games: list[Game]) -> dict[int, list[tuple[int | None, str]]]:
    names: dict[int, list[tuple[int | None, str]]] = {}
    seats = Seat.objects.filter(game__in=games).select_related("user").order_by("game", "index")
    for seat in seats:
        names.setdefault(seat.game_id, []).append((seat.user_id, seat.name))
    return names


#: the kinds whose email is the turn's position (``turn_context``, which replays the log)
_BUILT_ON_THE_TURN = (NotificationKind.TURN, NotificationKind.REMINDER)
_BUILDERS = {
    NotificationKind.TURN: _turn,
    NotificationKind.REMINDER: _reminder,
    NotificationKind.TIMEOUT: _timeout,
    NotificationKind.FINISHED: _finished,
    NotificationKind.DIGEST: _digest,
    NotificationKind.MESSAGE: _talk,
}

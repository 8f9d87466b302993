"""Simulated players for the HTTP load test (bench/loadtest.py, tests/load/): each plays its
games through the site's pages as a browser does, now and then submitting twice at once;
``verify`` checks the database against what they were told. Only the setup and checks need
Django (imported lazily)."""

from __future__ import annotations

import http.client
import logging
import random
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import Any
from urllib.parse import urlencode, urlsplit

from bench.infra import loopback_address
from bench.measure import median, p95

MOVED_ON = "The game has moved on since this page was shown"
#: the answer to a POST whose move was already made (by its twin)
MADE = "Your move was made."
#: what a request of each kind must answer; anything else is reported
EXPECTED_STATUS = {
    "my games": 200, "game page": 200, "action": 303, "login page": 200, "login": 302,
    "logout": 302, "signed out": 302,
}  # fmt: skip


class OutOfBudget(Exception):
    """The request cap or the time cap is reached: the players stop."""


class Budget:
    """A hard cap on requests and on time, shared by all players."""

    def __init__(self, max_requests: int, max_seconds: float) -> None:
        self.max_requests = max_requests
        self.deadline = time.monotonic() + max_seconds
        self.used = 0
        self.exhausted = ""
        self._lock = threading.Lock()

    def take(self) -> None:
        with self._lock:
            if not self.exhausted:
                if self.used >= self.max_requests:
                    self.exhausted = f"request cap of {self.max_requests} reached"
                elif time.monotonic() > self.deadline:
                    self.exhausted = "time cap reached"
            if self.exhausted:
                raise OutOfBudget(self.exhausted)
            self.used += 1


@dataclass(frozen=True)
class Sample:
    kind: str
    status: int
    seconds: float
    server: str = ""  # host:port of the web server that answered


class Stats:
    """Every request's kind, status and latency; the unexpected answers with a bit of body."""

    def __init__(self) -> None:
        self.samples: list[Sample] = []
        self.unexpected: list[str] = []
        self.started = time.monotonic()
        self.ended: float | None = None
        self._lock = threading.Lock()

    def add(self, sample: Sample, body: str) -> None:
        with self._lock:
            self.samples.append(sample)
            if sample.status != EXPECTED_STATUS.get(sample.kind):
                self.unexpected.append(f"{sample.kind}: HTTP {sample.status}: {body[:300]!r}")

    def statuses(self) -> Counter[int]:
        return Counter(s.status for s in self.samples)

    def servers(self) -> Counter[str]:
        return Counter(s.server for s in self.samples)

    def report(self) -> list[str]:
        elapsed = (self.ended or time.monotonic()) - self.started
        lines = [
            f"{len(self.samples)} requests in {elapsed:.1f} s: "
            f"{len(self.samples) / elapsed:.1f} requests/s",
            f"{'request':<12} {'count':>7} {'median ms':>10} {'p95 ms':>8} {'max ms':>8}",
        ]
        by_kind: dict[str, list[float]] = defaultdict(list)
        for sample in self.samples:
            by_kind[sample.kind].append(sample.seconds * 1000)
        for kind, times in sorted(by_kind.items()):
            lines.append(f"{kind:<12} {len(times):>7} {median(times):>10.1f} "
                         f"{p95(times):>8.1f} {max(times):>8.1f}")  # fmt: skip
        return lines


# -- HTTP ------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Response:
    status: int
    location: str
    body: str
    seconds: float = 0.0  # from the request's sending to its body read


@dataclass(frozen=True)
class Server:
    """One web server's address (loopback only)."""

    address: str
    port: int
    host: str  # the Host header: host:port as in the URL

    @classmethod
    def of(cls, base_url: str) -> Server:
        parts = urlsplit(base_url)
        return cls(loopback_address(parts.hostname or ""), parts.port or 80, parts.netloc)


class Http:
    """One browser: its cookies (Secure or not), one connection per request, loopback only;
    counted in ``stats``, capped by ``budget``; several servers taken in turn from ``first``."""

    def __init__(
        self, base_url: str | Sequence[str], stats: Stats | None = None,
        budget: Budget | None = None, cookies: dict[str, str] | None = None, *, first: int = 0,
    ) -> None:  # fmt: skip
        self.base_urls = [base_url] if isinstance(base_url, str) else list(base_url)
        self.servers = [Server.of(url) for url in self.base_urls]
        self.stats = stats
        self.budget = budget
        self.cookies = dict(cookies or {})
        self._turn = first

    def clone(self, ahead: int = 0) -> Http:
        """A second tab: same session; its first request to the server ``ahead`` places on."""
        return Http(self.base_urls, self.stats, self.budget, self.cookies, first=self._turn + ahead)

    def at(self, base_url: str) -> Http:
        """The same browser (its cookie jar shared) talking to another server only."""
        other = Http(base_url, self.stats, self.budget)
        other.cookies = self.cookies
        return other

    def get(self, path: str, kind: str) -> Response:
        return self._request("GET", path, kind)

    def post(self, path: str, kind: str, form: dict[str, str]) -> Response:
        return self._request("POST", path, kind, urlencode(form))

    def _request(self, method: str, path: str, kind: str, body: str | None = None) -> Response:
        if self.budget is not None:
            self.budget.take()
        server = self.servers[self._turn % len(self.servers)]
        self._turn += 1
        headers = {"Host": server.host, "Connection": "close"}
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        if body is not None:
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        conn = http.client.HTTPConnection(server.address, server.port, timeout=120)
        start = time.perf_counter()
        try:
            conn.request(method, path, body=body, headers=headers)
            raw = conn.getresponse()
            text = raw.read().decode("utf-8", "replace")
            seconds = time.perf_counter() - start
            for header in raw.headers.get_all("Set-Cookie") or []:
                pair, _, attributes = header.partition(";")
                name, _, value = pair.strip().partition("=")
                if not value or "max-age=0" in attributes.lower().replace(" ", ""):
                    self.cookies.pop(name, None)
                else:
                    self.cookies[name] = value
        finally:
            conn.close()
        if self.stats is not None:
            self.stats.add(Sample(kind, raw.status, seconds, server.host), text)
        return Response(raw.status, raw.headers.get("Location", ""), text, seconds)

    def log_in(self, email: str, password: str) -> bool:
        token = Forms.parse(self.get("/accounts/login/", "login page").body).csrf
        form = {"csrfmiddlewaretoken": token, "login": email, "password": password}
        return self.post("/accounts/login/", "login", form).status == 302

    def log_out(self) -> bool:
        """The header's logout button: a POST with the CSRF token of the page it is on."""
        form = {"csrfmiddlewaretoken": Forms.parse(self.get("/games/mine/", "my games").body).csrf}
        return self.post("/accounts/logout/", "logout", form).status == 302

    def signed_out(self) -> bool:
        answer = self.get("/games/mine/", "signed out")
        return answer.status == 302 and "/accounts/login/" in answer.location


# -- reading pages ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class ActionForm:
    url: str
    csrf: str
    action: str
    seq: int

    @property
    def fields(self) -> dict[str, str]:
        return {"csrfmiddlewaretoken": self.csrf, "action": self.action, "seq": str(self.seq)}


class Forms(HTMLParser):
    """A page's action forms, first CSRF token, messages (level, text) and, on "my games", the
    running games (id, my turn)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.actions: list[ActionForm] = []
        self.csrf = ""
        self.messages: list[tuple[str, str]] = []
        self.running: list[tuple[int, bool]] = []
        self._form: dict[str, str] | None = None
        self._message: list[str] | None = None
        self._level = ""
        self._section = ""
        self._turn_card = False
        self._card_game: int | None = None

    @classmethod
    def parse(cls, html: str) -> Forms:
        forms = cls()
        forms.feed(html)
        forms.close()
        return forms

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        classes = a.get("class", "").split()
        if tag == "section":
            self._section = a.get("aria-labelledby", "")
        elif tag == "form" and "act-form" in classes:
            self._form = {"url": a.get("action", "")}
        elif tag == "input" and a.get("type") == "hidden":
            if a.get("name") == "csrfmiddlewaretoken" and not self.csrf:
                self.csrf = a.get("value", "")
            if self._form is not None:
                self._form[a.get("name", "")] = a.get("value", "")
        elif tag == "li" and "message" in classes:
            self._level = next((c.split("--", 1)[1] for c in classes if "--" in c), "info")
            self._message = []
        elif tag == "li" and "game-card" in classes and self._section == "running":
            self._turn_card = "game-card--turn" in classes
            self._card_game = None
        elif tag == "a" and self._section == "running" and self._card_game is None:
            parts = a.get("href", "").strip("/").split("/")
            if len(parts) == 2 and parts[0] == "games" and parts[1].isdigit():
                self._card_game = int(parts[1])
                self.running.append((self._card_game, self._turn_card))

    def handle_endtag(self, tag: str) -> None:
        if tag == "form" and self._form is not None:
            f = self._form
            self.actions.append(
                ActionForm(f["url"], f["csrfmiddlewaretoken"], f["action"], int(f["seq"]))
            )
            self._form = None
        elif tag == "li" and self._message is not None:
            self.messages.append((self._level, " ".join("".join(self._message).split())))
            self._message = None
        elif tag == "section":
            self._section = ""

    def handle_data(self, data: str) -> None:
        if self._message is not None:
            self._message.append(data)


class PageBot:
    """Chooses among a page's actions, seeded; draws from the deck when it may (a uniform choice
    makes games three to four times longer)."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def choose(self, actions: Sequence[str]) -> str:
        return "draw deck" if "draw deck" in actions else self.rng.choice(list(actions))


# -- what the players saw --------------------------------------------------------------------------
@dataclass(frozen=True)
class Accepted:
    """A POST the site answered with success: ``seq`` is the move number the page showed."""

    game_id: int
    seq: int
    action: str
    player: str


@dataclass
class Ledger:
    """What the players were told: accepted POSTs, double submissions (game, seq, each tab's
    outcome), problems."""

    accepted: list[Accepted] = field(default_factory=list)
    doubles: list[tuple[int, int, tuple[str, str]]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    finished_players: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def accept(self, item: Accepted) -> None:
        with self.lock:
            self.accepted.append(item)

    def problem(self, text: str) -> None:
        with self.lock:
            self.problems.append(text)


def outcome(page: Response | None) -> tuple[str, str]:
    """'won', 'made' (by its twin), 'moved on' (with the message) or other, from the page the
    POST redirected to."""
    if page is None:
        return "no answer", ""
    messages = Forms.parse(page.body).messages
    if any(level == "success" and text == MADE for level, text in messages):
        return "made", ""
    if any(level == "success" for level, _ in messages):
        return "won", ""
    for level, text in messages:
        if level == "error" and MOVED_ON in text:
            return "moved on", text
    return "other", repr(messages)[:300]


class SimulatedPlayer(threading.Thread):
    """Plays all its games to the end through the site's pages, then stops."""

    def __init__(
        self, name: str, http: Http, ledger: Ledger, *, seed: int, poll_seconds: float,
        double_every: int,
    ) -> None:  # fmt: skip
        super().__init__(name=name, daemon=True)
        self.http = http
        self.ledger = ledger
        self.bot = PageBot(seed)
        self.rng = random.Random(seed + 1)
        self.poll_seconds = poll_seconds
        self.double_every = double_every
        self.posts = 0

    def run(self) -> None:
        try:
            self.play()
        except OutOfBudget:
            return
        except Exception as exc:  # reported, not raised: the other players carry on
            self.ledger.problem(f"{self.name}: {type(exc).__name__}: {exc}")
            return
        with self.ledger.lock:
            self.ledger.finished_players += 1

    def play(self) -> None:
        while True:
            page = self.http.get("/games/mine/", "my games")
            if page.status != 200:
                raise RuntimeError(f"my games answered {page.status}")
            running = Forms.parse(page.body).running
            if not running:
                return  # every game of this player has ended
            mine = [game_id for game_id, my_turn in running if my_turn]
            if not mine:
                time.sleep(self.poll_seconds * (0.5 + self.rng.random()))
            for game_id in mine:
                self.play_turn(game_id)

    def play_turn(self, game_id: int) -> None:
        """Act on the game as long as its page offers actions (a turn has several steps)."""
        page: Response | None = self.http.get(f"/games/{game_id}/", "game page")
        while page is not None and page.status == 200:
            forms = Forms.parse(page.body).actions
            if not forms:
                return
            choice = self.bot.choose([f.action for f in forms])
            form = next(f for f in forms if f.action == choice)
            self.posts += 1
            if self.double_every and self.posts % self.double_every == 0:
                page = self.submit_twice(game_id, form)
            else:
                page = self.submit(game_id, form)

    def _post(self, http: Http, form: ActionForm) -> Response | None:
        """POST the form; the page it redirects to (None when it did not redirect)."""
        answer = http.post(form.url, "action", form.fields)
        if answer.status != 303 or not answer.location:
            return None
        return http.get(answer.location, "game page")

    def submit(self, game_id: int, form: ActionForm) -> Response | None:
        page = self._post(self.http, form)
        result, text = outcome(page)
        if result == "won":
            self.ledger.accept(Accepted(game_id, form.seq, form.action, self.name))
        else:
            self.ledger.problem(f"{self.name} game {game_id} seq {form.seq}: {result} {text}")
        return page

    def submit_twice(self, game_id: int, form: ActionForm) -> Response | None:
        """Two tabs POST the same form at once (a double click): one must win, the other hear
        its move was made (games.services.retried_move), never an error."""
        start = threading.Barrier(2)

        def post(tab: Http) -> Response | None:
            start.wait(10)
            return self._post(tab, form)

        with ThreadPoolExecutor(2) as pool:  # an error is raised here, in the player's thread
            pages = list(pool.map(post, [self.http.clone(), self.http.clone(ahead=1)]))
        results = (outcome(pages[0]), outcome(pages[1]))
        with self.ledger.lock:
            self.ledger.doubles.append((game_id, form.seq, (results[0][0], results[1][0])))
        winners = [i for i in range(2) if results[i][0] == "won"]
        for _ in winners:
            self.ledger.accept(Accepted(game_id, form.seq, form.action, self.name))
        if sorted(r[0] for r in results) != ["made", "won"]:
            self.ledger.problem(
                f"{self.name} game {game_id} seq {form.seq}: double submit gave {results}"
            )
        return pages[winners[0]] if winners else pages[0]


def run_players(players: Sequence[SimulatedPlayer], stats: Stats) -> None:
    for player in players:
        player.start()
    for player in players:
        player.join()
    stats.ended = time.monotonic()


# -- setup (Django) --------------------------------------------------------------------------------
def create_players(
    count: int, prefix: str, *, form_logins: int = 0, password: str = ""
) -> list[Any]:
    """``count`` verified players; the first ``form_logins`` with ``password`` (slow to hash)."""
    from allauth.account.models import EmailAddress
    from django.contrib.auth import get_user_model

    user_model = get_user_model()
    users = []
    for i in range(count):
        name = f"{prefix}{i:04d}"
        user = user_model(
            username=name, email=f"{name}@example.test", display_name=f"Player {prefix}{i}"
        )
        if i < form_logins:
            user.set_password(password)
        else:
            user.set_unusable_password()
        users.append(user)
    users = user_model.objects.bulk_create(users)
    EmailAddress.objects.bulk_create(
        EmailAddress(user=u, email=u.email, verified=True, primary=True) for u in users
    )
    return users


def session_cookies(user: Any) -> dict[str, str]:
    """A logged-in session stored server side (the session table), as its cookie."""
    from django.conf import settings
    from django.test import Client

    client = Client()
    client.force_login(user)
    return {settings.SESSION_COOKIE_NAME: client.cookies[settings.SESSION_COOKIE_NAME].value}


def create_games(
    users: Sequence[Any], tables: Iterable[tuple[str, int]], seed: int, days_per_move: int = 14
) -> list[int]:
    """One game per (kind, player count), players from a seeded shuffle, by the services."""
    from games.services import game_create, game_join

    rng = random.Random(seed)
    game_ids = []
    for kind, player_count in tables:
        seated = rng.sample(list(users), player_count)
        game = game_create(
            creator=seated[0], kind=kind, player_count=player_count, days_per_move=days_per_move
        )
        for user in seated[1:]:
            game_join(game_id=game.pk, user=user)
        game_ids.append(game.pk)
    return game_ids


def advance(game_id: int, *, leave: int, seed: int) -> int:
    """Play a game server side (``action_submit``) until about ``leave`` actions are left for
    the page bot, no task queued, the emails it made due skipped; the game's seq after."""
    from django.db import transaction

    from games import services, state
    from games.maintenance import without_after_commit_hooks
    from games.models import Game
    from notifications.models import Notification, NotificationStatus

    game = Game.objects.get(pk=game_id)
    engine = state.engine_state(game)
    bot = PageBot(seed)
    planned: list[tuple[int, str, bool]] = []  # (seat, action, taken by the site itself)
    while engine.to_move is not None:
        seat = engine.to_move
        action = bot.choose(engine.legal())
        engine.apply(action, player=seat)
        planned.append((seat, action, False))
        # as action_submit does: a step left with one choice is taken for the player
        while engine.to_move == seat and (step := services.only_step(engine)) is not None:
            engine.apply(step, player=seat)
            planned.append((seat, step, True))
    with without_after_commit_hooks(), transaction.atomic():
        for offset, (seat, action, automatic) in enumerate(planned[: max(0, len(planned) - leave)]):
            if not automatic:  # else the action before already took it
                services.action_submit(
                    game_id=game_id, seat=seat, action=action, expected_seq=game.seq + offset
                )
        Notification.objects.filter(game_id=game_id, status=NotificationStatus.QUEUED).update(
            status=NotificationStatus.SKIPPED
        )
    game.refresh_from_db()
    return game.seq


@contextmanager
def _quiet(logger: str) -> Iterator[None]:
    """Only the warnings of ``logger``: a line a setup move would drown the benchmark's own."""
    log = logging.getLogger(logger)
    level = log.level
    log.setLevel(logging.WARNING)
    try:
        yield
    finally:
        log.setLevel(level)


def four_player_games(
    games: int, prefix: str, *, finish: bool, turns: int = 0, batch: int = 1
) -> list[int]:
    """``games`` 4-player games (both kinds in turn) of fresh players, no task queued, ``batch``
    a transaction; decided (``finish``) or ``turns`` turns of random moves in. Their ids."""
    from django.contrib.auth.hashers import make_password
    from django.db import transaction
    from django.utils import timezone

    from accounts.models import User
    from games import services, state
    from games.engine.bots import RandomBot
    from games.maintenance import without_after_commit_hooks
    from games.models import Game, GameStatus

    users = User.objects.bulk_create(
        User(
            username=f"{prefix}{i:05d}", email=f"{prefix}{i:05d}@example.test",
            display_name=f"{prefix.title()} {i}", password=make_password(None),
        )
        for i in range(games * 4)
    )  # fmt: skip
    ids: list[int] = []
    # the benchmark queues the sending itself, timed
    with without_after_commit_hooks(), _quiet("games.services"):
        for first in range(0, games, batch):
            with transaction.atomic():
                for g in range(first, min(first + batch, games)):
                    table = users[g * 4 : (g + 1) * 4]
                    game = services.game_create(
                        creator=table[0], kind=("keltis", "keltis-cards")[g % 2], player_count=4
                    )
                    for user in table[1:]:
                        services.game_join(game_id=game.pk, user=user)
                    game = Game.objects.select_for_update().get(pk=game.pk)
                    if finish:
                        services.game_finish_early(game, state.engine_state(game), timezone.now())
                    bot = RandomBot(game.pk)
                    for _ in range(turns):  # whole turns: events to list, cards drawn
                        seat = game.to_move
                        while game.status == GameStatus.RUNNING and game.to_move == seat:
                            services.action_submit(
                                game_id=game.pk, seat=seat, expected_seq=game.seq,
                                action=bot.choose(state.engine_state(game)), user=table[seat],
                            )  # fmt: skip
                            game = Game.objects.get(pk=game.pk)
                    ids.append(game.pk)
            if len(ids) % 500 == 0:
                print(f"  {len(ids)} games", flush=True)
    return ids


def requeue(rows: Any) -> int:
    """Put the outbox ``rows`` (a queryset) back in the queue, as never tried; how many."""
    from django.utils import timezone

    from notifications.models import NotificationStatus

    return int(rows.update(
        status=NotificationStatus.QUEUED, attempts=0, sent_at=None,
        next_attempt_at=timezone.now(), last_error="",
    ))  # fmt: skip


def queue_again(kind: str) -> list[int]:
    """Queue the ``kind`` rows again (of turn rows the turns on now), every other row sent."""
    from django.db.models import F

    from notifications.models import Notification, NotificationKind, NotificationStatus

    Notification.objects.update(status=NotificationStatus.SENT)
    rows = Notification.objects.filter(kind=kind)
    if kind == NotificationKind.TURN:
        rows = rows.filter(seq=F("game__turn_seq"), seat=F("game__to_move"))
    ids = list(rows.values_list("pk", flat=True))
    requeue(Notification.objects.filter(pk__in=ids))
    return ids


# -- the checks (Django) ---------------------------------------------------------------------------
def verify(
    ledger: Ledger, game_ids: Sequence[int], played_before: dict[int, int] | None = None
) -> list[str]:
    """What is wrong in the database given what the players were told: every game ended; each
    event after ``played_before`` is one accepted POST or the site's forced step, and every
    accepted POST has its event; the replay gives the snapshot and the scores."""
    from games import services
    from games.models import Event, Game, GameStatus, Seat, Snapshot
    from games.state import apply_stored, engine_replay, engine_start

    problems: list[str] = []
    accepted: dict[tuple[int, int], list[Accepted]] = defaultdict(list)
    for item in ledger.accepted:
        accepted[(item.game_id, item.seq)].append(item)
    for key, items in accepted.items():
        if len(items) > 1:
            problems.append(f"game {key[0]}: {len(items)} POSTs accepted at seq {key[1]}")
    games = Game.objects.filter(pk__in=game_ids).order_by("pk")
    for game in games:
        if game.status != GameStatus.FINISHED:
            problems.append(f"game {game.pk} did not end ({game.status}, seq {game.seq})")
        players = dict(Seat.objects.filter(game=game).values_list("index", "user__username"))
        events = list(
            Event.objects.filter(game=game).order_by("seq").values_list("seq", "seat", "action")
        )
        if [e[0] for e in events] != list(range(1, game.seq + 1)):
            problems.append(f"game {game.pk}: event seqs are not 1..{game.seq}")
        # an event no POST made is the site's forced step for the seat that acted just before
        replay = engine_start(game)
        first = (played_before or {}).get(game.pk, 0)
        previous_seat = None
        for seq, seat, action in events:
            items = accepted.get((game.pk, seq - 1), [])
            automatic = not items and seat == previous_seat and services.only_step(replay) == action
            made = [(i.action, i.player) for i in items] == [(action, players[seat])]
            if seq > first and not made and not automatic:
                problems.append(f"game {game.pk} event {seq} ({players[seat]}: {action}) "
                                f"matches accepted POSTs {items}")  # fmt: skip
            apply_stored(replay, game.pk, seq, seat, action)
            previous_seat = seat
        stored = {seq - 1 for seq, _, _ in events}
        lost = sorted(s for g, s in accepted if g == game.pk and s not in stored)
        if lost:
            problems.append(f"game {game.pk}: accepted POSTs at seq {lost} have no event")
        engine = engine_replay(game)
        snap = Snapshot.objects.get(game=game)
        if snap.seq != game.seq or snap.data != engine.snapshot():
            problems.append(f"game {game.pk}: replaying the events differs from the snapshot")
        if game.status == GameStatus.FINISHED:
            scores = dict(Seat.objects.filter(game=game).values_list("index", "score"))
            if [scores[i] for i in range(game.player_count)] != engine.scores():
                problems.append(f"game {game.pk}: seat scores differ from the replay")
    missing = set(game_ids) - {game.pk for game in games}
    problems.extend(f"game {g} is missing" for g in sorted(missing))
    return problems

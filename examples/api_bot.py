"""A bot that plays Keltis through the public API alone (docs/api.md), with one of the engine's
bots (easy, normal or strong) choosing on the view the API gives it.

    python examples/api_bot.py --url https://keltis.example --token klt_... [--level strong]

It listens to its event stream (Server-Sent Events, resumed with Last-Event-ID after a broken
connection) and, on every ``my_turn``, reads the game as its seat may see it, deals the
hands that view to the engine's bot of the chosen level (a bot sees only its seat's view; the
strong one deals the cards it cannot see at random, ``games.engine.determinize``), checks the
action checks it against the legal actions the API listed and sends it with the game's
sequence number. Standard library only (urllib), plus this repository's pure-Python engine.
The account should be a bot account (settings, "API tokens and bot account") and the token
needs the play scope.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the engine, without Django

from games.engine.bots import make_bot

LEVELS = ("easy", "normal", "strong")


class ApiError(Exception):
    def __init__(self, status: int, body: dict[str, Any]) -> None:
        self.status, self.code = status, body.get("code", "")
        super().__init__(f"{status} {self.code}: {body.get('message', '')}")


class Client:
    def __init__(self, url: str, token: str, stream_url: str | None = None) -> None:
        self.url = url.rstrip("/")
        self.stream_url = (stream_url or url).rstrip("/")
        self.token = token

    def _call(self, method: str, path: str, body: Any = None) -> Any:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(
            f"{self.url}/api/v1/{path}", data=data, method=method,
            headers={"Authorization": f"Bearer {self.token}", "Content-Type": "application/json",
                     "Accept": "application/json"},
        )  # fmt: skip
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return json.load(response)
        except urllib.error.HTTPError as exc:
            raise ApiError(exc.code, json.load(exc)) from None

    def get(self, path: str) -> Any:
        return self._call("GET", path)

    def post(self, path: str, body: Any = None) -> Any:
        return self._call("POST", path, body if body is not None else {})


def choose(game: dict[str, Any], rng: random.Random, level: str = "normal") -> str:
    """The engine bot's action on the game as the API showed it (its legal list decides)."""
    legal = game["legal"]
    view = {
        "game": game["kind"],
        "state": game["state"],
        "to_move": game["state"]["viewer"],
        "legal": legal,
    }
    try:
        action = make_bot(level, rng.randrange(2**32)).choose_view(view)
    except (KeyError, ValueError):  # a view the engine's bots do not know: any legal action
        return rng.choice(legal)
    return action if action in legal else rng.choice(legal)


def play_game(client: Client, game_id: int, rng: random.Random, level: str = "normal") -> list[str]:
    """Take every action the game awaits from this bot now; returns what was applied."""
    applied: list[str] = []
    while True:
        game = client.get(f"games/{game_id}/")
        if not game["my_turn"] or not game["legal"]:
            return applied
        try:
            answer = client.post(
                f"games/{game_id}/actions/",
                {"action": choose(game, rng, level), "seq": game["seq"]},
            )
        except ApiError as exc:
            if exc.code in ("stale_sequence", "not_your_turn"):
                continue  # the game moved on meanwhile: read it again
            raise
        applied += answer["applied"]


def play_all(client: Client, rng: random.Random, level: str = "normal") -> int:
    """Every game where it is this bot's turn (my turn first in the list); actions taken."""
    taken = 0
    for game in client.get("games/")["running"]:
        if game["my_turn"]:
            taken += len(play_game(client, game["id"], rng, level))
    return taken


def events(client: Client, last_id: str | None) -> Any:
    """The event stream: yields (id, type, data) as they come; ends when the connection does."""
    headers = {"Authorization": f"Bearer {client.token}", "Accept": "text/event-stream"}
    if last_id:
        headers["Last-Event-ID"] = last_id
    request = urllib.request.Request(f"{client.stream_url}/api/v1/stream/", headers=headers)
    with urllib.request.urlopen(request, timeout=120) as response:
        event: dict[str, str] = {}
        for raw in response:
            line = raw.decode().rstrip("\n")
            if not line:
                if "event" in event:
                    yield event.get("id"), event["event"], json.loads(event.get("data", "{}"))
                event = {}
            elif not line.startswith(":") and ": " in line:
                key, value = line.split(": ", 1)
                event[key] = value


def run(client: Client, level: str = "normal") -> None:
    rng = random.Random()
    play_all(client, rng, level)
    last_id = None
    delay = 1.0
    while True:
        try:
            for event_id, kind, data in events(client, last_id):
                last_id = event_id or last_id
                delay = 1.0
                if kind == "my_turn":
                    play_game(client, data["game"], rng, level)
        except (OSError, urllib.error.URLError) as exc:
            print(f"stream lost ({exc}); again in {delay:.0f} s", file=sys.stderr)
            time.sleep(delay)
            delay = min(delay * 2, 60)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--url", required=True, help="the site, e.g. https://keltis.example")
    parser.add_argument("--token", required=True, help="a personal API token (play scope)")
    parser.add_argument("--stream-url", help="the stream server, when not the site's host")
    parser.add_argument("--level", choices=LEVELS, default="normal", help="the engine bot's level")
    args = parser.parse_args(argv)
    run(Client(args.url, args.token, args.stream_url), args.level)
    return 0


if __name__ == "__main__":
    sys.exit(main())

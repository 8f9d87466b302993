"""Bots that choose an action for whoever is to move: for timeouts, practice and load tests.

``random`` picks uniformly among the legal actions from its own seeded generator; ``greedy``
asks the game's heuristic (registered per game name) for a sensible action. The levels a player
chooses are ``easy`` (greedy half the time, else any legal action), ``normal`` (greedy) and
``strong`` (games.engine.search: determinized rollouts over the hidden cards).

Every bot answers ``choose_view(view)``: it gets only what its player may see (the records.md
``--as N`` answer, see games.engine.determinize.player_view), never the hidden cards. ``choose``
on a whole game is the fast path the search's own playouts and the bench use.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from typing import Any, Protocol

from .base import Game

Heuristic = Callable[[Game, random.Random], str]
HEURISTICS: dict[str, Heuristic] = {}
#: per game: every legal action with the heuristic's value for it (the search bot's prior)
SCORERS: dict[str, Callable[[Game], list[tuple[float, str]]]] = {}

#: the levels a player may choose for a bot seat, weakest first
LEVELS = ("easy", "normal", "strong")


class Bot(Protocol):
    def choose(self, game: Game) -> str:
        """A legal action for the player the game awaits."""
        ...

    def choose_view(self, view: dict[str, Any]) -> str:
        """A legal action for the player whose view (``--as N``) this is, who is to move."""
        ...


def view_game(view: dict[str, Any], seed: int = 0) -> Game:
    """A game the view's player cannot tell from the real one (hidden cards sampled): what a
    one-step bot needs, since it reads only the own hand and what is public."""
    from .determinize import sample

    return sample(view, random.Random(seed))


class RandomBot:
    """Any legal action, uniformly, from a seeded generator: reproducible for a given seed."""

    kind = "random"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def choose(self, game: Game) -> str:
        # rng.choice(legal) step for step (the same action for the same seed), without its
        # two method calls nor a copy of the list: random games are the engine's benchmark and
        # the search's playouts
        try:
            legal = game.legal_shared()
        except AttributeError:  # not an engine game: anything that lists with legal() will do
            legal = game.legal()
        n = len(legal)
        if not n:
            raise IndexError("no legal action to choose from")
        k = n.bit_length()
        getrandbits = self.rng.getrandbits
        i = getrandbits(k)
        while i >= n:
            i = getrandbits(k)
        return legal[i]

    def choose_view(self, view: dict[str, Any]) -> str:
        return self.rng.choice(view["legal"])


class GreedyBot:
    """The game's own one-step heuristic; the generator only breaks ties."""

    kind = "greedy"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def choose(self, game: Game) -> str:
        return _heuristic(game.name)(game, self.rng)

    def choose_view(self, view: dict[str, Any]) -> str:
        return self.choose(view_game(view))


class EasyBot:
    """The easy level: the greedy choice half the time, else any legal action. It still
    builds columns, but it wastes about every other turn, which a beginner can beat."""

    kind = "easy"
    GREEDY_SHARE = 0.5

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def choose(self, game: Game) -> str:
        if self.rng.random() < self.GREEDY_SHARE:
            return _heuristic(game.name)(game, self.rng)
        return self.rng.choice(game.legal())

    def choose_view(self, view: dict[str, Any]) -> str:
        return self.choose(view_game(view))


#: a heuristic's value for an action no bot takes while another is legal (greedy and the strong
#: bot's candidates): in the board game, taking back the card discarded this turn is a pass,
#: and two bots passing in turn never end the game (5 of 1,000 strong-vs-normal board games did)
NEVER = float("-inf")


def _heuristic(name: str) -> Heuristic:
    if name not in HEURISTICS:
        from . import board_greedy, cardgame_greedy  # noqa: F401  (register themselves)
    return HEURISTICS[name]


def scorer(name: str) -> Callable[[Game], list[tuple[float, str]]]:
    _heuristic(name)
    return SCORERS[name]


def _strong(seed: int | None = None) -> Bot:
    from .search import StrongBot

    return StrongBot(seed)


BOTS: dict[str, Callable[[int | None], Bot]] = {
    "random": RandomBot,
    "greedy": GreedyBot,
    "easy": EasyBot,
    "normal": GreedyBot,
    "strong": _strong,
}


def make_bot(kind: str, seed: int | None = None) -> Bot:
    """The bot of a kind (a level, or ``random``/``greedy``), seeded: the same seed and the
    same view give the same action (the strong bot: when its budget counts playouts)."""
    try:
        factory = BOTS[kind]
    except KeyError:
        raise ValueError(f"unknown bot '{kind}' (known: {', '.join(sorted(BOTS))})") from None
    return factory(seed)


#: a game that has run this many actions is going round in circles: the rules let players take
#: from the piles what the others discard, and bots that do so in turn never empty the deck
#: (two normal bots in 1 of 500 two-player card games; an ordinary game ends within about 300
#: actions). From then on a bot draws from the deck whenever it may, so the game runs out.
PROGRESS_AFTER = 1_000
DECK_DRAW = "draw deck"


def bot_action(bot: Bot, view: dict[str, Any], actions_so_far: int) -> str:
    """The bot's action for ``view``, or the deck's draw once the game has run
    ``PROGRESS_AFTER`` actions: the site's bot seats and timeouts choose through this, so a
    table of bots alone (a tournament's bot entrants) always ends."""
    if actions_so_far >= PROGRESS_AFTER and DECK_DRAW in view["legal"]:
        return DECK_DRAW
    return bot.choose_view(view)


def play_out(game: Game, bots: list[Bot], max_actions: int = 100_000) -> Game:
    """Let the bots play the game to its end (each seat its own bot); returns the game. The
    game's own loop (``apply_all``) applies their choices, as each is asked for in turn."""
    game.apply_all(_choices(game, bots, max_actions))
    return game


def _choices(game: Game, bots: list[Bot], max_actions: int) -> Iterator[str]:
    """The action of the bot whose seat is to move, as long as the game is not finished."""
    chooses = [bot.choose for bot in bots]
    for _ in range(max_actions):
        to_move = game.to_move
        if to_move is None:
            return
        yield chooses[to_move](game)
    raise RuntimeError(f"the game did not end within {max_actions} actions")

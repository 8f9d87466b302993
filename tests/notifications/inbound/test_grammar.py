"""The grammar: canonical spelling, short forms in all seven languages, case and accents."""

from __future__ import annotations

import pytest

from games.engine import game_class
from games.engine.bots import RandomBot
from notifications.inbound.grammar import Reading, read_line, short_form, spell
from notifications.inbound.vocabulary import vocabulary

LANGUAGES = ["en", "hu", "pl", "cs", "sk", "ru", "de"]
BOARD_PLAY = [
    "discard g5",
    "discard r7",
    "play g5 big",
    "play g5 small",
    "play r7 big",
    "play r7 small",
]


@pytest.mark.parametrize(
    ("line", "action"),
    [
        ("play r7 big", "play r7 big"),
        ("discard b3", "discard b3"),
        ("draw deck", "draw deck"),
        ("draw r", "draw r"),
        ("clover g", "clover g"),
        ("clover pass", "clover pass"),
        ("play r7 >g", "play r7 >g"),
        ("play r7 >-", "play r7 >-"),
        ("play P7", "play P7"),
        ("play P7 r", "play P7 r"),
        ("play p7", "play p7"),
        ("draw P", "draw P"),
        ("draw p", "draw p"),
        ("wish r5 P5", "wish r5 P5"),
        ("done", "done"),
        ("PLAY R7 BIG", "play r7 big"),
        ("  play   r7  big. ", "play r7 big"),
        ("help", "help"),
    ],
)
def test_the_canonical_spelling_always_reads(line: str, action: str) -> None:
    assert spell(line, vocabulary("hu")) == action


@pytest.mark.parametrize(
    ("language", "line"),
    [
        ("hu", "zöld 5 nagy"),
        ("pl", "zielona 5 duży"),
        ("cs", "zelená 5 velká"),
        ("sk", "zelená 5 veľká"),
        ("ru", "зелёная 5 большая"),
        ("de", "grün 5 groß"),
        ("en", "green 5 big"),
        ("hu", "ZOLD 5 NAGY"),
        ("ru", "Зеленая 5 большая"),
        ("de", "Gruen 5 gross"),
        ("pl", "zielony 5 duzy"),
    ],
)
def test_short_forms_with_the_languages_colours_case_and_accents_ignored(
    language: str, line: str
) -> None:
    assert read_line(line, BOARD_PLAY, vocabulary(language)).action == "play g5 big"


def test_a_card_alone_is_the_one_legal_action_it_begins_or_asks_which() -> None:
    words = vocabulary("en")
    assert read_line("red 7", ["play r7", "discard r7"], words).action == "play r7"
    asked = read_line("red 7", BOARD_PLAY, words)
    assert asked == Reading(None, "play r7", ("play r7 big", "play r7 small"))
    assert read_line("blue 3", BOARD_PLAY, words) == Reading(None, "play b3", ())
    assert read_line("hello there", BOARD_PLAY, words) == Reading()


def test_english_words_work_in_every_language() -> None:
    assert read_line("discard red 7", BOARD_PLAY, vocabulary("ru")).action == "discard r7"


def test_wish_reads_in_either_order() -> None:
    assert read_line("wish P5 r5", ["wish r5 P5"], vocabulary("en")).action == "wish r5 P5"


@pytest.mark.parametrize("language", LANGUAGES)
def test_no_word_means_two_things(language: str) -> None:
    assert vocabulary(language).clashes() == []


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("kind", ["keltis", "keltis-cards"])
def test_every_short_form_the_email_lists_reads_back_as_its_action(
    language: str, kind: str
) -> None:
    """Whole random games: at every step each legal action's short form means that action."""
    words = vocabulary(language)
    cls = game_class(kind)
    for seed in range(3):
        game = cls.new(2, cls.deal(2, seed), {})
        bot = RandomBot(seed)
        for _ in range(120):
            if game.finished:
                break
            legal = game.legal()
            for action in legal:
                assert read_line(short_form(action, words), legal, words).action == action
                assert read_line(action, legal, words).action == action
            game.apply(bot.choose(game), player=game.to_move)

"""A visitor whose browser speaks Polish gets Polish, and the footer menu switches language."""

from __future__ import annotations

import os
from typing import Any

from django.utils import translation


def test_browser_language_then_the_language_menu(
    live_server: Any, browser: Any, transactional_db: None
) -> None:
    context = browser.new_context(locale="pl-PL", viewport={"width": 1280, "height": 1000})
    context.set_default_timeout(15_000)
    page = context.new_page()
    violations: list[str] = []

    def on_console(message: Any) -> None:
        if "Content Security Policy" in message.text:
            violations.append(message.text)

    page.on("console", on_console)
    try:
        page.goto(live_server.url + "/rules/keltis/")
        assert page.locator("html").get_attribute("lang") == "pl"
        assert "kamień życzeń" in page.content() or "kamienie życzeń" in page.content()

        page.select_option("#language-menu", "ru")
        with page.expect_navigation():
            page.click(".language-menu button")
        assert page.url == live_server.url + "/rules/keltis/"  # back where the reader was
        assert page.locator("html").get_attribute("lang") == "ru"
        with translation.override("ru"):
            rules = translation.gettext("Rules")
        assert page.locator("nav.site-nav").inner_text().count(rules) == 1
        assert "камень желаний" in page.content() or "камни желаний" in page.content()
        if os.environ.get("SCREENSHOT_DIR"):
            page.screenshot(path=os.path.join(os.environ["SCREENSHOT_DIR"], "rules-ru.png"))
        assert not violations
    finally:
        context.close()

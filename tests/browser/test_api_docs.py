"""The API's docs page (Swagger UI, from this site's files) meets the site's page standards
(issue 32): no critical or serious axe-core violation as it opens, nor with its operations,
an operation's "Try it out" form and its models opened, and its HTML validates in the Nu Html
Checker. tests/browser/test_csp.py checks it under the Content-Security-Policy."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from tests.browser.page_checkers import SQLITE_RUN_ONLY, axe_violations, html_errors

pytestmark = [pytest.mark.django_db(transaction=True), SQLITE_RUN_ONLY]


@pytest.fixture
def docs(browser: Any, live_server: Any) -> Any:
    context = browser.new_context(
        viewport={"width": 1280, "height": 1000},
        bypass_csp=True,  # axe-core is injected as an inline script (test_csp checks the CSP)
    )
    context.set_default_timeout(15_000)
    page = context.new_page()
    page.goto(live_server.url + "/api/docs/")
    page.wait_for_selector(".opblock-summary-path")
    yield page
    context.close()


def test_the_docs_page_passes_axe_as_it_opens(docs: Any) -> None:
    assert axe_violations(docs) == []
    # an operation's row is a button with no link inside it (a nested control)
    assert docs.locator(".opblock-summary-control a[href]").count() == 0


def test_the_docs_page_passes_axe_with_everything_open(docs: Any) -> None:
    for control in docs.locator(".opblock-summary-control").all()[:8]:
        control.click()
    docs.locator(".opblock .try-out__btn").first.click()
    docs.wait_for_selector(".opblock .btn.execute")
    for control in docs.locator(".models .model-box-control").all()[:8]:
        control.click()
    # a model's property that is a model of its own opens by a named button too
    docs.wait_for_selector(".models .model-box-control[aria-label]")
    docs.locator(".models .model-box-control[aria-label]").first.click()
    assert axe_violations(docs) == []


def test_the_docs_page_validates() -> None:
    response = Client().get("/api/docs/")
    assert response.status_code == 200
    assert html_errors({"API docs": response.content}) == {}

"""The API's docs page (Swagger UI, from this site's files) meets the site's page standards
(issue 32): no critical or serious axe-core violation as it opens, nor with its operations,
an operation's "Try it out" form and its models opened, and its HTML validates in the Nu Html
Checker; its icons stand out 3:1 from what they sit on (WCAG 1.4.11), and each operation has
an address, #operation-<operationId>, that opens it (api/static/api/docs.js).
tests/browser/test_csp.py checks it under the Content-Security-Policy."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client
from playwright.sync_api import expect

from tests.browser.page_checkers import SQLITE_RUN_ONLY, axe_violations, html_errors

pytestmark = [pytest.mark.django_db(transaction=True), SQLITE_RUN_ONLY]


#: every visible icon's colours (an inline SVG's painted shapes' fill and stroke, a CSS
#: background's SVG's fills) against the opaque colour behind it: the element's and its
#: ancestors' background colours laid over each other up to the first opaque one (over white),
#: the icon's colour faded by the opacities between it and that background
ICON_CONTRASTS = """() => {
  const rgba = (c) => {
    const v = (c.match(/[\\d.]+/g) || []).map(Number);
    return v.length < 3 ? null : v.length === 3 ? [...v, 1] : v;
  };
  const over = (top, under) => [0, 1, 2].map((i) => top[i] * top[3] + under[i] * (1 - top[3]));
  const lum = (c) => c.map((v) => {
    v /= 255; return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  }).reduce((sum, v, i) => sum + v * [0.2126, 0.7152, 0.0722][i], 0);
  const ratio = (a, b) => (Math.max(lum(a), lum(b)) + 0.05) / (Math.min(lum(a), lum(b)) + 0.05);
  const behind = (element) => {
    const layers = [];
    let faded = 1;
    for (let e = element; e; e = e.parentElement) {
      const style = getComputedStyle(e), colour = rgba(style.backgroundColor);
      if (colour[3] > 0) layers.push(colour);
      if (!layers.length) faded *= Number(style.opacity);
      if (colour[3] === 1) break;
    }
    return {faded, colour: layers.reduceRight((under, top) => over(top, under), [255, 255, 255])};
  };
  const shown = (e) => {
    const box = e.getBoundingClientRect();
    return box.width > 0 && box.height > 0 && e.checkVisibility({visibilityProperty: true});
  };
  const where = (e) => {  // the nearest HTML element with a class: the icon's button
    let host = e;
    while (host.parentElement && (host instanceof SVGElement || !host.className.trim())) {
      host = host.parentElement;
    }
    return host.tagName.toLowerCase() + "." + host.className.trim().replace(/\\s+/g, ".");
  };
  const icons = [];
  const measure = (element, where, colour, back) => {
    const painted = over([colour[0], colour[1], colour[2], colour[3] * back.faded], back.colour);
    icons.push({where, colour: `rgb(${painted.map(Math.round)})`,
                behind: `rgb(${back.colour.map(Math.round)})`,
                contrast: Math.round(ratio(painted, back.colour) * 100) / 100});
  };
  const shapes = "path, circle, ellipse, line, polygon, polyline, rect, use";
  for (const svg of document.querySelectorAll("svg")) {
    if (!shown(svg)) continue;
    for (const shape of svg.querySelectorAll(shapes)) {
      const style = getComputedStyle(shape), back = behind(shape);
      const paints = [[style.fill, Number(style.fillOpacity)]];
      if (parseFloat(style.strokeWidth) > 0) {
        paints.push([style.stroke, Number(style.strokeOpacity)]);
      }
      for (const [paint, opacity] of paints) {
        const colour = rgba(paint);
        if (colour) measure(shape, where(svg), [...colour.slice(0, 3), colour[3] * opacity], back);
      }
    }
  }
  const probe = document.createElement("i");
  document.body.append(probe);
  for (const element of document.querySelectorAll("body *")) {
    const image = getComputedStyle(element).backgroundImage;
    if (!image.includes("data:image/svg+xml") || !shown(element)) continue;
    const source = decodeURIComponent(image);
    for (const [, fill] of source.matchAll(/fill=\\\\?["']([^"'\\\\]+)/g)) {
      if (fill === "none") continue;
      probe.style.color = fill;
      measure(element, where(element), rgba(getComputedStyle(probe).color), behind(element));
    }
  }
  probe.remove();
  return icons;
}"""


#: the page's links to its operations, in a document of their own: Swagger UI's drawing has
#: errors of its own, past which the Nu Html Checker stops looking ("Suppressing further errors
#: from this subtree")
LINKS_HTML = """() => '<!DOCTYPE html><html lang="en"><head><title>Links</title></head><body>'
  + [...document.querySelectorAll(".opblock-permalink")].map((a) => a.outerHTML).join("")
  + "</body></html>"
"""


def _docs_page(browser: Any, live_server: Any, address: str = "/api/docs/") -> Any:
    """The docs page in a context of its own, its operations drawn."""
    context = browser.new_context(
        viewport={"width": 1280, "height": 1000},
        bypass_csp=True,  # axe-core is injected as an inline script (test_csp checks the CSP)
    )
    context.set_default_timeout(15_000)
    page = context.new_page()
    page.goto(live_server.url + address)
    page.wait_for_selector(".opblock-summary-path")
    return page


@pytest.fixture
def docs(browser: Any, live_server: Any) -> Any:
    page = _docs_page(browser, live_server)
    yield page
    page.context.close()


def _open_everything(docs: Any) -> None:
    """Operations, an operation's "Try it out" form and the models opened."""
    for control in docs.locator(".opblock-summary-control").all()[:8]:
        control.click()
    docs.locator(".opblock .try-out__btn").first.click()
    docs.wait_for_selector(".opblock .btn.execute")
    for control in docs.locator(".models .model-box-control").all()[:8]:
        control.click()
    # a model's property that is a model of its own opens by a named button too
    docs.wait_for_selector(".models .model-box-control[aria-label]")
    docs.locator(".models .model-box-control[aria-label]").first.click()


def test_the_docs_page_passes_axe_as_it_opens(docs: Any) -> None:
    assert axe_violations(docs) == []
    # an operation's row is a button with no link inside it (a nested control)
    assert docs.locator(".opblock-summary-control a[href]").count() == 0


def test_the_docs_page_passes_axe_with_everything_open(docs: Any) -> None:
    _open_everything(docs)
    assert axe_violations(docs) == []


def test_every_icon_has_3_to_1_against_what_it_sits_on(docs: Any) -> None:
    _open_everything(docs)
    docs.locator(".opblock-summary").first.hover()  # the path's copy button shows on hover,
    # drawn by Swagger UI's script once it sees the hover: measured only when it is there
    docs.wait_for_selector(".opblock-summary .copy-to-clipboard", state="visible")
    icons = docs.evaluate(ICON_CONTRASTS)
    # the kinds of icon measured: the locks ("Authorize" and each operation's), the arrows, the
    # copy buttons (a CSS background)
    measured = " ".join(icon["where"] for icon in icons)
    for kind in (
        "btn.authorize",
        "authorization__btn",
        "opblock-control-arrow",
        "copy-to-clipboard",
    ):
        assert kind in measured, (kind, measured)
    assert [icon for icon in icons if icon["contrast"] < 3] == []


def test_the_docs_page_validates() -> None:
    response = Client().get("/api/docs/")
    assert response.status_code == 200
    assert html_errors({"API docs": response.content}) == {}


def _shows_open(docs: Any, address: str) -> None:
    """The operation of this address (#operation-<operationId>) is open, its row in view."""
    block = docs.locator(".opblock", has=docs.locator(address))
    expect(block.locator(".opblock-summary-control")).to_have_attribute("aria-expanded", "true")
    expect(block).to_have_class(re.compile(r"\bis-open\b"))
    expect(block.locator(".opblock-summary")).to_be_in_viewport()


def test_an_operations_address_opens_it(browser: Any, live_server: Any) -> None:
    """#operation-<operationId> opens its operation and scrolls to it, as the page loads and as
    the fragment changes; each operation's row offers that address beside its button."""
    docs = _docs_page(browser, live_server)
    links = docs.locator(".opblock > .opblock-summary > a.opblock-permalink")
    expect(links).to_have_count(docs.locator(".opblock").count())
    addresses = [link.get_attribute("href") or "" for link in links.all()]
    docs.context.close()
    assert all(re.fullmatch(r"#operation-\w+", address) for address in addresses), addresses
    first, last = addresses[0], addresses[-1]  # the last one far below the first screen

    docs = _docs_page(browser, live_server, "/api/docs/" + last)
    try:
        _shows_open(docs, last)
        expect(docs.locator(".opblock.is-open")).to_have_count(1)
        links_html = docs.evaluate(LINKS_HTML).encode()
        assert html_errors({"the operations' links": links_html}) == {}
        assert axe_violations(docs) == []

        first_link = docs.locator(f"a.opblock-permalink[href='{first}']")
        first_link.click()
        expect(docs).to_have_url(re.compile(re.escape(first) + "$"))
        _shows_open(docs, first)
        # closed, then its link followed again: the same fragment, no change of it
        control = docs.locator(".opblock", has=first_link).locator(".opblock-summary-control")
        control.click()
        expect(control).to_have_attribute("aria-expanded", "false")
        first_link.click()
        _shows_open(docs, first)
    finally:
        docs.context.close()

"""The home page renders without a database."""

from django.test import Client
from django.urls import reverse


def test_home_page_answers_with_title(client: Client) -> None:
    response = client.get(reverse("home"))

    assert response.status_code == 200
    assert "<title>Keltis by mail</title>" in response.content.decode()
    assert [t.name for t in response.templates][:2] == ["home.html", "base.html"]

"""The session's user is read by primary key in every request of a logged-in player:
``User.objects.get(pk=...)`` answers it from SQL compiled once (accounts.models.UserManager),
with the same user, the same errors, and Django's own queryset for any other lookup."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model

pytestmark = pytest.mark.django_db


def test_the_user_by_pk_is_the_querysets_user(make_user: Any) -> None:
    User = get_user_model()
    anna = make_user()
    fast = User.objects.get(pk=anna.pk)
    slow = User.objects.filter(pk=anna.pk).get()
    assert type(fast) is User
    assert {f.attname: getattr(fast, f.attname) for f in User._meta.concrete_fields} == {
        f.attname: getattr(slow, f.attname) for f in User._meta.concrete_fields
    }
    assert not fast._state.adding and fast._state.db == "default"
    with pytest.raises(User.DoesNotExist):
        User.objects.get(pk=anna.pk + 1000)
    assert User.objects.get(pk=str(anna.pk)) == anna  # any other value: Django's queryset
    assert User.objects.get(email=anna.email) == anna


def test_a_logged_in_request_reads_its_user_once(
    client: Any, make_user: Any, django_assert_num_queries: Any
) -> None:
    """The page of a logged-in player: the session's user is read, and is that player."""
    from django.contrib.auth import get_user
    from django.test import RequestFactory

    anna = make_user()
    client.force_login(anna)
    request = RequestFactory().get("/")
    request.session = client.session
    with django_assert_num_queries(1):
        assert get_user(request) == anna
    anna.set_password("another one, changed elsewhere")
    anna.save()
    assert not get_user(request).is_authenticated  # the session's hash is still checked

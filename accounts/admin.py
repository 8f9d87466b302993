"""The user in the admin: Django's user admin plus the player's settings."""

from django.contrib import admin
from django.contrib.auth.admin import UserAdmin as DjangoUserAdmin
from django.contrib.auth.forms import AdminUserCreationForm, UserChangeForm
from django.core.exceptions import ValidationError

from accounts.display_names import SIMILAR_NAME
from accounts.models import User
from accounts.selectors import display_name_taken


class _DisplayNameUnlikeOthers:
    """Staff may not give a player a name that reads like another's either (the model's
    validators refuse the characters; the constraints would refuse it with an error page)."""

    cleaned_data: dict[str, str]
    instance: User

    def clean_display_name(self) -> str:
        name = self.cleaned_data["display_name"]
        if name and display_name_taken(name, user=self.instance):
            raise ValidationError(SIMILAR_NAME, code="similar")
        return name


class UserChangeAdminForm(_DisplayNameUnlikeOthers, UserChangeForm):
    pass


class UserAddAdminForm(_DisplayNameUnlikeOthers, AdminUserCreationForm):
    pass


@admin.register(User)
class UserAdmin(DjangoUserAdmin):
    form = UserChangeAdminForm
    add_form = UserAddAdminForm
    fieldsets = (
        *DjangoUserAdmin.fieldsets,
        ("Player", {"fields": ("display_name", "time_zone", "language")}),
    )
    add_fieldsets = (
        (
            None,
            {
                "classes": ("wide",),
                "fields": (
                    "username",
                    "email",
                    "display_name",
                    "usable_password",
                    "password1",
                    "password2",
                ),
            },
        ),
    )
    list_display = ("username", "display_name", "email", "is_staff", "is_active")
    search_fields = ("username", "display_name", "email")

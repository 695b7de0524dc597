"""Creates the `demo` user of the embedded default, so `make run` can be logged into at once."""

from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

DEMO_USERNAME = "demo"
DEMO_PASSWORD = "demo"


class Command(BaseCommand):
    help = "Create the 'demo' user (password 'demo') when DEBUG is on and no user exists yet."

    def handle(self, *args: Any, **options: Any) -> None:
        if not settings.DEBUG:
            raise CommandError(
                "Refusing to create a user with a known password while DEBUG is off."
            )
        User = get_user_model()
        if User.objects.exists():
            self.stdout.write("Users exist already; log in with one of them.")
            return
        User.objects.create_user(DEMO_USERNAME, password=DEMO_PASSWORD)
        self.stdout.write(f"Log in as '{DEMO_USERNAME}' with password '{DEMO_PASSWORD}'.")

"""Creates the `demo` user of `make run` on a fresh database, so there is a login at once.

The password is made at random on this machine and printed once, when the user
is created: `make run` serves without DEBUG, possibly to others, and a password
everyone knows would let anyone in.
"""

import secrets
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand

DEMO_USERNAME = "demo"


class Command(BaseCommand):
    help = "Create the 'demo' user with a random password (printed once) when no user exists yet."

    def handle(self, *args: Any, **options: Any) -> None:
        User = get_user_model()
        if User.objects.exists():
            self.stdout.write(
                "Log in with your user (forgot the password? "
                f"python manage.py changepassword {DEMO_USERNAME})."
            )
            return
        password = secrets.token_urlsafe(9)
        User.objects.create_user(DEMO_USERNAME, password=password)
        self.stdout.write(
            self.style.SUCCESS(
                f"Log in as '{DEMO_USERNAME}' with password '{password}' "
                "(shown this once; keep it, or set another with "
                f"python manage.py changepassword {DEMO_USERNAME})."
            )
        )

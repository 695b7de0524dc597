"""URL converters (registered on import, by scheduling's URL modules): a share token is what new_share_token() makes (URL-safe base64).

Anything else (a NUL byte, a megabyte of text) matches no route and answers 404
before it reaches the database, which refuses a NUL in a query with an error.
"""

from django.urls import register_converter


class ShareTokenConverter:
    regex = r"[A-Za-z0-9_-]{1,64}"

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


register_converter(ShareTokenConverter, "share_token")

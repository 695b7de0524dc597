"""URL converters: a share token is what new_share_token() makes (URL-safe base64).

Anything else (a NUL byte, a megabyte of text) matches no route and answers 404
before it reaches the database, which refuses a NUL in a query with an error.
"""


class ShareTokenConverter:
    regex = r"[A-Za-z0-9_-]{1,64}"

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value

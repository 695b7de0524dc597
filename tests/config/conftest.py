from tests.config.served import served  # noqa: F401 - the fixture

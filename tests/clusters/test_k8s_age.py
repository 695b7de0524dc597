import pytest

from clusters.templatetags.clusters_tags import cpu, human_duration, memory


@pytest.mark.parametrize(
    ("seconds", "expected"),
    [
        (-5, "<invalid>"),
        (0, "0s"),
        (119, "119s"),
        (150, "2m30s"),
        (600, "10m"),
        (3 * 3600 + 60, "3h1m"),
        (10 * 3600, "10h"),
        (3 * 86400 + 7200, "3d2h"),
        (30 * 86400, "30d"),
        (3 * 365 * 86400, "3y"),
        (10 * 365 * 86400, "10y"),
    ],
)
def test_it_prints_ages_like_kubectl(seconds: int, expected: str) -> None:
    assert human_duration(seconds) == expected


def test_it_prints_quantities() -> None:
    assert (cpu(250), cpu(2000), cpu(15500)) == ("250m", "2", "15.5")
    assert (memory(256 * 2**20), memory(3 * 2**29), memory(100)) == ("256Mi", "1.5Gi", "100")

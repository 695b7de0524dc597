import pytest

from clusters.templatetags.clusters_tags import cpu, human_duration, memory, name_breaks, quantity
from scheduling.engine.quantity import format_quantity


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
    # kubectl writes 15.5 cores as 15500m: exact, as the pages must be (31750m is not 31.8).
    assert (cpu(250), cpu(2000), cpu(15500), cpu(31750)) == ("250m", "2", "15500m", "31750m")
    assert (memory(256 * 2**20), memory(3 * 2**29), memory(100)) == ("256Mi", "1.5Gi", "100")


@pytest.mark.parametrize("amount", [None, 0, 1, 999, 1000, 1500, 10_500, 15_500, 2**31, 3 * 2**29])
def test_the_page_filters_write_what_reports_and_the_command_line_write(amount: int | None) -> None:
    # One formatter for every surface: a node's cpu reads the same on the nodes table,
    # a result page, the plan and the terminal.
    assert cpu(amount) == format_quantity(amount, "cpu") == quantity(amount, "cpu")
    assert memory(amount) == format_quantity(amount, "memory") == quantity(amount, "memory")
    assert quantity(amount, "pods") == format_quantity(amount, "pods")
    assert cpu("") == memory("") == "—"


def test_a_node_name_wraps_after_its_dots_never_inside_a_part() -> None:
    html = str(name_breaks("ip-10-0-195-177.ec2.internal"))
    assert html == (
        '<span class="nw">ip-10-0-195-177.</span><wbr><span class="nw">ec2.</span><wbr>'
        '<span class="nw">internal</span>'
    )
    # An owner wraps after its kind; a part too long to keep whole may break anywhere.
    long = "openshift-apiserver-operator-74d76d9d57"
    assert str(name_breaks(f"ReplicaSet/{long}")) == (
        f'<span class="nw">ReplicaSet/</span><wbr>{long}'
    )
    # Markup in a name is text, never markup.
    assert str(name_breaks("a<b>.c")) == (
        '<span class="nw">a&lt;b&gt;.</span><wbr><span class="nw">c</span>'
    )
    assert str(name_breaks(None)) == ""
    # An app: its kind, its namespace and its name.
    assert str(name_breaks("Deployment shop/web")) == (
        '<span class="nw">Deployment </span><wbr><span class="nw">shop/</span><wbr>'
        '<span class="nw">web</span>'
    )

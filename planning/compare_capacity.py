"""Two capacity answers side by side: how many replicas fit, before and after.

The planning guide's question: "how much room has this tier now, and after we add
cat-3?". Plain Python over what a capacity analysis stores (no Django): the answer for
replicas of one pod (``Capacity``) or the room-per-tier table of one size
(``RoomByClass``). Each is read once into a ``CapacityAnswer``, a row per class; an
answer for one pod is a table of one row. ``compare_capacity`` says first, in one
sentence, how many more (or fewer) replicas B fits than A and what they cost in
victims, class by class.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any

from scheduling.engine.capacity import Capacity, ClassRoom, RoomByClass
from scheduling.engine.objects import CPU, MEMORY
from scheduling.engine.quantity import format_quantity, resource_value, size_words
from scheduling.engine.words import NAMES_IN_A_SENTENCE, join_names, plural

CAPACITY = "capacity"
REPLICAS, BY_CLASS = "replicas", "by-class"


@dataclass(frozen=True)
class Room:
    """One class's room for the size in one answer."""

    priority_class: str  # the PriorityClass, or "priority N" for a pod without one
    priority: int
    fit_now: int  # as the cluster stands
    fit_by_preempting: int
    unplaced: int  # of the limit, left pending
    victims: int  # pods the run deleted
    pdbs_exceeded: int  # budgets taken past their disruptionsAllowed

    @property
    def placed(self) -> int:
        return self.fit_now + self.fit_by_preempting


@dataclass(frozen=True)
class CapacityAnswer:
    """What one capacity analysis answered: a row per class, highest priority first."""

    form: str  # REPLICAS (one pod's replicas) | BY_CLASS (one size in every user class)
    pod: str  # "namespace/name" of the template; the table: ""
    cpu: int  # the size asked about: millicores, bytes
    memory: int
    limit: int
    rooms: tuple[Room, ...]
    analysis: int = 0
    snapshot_id: int = 0
    snapshot: str = ""

    @property
    def size(self) -> str:
        """ "2 CPU / 4Gi"."""
        return size_words({CPU: self.cpu, MEMORY: self.memory}, joiner=" / ")

    def room(self, priority_class: str) -> Room | None:
        return next((r for r in self.rooms if r.priority_class == priority_class), None)

    def to_dict(self) -> dict[str, Any]:
        return {
            "analysis": self.analysis,
            "snapshot": {"id": self.snapshot_id, "name": self.snapshot},
            "kind": CAPACITY,
            "form": self.form,
            "pod": self.pod,
            "size": {
                "cpu": format_quantity(self.cpu, CPU),
                "memory": format_quantity(self.memory, MEMORY),
            },
            "limit": self.limit,
            "classes": [asdict(r) | {"placed": r.placed} for r in self.rooms],
        }


def _room(row: ClassRoom, fallback: str = "") -> Room:
    return Room(
        priority_class=row.priority_class or fallback or f"priority {row.value}",
        priority=row.value,
        fit_now=row.fit_now,
        fit_by_preempting=row.fit_by_preempting,
        unplaced=row.unplaced,
        victims=row.victims_total,
        pdbs_exceeded=row.pdbs_exceeded,
    )


def capacity_answer(
    answer: Capacity | RoomByClass, *, analysis: int = 0, snapshot_id: int = 0, snapshot: str = ""
) -> CapacityAnswer:
    """A capacity analysis' answer from its typed form (``Analysis.room``)."""
    if isinstance(answer, RoomByClass):
        return CapacityAnswer(
            form=BY_CLASS,
            pod="",
            cpu=resource_value(CPU, answer.size.cpu),
            memory=resource_value(MEMORY, answer.size.memory),
            limit=answer.limit,
            rooms=tuple(_room(r) for r in answer.rows),
            analysis=analysis,
            snapshot_id=snapshot_id,
            snapshot=snapshot,
        )
    t = answer.template
    return CapacityAnswer(
        form=REPLICAS,
        pod=t.pod,
        cpu=int(t.requests.get(CPU, 0)),
        memory=int(t.requests.get(MEMORY, 0)),
        limit=answer.limit,
        rooms=(_room(ClassRoom.of(answer)),),
        analysis=analysis,
        snapshot_id=snapshot_id,
        snapshot=snapshot,
    )


def _counts_of(r: Room | None) -> tuple[int, ...] | None:
    if r is None:
        return None
    return (r.fit_now, r.fit_by_preempting, r.unplaced, r.victims, r.pdbs_exceeded)


@dataclass(frozen=True)
class RoomRow:
    """One class in both answers (None: the class is not in that answer)."""

    priority_class: str
    a: Room | None
    b: Room | None

    @property
    def differs(self) -> bool:
        """The counts differ (a class in one answer only counts as a difference)."""
        return _counts_of(self.a) != _counts_of(self.b)

    def to_dict(self) -> dict[str, Any]:
        def side(r: Room | None) -> dict[str, Any] | None:
            return None if r is None else asdict(r) | {"placed": r.placed}

        return {
            "priority_class": self.priority_class,
            "a": side(self.a),
            "b": side(self.b),
            "replicas_change": (self.b.placed if self.b else 0) - (self.a.placed if self.a else 0),
            "victims_change": (self.b.victims if self.b else 0) - (self.a.victims if self.a else 0),
        }


@dataclass(frozen=True)
class CapacityComparison:
    sentence: str
    same: bool
    a: CapacityAnswer
    b: CapacityAnswer
    rows: tuple[RoomRow, ...]  # highest priority first

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": CAPACITY,
            "sentence": self.sentence,
            "same": self.same,
            "a": self.a.to_dict(),
            "b": self.b.to_dict(),
            "classes": [r.to_dict() for r in self.rows],
        }


# --- the sentence ----------------------------------------------------------------------------


def _more(n: int, word: str) -> str:
    """ "4 more replicas", "1 fewer victim"."""
    return plural(abs(n), f"{'more' if n > 0 else 'fewer'} {word}")


def _of(a: CapacityAnswer, b: CapacityAnswer) -> str:
    return f" of {a.size}" if a.size == b.size else ""


def _counts(ra: Room, rb: Room, a: CapacityAnswer, b: CapacityAnswer) -> str:
    """ "(12 → 16)"; sizes that differ: "(12 of 1 CPU / 2Gi → 16 of 2 CPU / 4Gi)"."""
    if a.size == b.size:
        return f"({ra.placed:,} → {rb.placed:,})"
    return f"({ra.placed:,} of {a.size} → {rb.placed:,} of {b.size})"


def _cost(ra: Room, rb: Room) -> str:
    """What the replicas cost, A to B: victims, then budgets."""
    n = rb.victims - ra.victims
    if n:
        text = f"{_more(n, 'victim')} ({ra.victims:,} → {rb.victims:,})"
    elif ra.victims:
        text = f"the same {plural(ra.victims, 'victim')}"
    else:
        text = "no victims in either"
    if ra.pdbs_exceeded != rb.pdbs_exceeded:
        text += f", PDBs exceeded {ra.pdbs_exceeded:,} → {rb.pdbs_exceeded:,}"
    return text


def _preempting(victims: int) -> str:
    return f"preempting {plural(victims, 'pod')}" if victims else "without preempting"


def _versus(row: RoomRow, a: CapacityAnswer, b: CapacityAnswer) -> str:
    """One class in both: "B fits 4 more replicas of 2 CPU / 4Gi than A (12 → 16); 3 more
    victims (5 → 8)"."""
    ra, rb = row.a, row.b
    assert ra is not None and rb is not None
    of = _of(a, b)
    who_a, who_b = "A", "B"
    if ra.priority_class != rb.priority_class:
        who_a, who_b = f"A ({ra.priority_class})", f"B ({rb.priority_class})"
    n = rb.placed - ra.placed
    if n:
        fits = f"{who_b} fits {_more(n, 'replica')}{of} than {who_a} {_counts(ra, rb, a, b)}"
    elif ra.fit_now != rb.fit_now:
        fits = (
            f"{who_a} and {who_b} fit {plural(ra.placed, 'replica')}{of}, but "
            f"{ra.fit_now:,} → {rb.fit_now:,} as the cluster stands"
        )
    else:
        fits = f"{who_a} and {who_b} fit {plural(ra.placed, 'replica')}{of}"
    if not n and not of:
        fits += f" ({a.size} in A, {b.size} in B)"
    return f"{fits}; {_cost(ra, rb)}"


def _alone(row: RoomRow, x: CapacityAnswer, *, size: bool) -> str:
    """A class one answer has and the other lacks: "B adds cat-3: 16 replicas of
    2 CPU / 4Gi fit, preempting 3 pods"; "B has no cat-0 (A: ...)"."""
    r = row.a or row.b
    assert r is not None
    of = f" of {x.size}" if size else ""
    room = f"{plural(r.placed, 'replica')}{of} fit, {_preempting(r.victims)}"
    if row.b is not None:
        return f"B adds {row.priority_class}: {room}"
    return f"B has no {row.priority_class} (in A, {room})"


def _limits(a: CapacityAnswer, b: CapacityAnswer, rows: Sequence[RoomRow]) -> str:
    """A count that is the limit, not the room: say so, or "the same" hides more room."""
    for name, side in (("A", "a"), ("B", "b")):
        capped = [r.priority_class for r in rows if (x := getattr(r, side)) and not x.unplaced]
        if capped:
            limit = (a if side == "a" else b).limit
            where = f" in {join_names(capped, limit=NAMES_IN_A_SENTENCE)}" if len(rows) > 1 else ""
            return f" ({name} placed all {limit:,} asked for{where}: there may be more room)"
    return ""


def _sentence(c: CapacityComparison) -> str:
    a, b = c.a, c.b
    rows = c.rows
    if c.same:
        if len(rows) == 1 and rows[0].a is not None:
            one = rows[0].a
            return (
                f"Both fit {plural(one.placed, 'replica')} of {a.size} "
                f"({one.fit_now:,} as the cluster stands), {_preempting(one.victims)}: "
                f"same answer{_limits(a, b, rows)}."
            )
        return (
            f"Every class has the same room for {a.size} in A and B "
            f"({plural(len(rows), 'class', 'classes')}): same answer{_limits(a, b, rows)}."
        )
    # Sizes that differ with the same counts: the counts are the news.
    changed = [r for r in rows if r.differs] or list(rows)
    alone = [r for r in changed if r.a is None or r.b is None]
    both = sorted(
        (r for r in changed if r.a is not None and r.b is not None),
        key=lambda r: (
            -abs((r.b.placed if r.b else 0) - (r.a.placed if r.a else 0)),
            -abs((r.b.victims if r.b else 0) - (r.a.victims if r.a else 0)),
        ),
    )
    parts: list[str] = []
    if both:
        lead = _versus(both[0], a, b)
        if len(rows) > 1 or a.form != b.form:
            lead = f"In {both[0].priority_class}, {lead}"
        parts.append(lead)
    for r in alone[:NAMES_IN_A_SENTENCE]:
        parts.append(_alone(r, a if r.a else b, size=not parts))
    rest = len(both[1:]) + len(alone[NAMES_IN_A_SENTENCE:])
    if rest:
        parts.append(
            f"{plural(rest, 'more class', 'more classes')} {'differs' if rest == 1 else 'differ'}"
        )
    elif len(rows) > len(changed):
        unchanged = len(rows) - len(changed)
        parts.append(
            "the other class is unchanged"
            if unchanged == 1
            else f"the other {unchanged:,} classes are unchanged"
        )
    return f"{'; '.join(parts)}{_limits(a, b, changed)}."


def compare_capacity(a: CapacityAnswer, b: CapacityAnswer) -> CapacityComparison:
    """A against B, class by class. When either answers for one pod's replicas, its class
    is the only one compared (the other's other classes are not the question)."""
    if a.form == REPLICAS and b.form == REPLICAS:
        # Two pods: their rooms face each other, whatever their classes.
        rows: tuple[RoomRow, ...] = (
            RoomRow(priority_class=a.rooms[0].priority_class, a=a.rooms[0], b=b.rooms[0]),
        )
    else:
        if a.form == REPLICAS or b.form == REPLICAS:
            one = a if a.form == REPLICAS else b
            names = [one.rooms[0].priority_class]
        else:
            order = {r.priority_class: -r.priority for r in (*b.rooms, *a.rooms)}
            names = sorted(order, key=lambda n: (order[n], n))
        rows = tuple(RoomRow(priority_class=n, a=a.room(n), b=b.room(n)) for n in names)
    same = a.size == b.size and not any(r.differs for r in rows)
    draft = CapacityComparison(sentence="", same=same, a=a, b=b, rows=rows)
    return replace(draft, sentence=_sentence(draft))

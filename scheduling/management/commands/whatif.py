"""manage.py whatif SNAPSHOT POD: what kube-scheduler would do with POD on SNAPSHOT."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from scheduling.engine import InvalidInput, analyze, load_cluster, read_documents
from scheduling.report import render_text


def _read(path: str) -> list[dict[str, Any]]:
    try:
        data = Path(path).read_bytes()
    except OSError as e:
        raise CommandError(f"{path}: {e.strerror}") from None
    return read_documents(data, Path(path).name)


class Command(BaseCommand):
    help = "Where would kube-scheduler put POD on SNAPSHOT, and whom would it preempt?"

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "snapshot", help="kubectl get nodes,pods,pdb,priorityclasses -A -o json|yaml"
        )
        parser.add_argument("pod", help="the pending Pod manifest (JSON or YAML)")
        parser.add_argument("--format", choices=("text", "json"), default="text")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            cluster = load_cluster(
                _read(options["snapshot"]), source=Path(options["snapshot"]).name
            )
            pods = [d for d in _read(options["pod"]) if d.get("kind") in ("Pod", None)]
            if len(pods) != 1:
                raise CommandError(f"{options['pod']}: expected exactly one Pod, found {len(pods)}")
            result = analyze(cluster, pods[0])
        except InvalidInput as e:
            raise CommandError(str(e)) from None
        if options["format"] == "json":
            self.stdout.write(json.dumps(result.to_dict(), indent=2))
        else:
            self.stdout.write(render_text(result.explanation))

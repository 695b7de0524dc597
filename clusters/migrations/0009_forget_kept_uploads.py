"""Refused uploads were once kept raw on disk (MEDIA_ROOT/kept-uploads) for the next
try; they could hold Secrets. Nothing is kept any more: remove what an older version
left behind."""

import shutil
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import migrations


def forget_kept_uploads(apps: Any, schema_editor: Any) -> None:
    shutil.rmtree(Path(settings.MEDIA_ROOT) / "kept-uploads", ignore_errors=True)


class Migration(migrations.Migration):
    dependencies = [("clusters", "0008_i10_upload_parts")]

    operations = [migrations.RunPython(forget_kept_uploads, migrations.RunPython.noop)]

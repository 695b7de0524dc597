from __future__ import annotations

from typing import Any

from django import forms


class MultipleFileInput(forms.ClearableFileInput):
    allow_multiple_selected = True


class MultipleFileField(forms.FileField):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("widget", MultipleFileInput(attrs={"multiple": True}))
        super().__init__(*args, **kwargs)

    def clean(self, data: Any, initial: Any = None) -> list[Any]:
        single = super().clean
        if isinstance(data, list | tuple):
            return [single(d, initial) for d in data if d]
        return [single(data, initial)] if data else []


class SnapshotUploadForm(forms.Form):
    name = forms.CharField(
        max_length=200,
        required=False,
        help_text="Defaults to the first file's name.",
    )
    team = forms.ChoiceField(
        required=False,
        help_text="Its members read it, ask what-ifs on it and see each other's analyses.",
    )

    def __init__(self, *args: Any, teams: list[str] | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = self.fields["team"]
        assert isinstance(field, forms.ChoiceField)
        field.choices = [("", "None: mine alone"), *((t, t) for t in teams or [])]

    # The metaclass moves declared fields into base_fields, so self.files stays the uploads.
    files = MultipleFileField(  # type: ignore[assignment]
        required=False,
        error_messages={
            "empty": "The chosen file is empty. Choose the file kubectl wrote "
            "(kubectl get nodes,pods,pdb,priorityclasses -A -o json > snapshot.json).",
        },
        help_text="kubectl get nodes,pods,pdb,priorityclasses -A -o json (or -o yaml), "
        "gzipped or not; several files merge into one snapshot.",
    )
    paste = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 8, "spellcheck": "false"}),
        label="Or paste YAML or JSON",
    )

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        # A file the field refused (empty) has its own message: one is enough.
        if "files" in self.errors:
            return data
        if not data.get("files") and not (data.get("paste") or "").strip():
            raise forms.ValidationError("Choose at least one file, or paste YAML or JSON.")
        return data

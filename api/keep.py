"""What became of the photo of a `keep=true` request, told in every answer to it.

A photo asked to be kept is saved before it is read, so a request that then fails (422 damaged
photo, 413 too many pixels, 415, 500 reader bug, 503 busy) still leaves it on the server's disk.
The route records the outcome on the request (`request.state.keep`); a 200 carries it in its
model, and `api.app`'s error handlers add the same two keys to every error body through
`keep_fields`, so a client reads one shape whatever the status: `kept` (the file's name under the
keep folder, or null) and `keep_error` (why it was not kept, or null). A request that did not ask
to keep gets neither key.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fastapi import Request


@dataclass(frozen=True)
class KeepOutcome:
    """`kept`: the photo's name under the keep folder, or None; `keep_error`: why not, or None."""

    kept: str | None
    keep_error: str | None = None

    @property
    def note(self) -> str:
        """The words an error's message ends with: where the photo is, or nothing."""
        return f"the photo was kept as {self.kept}" if self.kept else ""


def record_keep(request: Request, outcome: KeepOutcome) -> None:
    """Say on the request what became of its photo (read back by `keep_fields`)."""
    request.state.keep = outcome


def outcome_of(request: Request) -> KeepOutcome | None:
    """What `record_keep` said for this request, or None when it did not ask to keep its photo."""
    return getattr(request.state, "keep", None)


def keep_note(request: Request) -> str:
    """The words an error's message ends with for this request: where its photo is, or "" (`KeepOutcome.note`)."""
    out = outcome_of(request)
    return "" if out is None else out.note


def keep_fields(request: Request) -> dict[str, Any]:
    """`{"kept": …, "keep_error": …}` for the body of any answer to a `keep=true` request; `{}` otherwise."""
    out = outcome_of(request)
    return {} if out is None else {"kept": out.kept, "keep_error": out.keep_error}

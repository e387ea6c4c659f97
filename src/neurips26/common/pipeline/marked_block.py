"""A generated block inside a hand-written file: the text between a begin and an end marker (the README's paper table,
a paper README's claims table). One reader and one writer, so every generator replaces its block the same way."""

from __future__ import annotations

from neurips26.common.pipeline.errors import UserError


def block_of(text: str, begin: str, end: str) -> str | None:
    """The text between the first `begin` and the `end` after it; None when the file has no such block."""
    if begin not in text:
        return None
    rest = text.split(begin, 1)[1]
    return rest.split(end, 1)[0] if end in rest else None


def with_block(text: str, begin: str, end: str, inner: str, where: str) -> str:
    """`text` with its block's content replaced by `inner` (markers kept); `where` names the file in the error."""
    if block_of(text, begin, end) is None:
        raise UserError(f"{where} has no {begin.strip()} ... {end.strip()} block for the generated table")
    head, rest = text.split(begin, 1)
    return head + begin + inner + end + rest.split(end, 1)[1]

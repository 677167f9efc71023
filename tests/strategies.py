"""Hypothesis strategies shared by the property tests, built so that every draw is usable (no
filter that throws most of them away: whether a health check trips must not be luck)."""

from __future__ import annotations

from hypothesis import strategies as st

# Characters str.strip() removes: the Unicode separators plus the control characters it counts as
# whitespace. None of them may start or end a stripped text.
_STRIPPED_CONTROLS = "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f\x85"


def stripped_text(*, max_size: int, exclude: str = "") -> st.SearchStrategy[str]:
    """Non-empty text equal to its own ``str.strip()``, without the characters in ``exclude``."""
    inner = st.characters(blacklist_characters=exclude, blacklist_categories=("Cs",))
    edge = st.characters(
        blacklist_characters=exclude + _STRIPPED_CONTROLS, blacklist_categories=("Cs", "Zs", "Zl", "Zp")
    )
    one = edge.map(str)
    longer = st.tuples(edge, st.text(inner, max_size=max(0, max_size - 2)), edge).map("".join)
    return one | longer if max_size > 1 else one

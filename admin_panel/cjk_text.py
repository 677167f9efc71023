"""Chinese text put together from translated pieces (docs/admin_panel.md §Chinese text)."""

from __future__ import annotations

import re

_CJK = "\u3000-\u303f\u4e00-\u9fff\uff00-\uffef"
# Whitespace between two Chinese characters, also when an element starts or ends between them.
_CJK_GAP = re.compile(rf"(?<=[{_CJK}])((?:</?[a-z][^>]*>)*)[ \t\n]+((?:</?[a-z][^>]*>)*)(?=[{_CJK}])")


def tidy_cjk_spaces(text: str) -> str:
    """Text assembled from translated pieces without the spaces English puts between them where
    both sides are Chinese ("在 模式 为 本地内嵌 时显示" -> "在模式为本地内嵌时显示"); a space
    next to Latin text or a number stays ("在 .env 中")."""
    return _CJK_GAP.sub(r"\1\2", text)

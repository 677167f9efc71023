"""Threat scanner for text that ends up in the agent's system prompt.

Reproduces the ids, scopes and messages of hermes-agent 0.19.0 (docs/agent_formats.md §Threat scan).
Speed comes from three cheap steps before any regular expression runs: ASCII text skips the
invisible-character search and the NFKC pass, and every pattern has a literal prefilter (a
word the pattern cannot match without) checked on a case-folded copy of the text.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass

from memory_core.messages import say

MAX_SCAN_CHARS = 65_536
SCOPES = ("all", "context", "strict")
# Memory writes and the snapshot are scanned with every pattern.
MEMORY_SCOPE = "strict"

INVISIBLE_CHARS = frozenset(
    chr(code)
    for code in (
        *range(0x200B, 0x200E),
        0x2060,
        *range(0x2062, 0x2065),
        0xFEFF,
        *range(0x202A, 0x202F),
        *range(0x2066, 0x206A),
    )
)
_INVISIBLE_RE = re.compile("[" + "".join(sorted(INVISIBLE_CHARS)) + "]")
INVISIBLE_PREFIX = "invisible_unicode_"

# Non-ASCII characters that Python's case-insensitive matching treats as equal to an ASCII
# letter (computed over all of Unicode; a test recomputes it). Folding them keeps the literal
# prefilter from ever rejecting text the real pattern would match.
_FOLD_TABLE = {0x130: "i", 0x131: "i", 0x17F: "s", 0x212A: "k"}

# Building blocks of the agent's pattern notation (docs/agent_formats.md §Threat scan).
_WS = r"\s+"
_FILLER = r"(?:\w+\s+){0,8}"
_LINE = r"[^\n]{0,%d}"
_VERBS = r"(?:update|modify|edit|write|change|append|add\s+to)"


class ThreatPattern:
    """One pattern of docs/agent_formats.md §Threat scan. The regex is compiled on first use: most texts never get past
    the literal prefilter of most patterns, and compiling all 36 costs more than a scan."""

    __slots__ = ("_compiled", "category", "id", "required", "scope", "source")

    def __init__(
        self, pattern_id: str, scope: str, category: str, source: str, required: tuple[tuple[str, ...], ...]
    ) -> None:
        self.id = pattern_id
        self.scope = scope  # the narrowest scope that includes it: "all", "context" or "strict"
        self.category = category
        self.source = source
        # Every group must have at least one of its literals in the folded text.
        self.required = required
        self._compiled: re.Pattern[str] | None = None

    @property
    def regex(self) -> re.Pattern[str]:
        if self._compiled is None:
            self._compiled = re.compile(self.source, re.IGNORECASE)
        return self._compiled

    def may_match(self, folded: str) -> bool:
        return all(any(word in folded for word in group) for group in self.required)

    def __repr__(self) -> str:
        return f"ThreatPattern({self.id!r}, scope={self.scope!r})"


def _p(pattern_id: str, scope: str, category: str, regex: str, *required: tuple[str, ...]) -> ThreatPattern:
    return ThreatPattern(pattern_id, scope, category, regex, required)


# fmt: off
PATTERNS: tuple[ThreatPattern, ...] = (
    _p(
        "prompt_injection", "all", "instruction_override",
        rf"ignore{_WS}{_FILLER}(?:previous|all|above|prior){_WS}{_FILLER}instructions",
        ("ignore",), ("instructions",),
    ),
    _p(
        "sys_prompt_override", "all", "instruction_override",
        rf"system{_WS}prompt{_WS}override",
        ("override",), ("system",),
    ),
    _p(
        "disregard_rules", "all", "instruction_override",
        rf"disregard{_WS}{_FILLER}(?:your|all|any){_WS}{_FILLER}(?:instructions|rules|guidelines)",
        ("disregard",),
    ),
    _p(
        "bypass_restrictions", "all", "instruction_override",
        rf"act{_WS}as{_WS}(?:if|though){_WS}{_FILLER}you{_WS}{_FILLER}"
        rf"(?:have{_WS}no|don't{_WS}have){_WS}{_FILLER}(?:restrictions|limits|rules)",
        ("act",), ("restrictions", "limits", "rules"),
    ),
    _p(
        "html_comment_injection", "all", "hidden_content",
        r"<!--[^>]{0,512}(?:ignore|override|system|secret|hidden)[^>]{0,512}-->",
        ("<!--",), ("-->",),
    ),
    _p(
        "hidden_div", "all", "hidden_content",
        r"<\s*div\s+style\s*=\s*(?:\"|')[^>]{0,2048}display\s*:\s*none",
        ("display",), ("div",),
    ),
    _p(
        "translate_execute", "all", "instruction_override",
        rf"translate{_WS}{_LINE % 512}{_WS}into{_WS}{_LINE % 512}{_WS}and{_WS}(?:execute|run|eval)",
        ("translate",), ("into",),
    ),
    _p(
        "deception_hide", "all", "instruction_override",
        rf"do{_WS}not{_WS}{_FILLER}tell{_WS}{_FILLER}the{_WS}user",
        ("tell",), ("user",),
    ),
    _p(
        "role_hijack", "context", "identity",
        rf"you{_WS}are{_WS}{_FILLER}now{_WS}(?:a|an|the){_WS}",
        ("now",), ("you",),
    ),
    _p(
        "role_pretend", "context", "identity",
        rf"pretend{_WS}{_FILLER}(?:you{_WS}are|to{_WS}be){_WS}",
        ("pretend",),
    ),
    _p(
        "leak_system_prompt", "context", "exfiltration",
        rf"output{_WS}{_FILLER}(?:system|initial){_WS}prompt",
        ("output",), ("prompt",),
    ),
    _p(
        "remove_filters", "context", "instruction_override",
        rf"(?:respond|answer|reply){_WS}without{_WS}{_FILLER}(?:restrictions|limitations|filters|safety)",
        ("without",),
    ),
    _p(
        "fake_update", "context", "identity",
        rf"you{_WS}have{_WS}been{_WS}{_FILLER}(?:updated|upgraded|patched){_WS}to",
        ("been",), ("have",),
    ),
    _p(
        "identity_override", "context", "identity",
        rf"\bname{_WS}yourself{_WS}\w+",
        ("yourself",),
    ),
    _p(
        "c2_node_registration", "context", "command_and_control",
        rf"register{_WS}(?:as{_WS})?a?\s*node",
        ("register",), ("node",),
    ),
    _p(
        "c2_heartbeat", "context", "command_and_control",
        rf"(?:heartbeat|beacon|check[\s-]?in){_WS}(?:to|with){_WS}",
        ("heartbeat", "beacon", "check"),
    ),
    _p(
        "c2_task_pull", "context", "command_and_control",
        rf"pull{_WS}(?:down{_WS})?(?:new{_WS})?task(?:ing|s)?\b",
        ("pull",), ("task",),
    ),
    _p(
        "c2_network_connect", "context", "command_and_control",
        rf"connect{_WS}to{_WS}the{_WS}network\b",
        ("network",), ("connect",),
    ),
    _p(
        "forced_action", "context", "command_and_control",
        rf"you{_WS}must{_WS}(?:\w+{_WS}){{0,3}}(?:register|connect|report|beacon)\b",
        ("must",), ("register", "connect", "report", "beacon"),
    ),
    _p(
        "anti_forensic_oneliner", "context", "evasion",
        rf"only{_WS}use{_WS}one[\s-]?liners?\b",
        ("liner",),
    ),
    _p(
        "anti_forensic_disk", "context", "evasion",
        rf"never{_WS}{_FILLER}(?:create|write){_WS}{_FILLER}(?:script|file){_WS}{_FILLER}disk",
        ("never",), ("disk",),
    ),
    _p(
        "env_var_unset_agent", "context", "evasion",
        rf"unset{_WS}\w*(?:claude|codex|hermes|agent|openai|anthropic)\w*",
        ("unset",),
    ),
    _p(
        "known_c2_framework", "context", "command_and_control",
        r"\b(?:cobalt\s*strike|sliver|havoc|mythic|metasploit|brainworm)\b",
        ("cobalt", "sliver", "havoc", "mythic", "metasploit", "brainworm"),
    ),
    _p(
        "c2_explicit", "context", "command_and_control",
        rf"\bc2{_WS}(?:server|channel|infrastructure|beacon)\b",
        ("c2",),
    ),
    _p(
        "c2_explicit_long", "context", "command_and_control",
        rf"\bcommand{_WS}and{_WS}control\b",
        ("control",), ("command",),
    ),
    _p(
        "exfil_curl", "all", "exfiltration",
        rf"curl{_WS}{_LINE % 2048}\$\{{?\w*(?:key|token|secret|password|credential|api)",
        ("curl",), ("$",),
    ),
    _p(
        "exfil_wget", "all", "exfiltration",
        rf"wget{_WS}{_LINE % 2048}\$\{{?\w*(?:key|token|secret|password|credential|api)",
        ("wget",), ("$",),
    ),
    _p(
        "read_secrets", "all", "credentials",
        rf"cat{_WS}{_LINE % 2048}(?:\.env|credentials|\.netrc|\.pgpass|\.npmrc|\.pypirc)",
        ("cat",), (".env", "credentials", ".netrc", ".pgpass", ".npmrc", ".pypirc"),
    ),
    _p(
        "send_to_url", "strict", "exfiltration",
        rf"(?:send|post|upload|transmit){_WS}{_LINE % 2048}{_WS}(?:to|at){_WS}https?://",
        ("://",), ("http",),
    ),
    _p(
        "context_exfil", "strict", "exfiltration",
        rf"(?:include|output|print|share){_WS}{_FILLER}"
        rf"(?:conversation|chat{_WS}history|previous{_WS}messages|full{_WS}context|entire{_WS}context)",
        ("conversation", "history", "messages", "context"),
    ),
    _p(
        "ssh_backdoor", "strict", "persistence",
        r"authorized_keys",
        ("authorized_keys",),
    ),
    _p(
        "ssh_access", "strict", "credentials",
        r"\$HOME/\.ssh|~/\.ssh",
        ("$home/.ssh", "~/.ssh"),
    ),
    _p(
        "hermes_env", "strict", "credentials",
        r"\$HOME/\.hermes/\.env|~/\.hermes/\.env",
        ("/.hermes/.env",),
    ),
    _p(
        "agent_config_mod", "strict", "persistence",
        rf"{_VERBS}{_WS}{_LINE % 2048}(?:AGENTS\.md|CLAUDE\.md|\.cursorrules|\.clinerules)",
        ("agents.md", "claude.md", ".cursorrules", ".clinerules"),
    ),
    _p(
        "hermes_config_mod", "strict", "persistence",
        rf"{_VERBS}{_WS}{_LINE % 2048}\.hermes/(?:config\.yaml|SOUL\.md)",
        (".hermes/",), ("config.yaml", "soul.md"),
    ),
    _p(
        "hardcoded_secret", "strict", "credentials",
        r"(?:api(?:_|-)?key|token|secret|password)\s*(?:=|:)\s*(?:\"|')[A-Za-z0-9+/=_-]{20,}",
        ("key", "token", "secret", "password"), ("=", ":"), ('"', "'"),
    ),
)
# fmt: on

_SCOPE_RANK = {"all": 0, "context": 1, "strict": 2}
PATTERNS_BY_SCOPE: dict[str, tuple[ThreatPattern, ...]] = {
    scope: tuple(p for p in PATTERNS if _SCOPE_RANK[p.scope] <= rank) for scope, rank in _SCOPE_RANK.items()
}
PATTERNS_BY_ID: dict[str, ThreatPattern] = {p.id: p for p in PATTERNS}

# Plain-language texts for the panel, one table so they can be translated later.
CATEGORY_LABELS: dict[str, str] = {
    "instruction_override": "Tries to override the agent's instructions",
    "identity": "Tries to change who the agent thinks it is",
    "hidden_content": "Hidden or invisible content",
    "exfiltration": "Tries to send information out",
    "credentials": "Touches passwords, keys or secret files",
    "persistence": "Tries to plant lasting access or change agent settings",
    "command_and_control": "Looks like remote control by an attacker",
    "evasion": "Tries to cover its tracks",
}

EXPLANATIONS: dict[str, str] = {
    "invisible_unicode": "The text contains an invisible character that can hide instructions from a human reader.",
    "prompt_injection": "The text tells the agent to ignore its earlier instructions.",
    "sys_prompt_override": "The text claims to override the agent's system prompt.",
    "disregard_rules": "The text tells the agent to disregard its rules or guidelines.",
    "bypass_restrictions": "The text asks the agent to act as if it had no restrictions.",
    "html_comment_injection": "An HTML comment hides words such as 'ignore', 'system' or 'secret'.",
    "hidden_div": "An HTML block is styled to be invisible, which can hide instructions.",
    "translate_execute": "The text asks the agent to translate something and then run it.",
    "deception_hide": "The text asks the agent to keep something from the user.",
    "role_hijack": "The text tells the agent that it is now someone or something else.",
    "role_pretend": "The text asks the agent to pretend to be someone else.",
    "leak_system_prompt": "The text asks the agent to reveal its system prompt.",
    "remove_filters": "The text asks the agent to answer without its safety limits.",
    "fake_update": "The text falsely claims the agent has been updated or patched.",
    "identity_override": "The text tells the agent to give itself a new name.",
    "c2_node_registration": "The text asks the agent to register as a node, as botnets do.",
    "c2_heartbeat": "The text asks for regular check-ins with a server, as remote-control malware does.",
    "c2_task_pull": "The text asks the agent to fetch new tasks, as remote-control malware does.",
    "c2_network_connect": "The text asks the agent to connect to 'the network', as botnets do.",
    "forced_action": "The text orders the agent to register, connect, report or beacon.",
    "anti_forensic_oneliner": "The text asks for one-line commands only, a way to leave fewer traces.",
    "anti_forensic_disk": "The text tells the agent never to write scripts or files to disk, to avoid traces.",
    "env_var_unset_agent": "The text unsets an environment variable that belongs to the agent or an AI service.",
    "known_c2_framework": "The text names a known attack or remote-control tool.",
    "c2_explicit": "The text mentions a command-and-control (C2) server or channel.",
    "c2_explicit_long": "The text mentions 'command and control', attacker jargon for remote control.",
    "exfil_curl": "A curl command sends a secret variable (key, token, password) somewhere.",
    "exfil_wget": "A wget command sends a secret variable (key, token, password) somewhere.",
    "read_secrets": "The text reads a file that usually holds passwords or keys.",
    "send_to_url": "The text sends or uploads something to a web address.",
    "context_exfil": "The text asks the agent to share the conversation or its full context.",
    "ssh_backdoor": "The text mentions SSH authorized_keys, a common way to plant a login backdoor.",
    "ssh_access": "The text points at the SSH key folder (~/.ssh).",
    "hermes_env": "The text points at the agent's own secrets file (~/.hermes/.env).",
    "agent_config_mod": "The text asks to change an agent rules file such as AGENTS.md or CLAUDE.md.",
    "hermes_config_mod": "The text asks to change the agent's config.yaml or SOUL.md.",
    "hardcoded_secret": "The text contains what looks like a real password, key or token.",
}


# A short name for each finding, for its badge (the explanation says the rest); the id itself stays
# the agent's (docs/agent_formats.md §Threat scan) and is shown only on hover.
PATTERN_LABELS: dict[str, str] = {
    "invisible_unicode": "Invisible character",
    "prompt_injection": "Ignore earlier instructions",
    "sys_prompt_override": "Overrides the agent's instructions",
    "disregard_rules": "Disregard the rules",
    "bypass_restrictions": "Act without limits",
    "html_comment_injection": "Hidden comment",
    "hidden_div": "Invisible block",
    "translate_execute": "Translate and run",
    "deception_hide": "Keep it from the user",
    "role_hijack": "Identity change",
    "role_pretend": "Pretend to be someone",
    "leak_system_prompt": "Reveal the agent's instructions",
    "remove_filters": "Remove safety limits",
    "fake_update": "Fake update",
    "identity_override": "New name",
    "c2_node_registration": "Register as a node",
    "c2_heartbeat": "Regular check-ins",
    "c2_task_pull": "Fetch tasks",
    "c2_network_connect": "Join a network",
    "forced_action": "Forced action",
    "anti_forensic_oneliner": "One-line commands only",
    "anti_forensic_disk": "Leave no files",
    "env_var_unset_agent": "Clears the agent's settings",
    "known_c2_framework": "Attack tool",
    "c2_explicit": "Remote-control server",
    "c2_explicit_long": "Remote control",
    "exfil_curl": "Sends a secret out with curl",
    "exfil_wget": "Sends a secret out with wget",
    "read_secrets": "Reads a secrets file",
    "send_to_url": "Sends to a web address",
    "context_exfil": "Shares the conversation",
    "ssh_backdoor": "SSH backdoor",
    "ssh_access": "SSH keys",
    "hermes_env": "Agent's secrets file",
    "agent_config_mod": "Changes agent rules",
    "hermes_config_mod": "Changes agent settings",
    "hardcoded_secret": "Password or key in the text",
}


def pattern_label(pattern_id: str) -> str:
    """The short plain name of a finding id (an invisible character's id names its code point)."""
    key = INVISIBLE_PREFIX.rstrip("_") if pattern_id.startswith(INVISIBLE_PREFIX) else pattern_id
    return PATTERN_LABELS.get(key, pattern_id)


def _check_scope(scope: object) -> tuple[ThreatPattern, ...]:
    try:
        return PATTERNS_BY_SCOPE[scope]  # type: ignore[index]
    except (KeyError, TypeError):
        raise ValueError(f"scan_for_threats: unknown scope {scope!r}") from None


_FOLD_CHARS = tuple(chr(code) for code in _FOLD_TABLE)


def _fold(text: str) -> str:
    """Lower-case copy in which every character that matches an ASCII letter case-insensitively
    is that letter (``str.translate`` is slow, so only when one of them is present)."""
    if not text.isascii() and any(char in text for char in _FOLD_CHARS):
        text = text.translate(_FOLD_TABLE)
    return text.lower()


def _matching(patterns: tuple[ThreatPattern, ...], text: str) -> list[ThreatPattern]:
    """Patterns whose prefilter passes and whose regex matches ``text`` (already normalised)."""
    folded = _fold(text)
    hits = []
    for pattern in patterns:
        # Plain loops: this runs 36 times per scan, and generator overhead would dominate.
        for group in pattern.required:
            for word in group:
                if word in folded:
                    break
            else:
                break
        else:
            if pattern.regex.search(text):
                hits.append(pattern)
    return hits


def _invisible_in(prefix: str) -> list[str]:
    """Distinct invisible characters of the prefix, in ascending code point order."""
    if prefix.isascii():
        return []
    return sorted(set(_INVISIBLE_RE.findall(prefix)))


def _normalise(prefix: str) -> str:
    if prefix.isascii():
        return prefix
    return unicodedata.normalize("NFKC", prefix)


def invisible_id(char: str) -> str:
    return f"{INVISIBLE_PREFIX}U+{ord(char):04X}"


# Scan results are a pure function of (text, scope). Every read of a store scans each entry (its
# findings and its snapshot line), so a page of a 5,000-entry store would rescan 10,000 texts per
# render; entries rarely change, so results are remembered. Only texts up to this length are kept,
# so the cache stays small (a few MB) whatever the entries hold.
_CACHED_TEXT_CHARS = 4096
_CACHED_TEXTS = 16_384


def scan_for_threats(content: str, scope: str = "context") -> list[str]:
    """Ids of every finding, in 0.19.0's order (invisible characters first)."""
    if not content:
        return []
    if len(content) <= _CACHED_TEXT_CHARS and isinstance(content, str) and isinstance(scope, str):
        return list(_cached_ids(content, scope))
    return _scan_ids(content, scope)


@functools.lru_cache(maxsize=_CACHED_TEXTS)
def _cached_ids(content: str, scope: str) -> tuple[str, ...]:
    return tuple(_scan_ids(content, scope))


def _scan_ids(content: str, scope: str) -> list[str]:
    patterns = _check_scope(scope)
    prefix = content[:MAX_SCAN_CHARS]
    found = [invisible_id(char) for char in _invisible_in(prefix)]
    found.extend(pattern.id for pattern in _matching(patterns, _normalise(prefix)))
    return found


def first_threat_message(content: str, scope: str = "strict") -> str | None:
    """The refusal text for the first finding, or None when the text is clean."""
    found = scan_for_threats(content, scope)
    if not found:
        return None
    first = found[0]
    if first.startswith(INVISIBLE_PREFIX):
        code = first[len(INVISIBLE_PREFIX) :]
        return say("threat_invisible", code=code)
    return say("threat_pattern", pattern=first)


@dataclass(frozen=True)
class ThreatFinding:
    """One finding, explained for the panel.

    ``start``/``end`` index the scanned text as given (None when NFKC normalisation changed the
    text in a way that cannot be mapped back character by character); ``matched`` is the text
    the pattern matched (after normalisation).
    """

    pattern_id: str
    category: str
    category_label: str
    explanation: str
    start: int | None
    end: int | None
    matched: str
    label: str = ""


def _offset_map(prefix: str, normalised: str) -> list[int] | None:
    """For each index of ``normalised``, the index of the original character it came from."""
    if normalised == prefix:
        return None
    origins: list[int] = []
    pieces: list[str] = []
    for index, char in enumerate(prefix):
        piece = unicodedata.normalize("NFKC", char)
        pieces.append(piece)
        origins.extend([index] * len(piece))
    if "".join(pieces) != normalised:
        return []
    return origins


def _explain(pattern_id: str, category: str, start: int | None, end: int | None, matched: str) -> ThreatFinding:
    key = INVISIBLE_PREFIX.rstrip("_") if pattern_id.startswith(INVISIBLE_PREFIX) else pattern_id
    return ThreatFinding(
        pattern_id=pattern_id,
        category=category,
        category_label=CATEGORY_LABELS[category],
        explanation=EXPLANATIONS[key],
        label=PATTERN_LABELS[key],
        start=start,
        end=end,
        matched=matched,
    )


def scan_detailed(content: str, scope: str = "context") -> list[ThreatFinding]:
    """Same findings as :func:`scan_for_threats`, each with its category, explanation and span."""
    if not content:
        return []
    if len(content) <= _CACHED_TEXT_CHARS and isinstance(content, str) and isinstance(scope, str):
        return list(_cached_findings(content, scope))
    return _scan_findings(content, scope)


@functools.lru_cache(maxsize=_CACHED_TEXTS)
def _cached_findings(content: str, scope: str) -> tuple[ThreatFinding, ...]:
    return tuple(_scan_findings(content, scope))


def _scan_findings(content: str, scope: str) -> list[ThreatFinding]:
    patterns = _check_scope(scope)
    prefix = content[:MAX_SCAN_CHARS]
    findings = [
        _explain(invisible_id(char), "hidden_content", prefix.index(char), prefix.index(char) + 1, char)
        for char in _invisible_in(prefix)
    ]
    text = _normalise(prefix)
    origins = _offset_map(prefix, text)
    for pattern in _matching(patterns, text):
        match = pattern.regex.search(text)
        assert match is not None
        start: int | None = match.start()
        end: int | None = match.end()
        if origins == []:
            start = end = None
        elif origins is not None:
            start = origins[match.start()] if match.start() < len(origins) else len(prefix)
            end = origins[match.end() - 1] + 1 if match.end() > 0 else 0
        findings.append(_explain(pattern.id, pattern.category, start, end, match.group(0)))
    return findings

"""Search parity: on a hand-built 0.19.0 state.db, the same messages in the same order as the
agent's rules give (docs/agent_formats.md §Session history, docs/api.md §Session routes) with the panel's fixes of
§Deviations from 0.19.0. Expected answers
are worked out from the rules, not by running hermes-agent."""

from __future__ import annotations

import pytest

from memory_core.history import open_history
from memory_core.history.search import route_query, sanitize_fts5_query, search_messages, search_sessions
from tests.sessions import fixture as fx


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    home = tmp_path_factory.mktemp("parity")
    return home, fx.build(home)


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ('"exact phrase"', '"exact phrase"'), ('"unclosed phrase', "unclosed phrase"),
        ('say "hi" and "bye', 'say "hi" and  bye'), ('"unbalanced "quote" here', '"unbalanced "quote  here'),
        ("***deploy", "deploy"), ("dep***loy", "dep*loy"), ("* alone", "alone"),
        ("AND hello", "hello"), ("hello AND", "hello"), ("and hello", "hello"),
        ("NOT NOT x", "NOT x"), ("AND OR", "OR"), ("OR", ""),
        ("docker OR kubernetes", "docker OR kubernetes"), ("python NOT java", "python NOT java"),
        ("NEAR(a b)", "NEAR a b"), ("大别山项目", "大别山项目"),
        ("chat-send", '"chat-send"'), ("P2.2", '"P2.2"'), ("snake_case", '"snake_case"'),
        ("my-app.config.ts", '"my-app.config.ts"'), ("chat-send*", '"chat-send"*'), ("e.g.", '"e.g".'),
        ("12.5%", '"12.5"%'), ("TODO: fix", "TODO  fix"), ("a:b", "a b"), ("(x OR y)", "x OR y"),
        ("c++", "c"), ("x^2", "x 2"), ("-hello", "-hello"), ("don't", "don't"), ("中文-测试", '"中文-测试"'),
    ],
)
def test_it_sanitises_queries_as_the_agent_does(query, expected):
    assert sanitize_fts5_query(query) == expected


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("kubern", "kubern*"), ('"exact phrase" dock', '"exact phrase" dock*'), ("dock*", "dock*"),
        ("docker OR terraform", "docker* OR terraform*"), ("大别山 docker", "大别山 docker*"),
        ('"unclosed docker', '"unclosed docker*'),
    ],
)
def test_it_adds_the_prefix_star_except_to_operators_and_cjk(query, expected):
    assert route_query(query) == expected


# (query, [(lineage root, label of the hit message or None for an id match)], unparsable)
PARITY = [
    ("phrase", '"docker networks"', [(fx.G, "g1"), (fx.A, "a1"), (fx.J, "j1")], False),
    ("prefix", "kubern", [(fx.B, "b1")], False),
    ("boolean", "terraform OR zebra", [(fx.B, "c2"), (fx.D, "d3")], False),
    ("hyphenated", "chat-send", [(fx.J, "j2")], False),
    ("dotted", "my-app.config.ts", [(fx.B, "b2")], False),
    ("dotted version", "p2.2", [(fx.A, "a4")], False),
    ("quote left open", '"kubernetes migr', [(fx.B, "b1")], False),
    ("operator characters", "^docker: cleanup", [(fx.H, "h1")], False),
    ("operator characters only", "(bridge):", [(fx.A, "a4")], False),
    ("cjk short", "广西", [(fx.F, "f2")], False),
    ("cjk short or", "广西 OR 漓江", [(fx.F, "f3")], False),
    ("cjk long", "大别山", [(fx.F, "f1")], False),
    ("cjk quoted", '"大别山"', [(fx.F, "f1")], False),
    ("cjk rewound only", "撤回的广西", [], False),
    ("cjk and latin", "docker 大别山", [], False),
    ("cjk literal star", "大别*", [], False),
    ("empty", "", [], False),
    ("blank", "   ", [], False),
    ("fts5 rejects", "don't", [], True),
    ("id match first", "20260101_1000", [(fx.A, None)], False),
]


@pytest.mark.parametrize(("kind", "query", "expected", "unparsable"), PARITY, ids=[p[0] for p in PARITY])
def test_it_finds_the_same_messages_in_the_same_order(built, kind, query, expected, unparsable):
    home, fixture = built
    with open_history(home) as history:
        answer = search_sessions(history, query)
    got = [(r["lineage_root"], r["match_message_id"]) for r in answer.results]
    assert got == [(root, fixture.ids[label] if label else None) for root, label in expected]
    assert answer.unparsable is unparsable


def test_it_keeps_compacted_rows_and_hides_rewound_ones(built):
    home, fixture = built
    with open_history(home) as history:
        compacted = search_messages(history, "modules", sort="oldest").hits
        rewound = search_messages(history, "zebra").hits
        everything = search_messages(history, "zebra", include_inactive=True).hits
    assert [h["id"] for h in compacted] == [fixture.ids["d1"], fixture.ids["d3"]]
    assert rewound == [] and [h["id"] for h in everything] == [fixture.ids["e3"]]


def test_it_gives_each_hit_its_neighbours_as_context(built):
    home, fixture = built
    with open_history(home) as history:
        (hit,) = search_messages(history, "bridge").hits
    assert hit["id"] == fixture.ids["a4"]
    assert [c["role"] for c in hit["context"]] == ["tool", "assistant"]
    assert list(hit) == ["id", "session_id", "role", "snippet", "timestamp", "tool_name", "source", "model",
                         "session_started", "context"]


def test_it_finds_tool_names_and_call_ids_in_the_indexed_text(built):
    home, fixture = built
    with open_history(home) as history:
        hits = search_messages(history, "call_mem1").hits
    assert [h["id"] for h in hits] == [fixture.ids["a2"]]
    assert ">>>call_mem1<<<" in hits[0]["snippet"]


def test_it_cuts_the_like_snippet_around_the_first_word(built):
    home, _fixture = built
    with open_history(home) as history:
        (hit,) = search_messages(history, "桂林").hits
    assert hit["snippet"] == "大别山项目进展顺利，下一步去广西桂林。"

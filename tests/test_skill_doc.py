"""SKILL.md fits a model's budget and teaches the protocols of time and of the person (documentation/time.md#recall, documentation/guarantees.md#the-skill-and-the-documents).

- the body stays under 12,000 characters (the contract's stand-in for 5,000 tokens),
  and what moved out of it is linked and exists;
- it teaches the time protocol (change, correction, end, related/replaces, pinned,
  "when" questions, tidy) and documentation/commands.md#consent-states-and-the-order-of-checks (consent_state, names, commands handed over whole);
- it settles what a new reader found ambiguous: a task, persisted consent, relative
  and unknown dates, source_ref without turn numbers, ids inside commands;
- the phrase→command map and the consent question are in Chinese and English;
- the deltas in references/time.md are ones the product takes.

test_docs.py keeps the older checks (validator, every error code and command).
"""

from __future__ import annotations

import datetime
import json
import re
from pathlib import Path
from typing import Any

from memory_store.commands.catalog import COMMANDS
from memory_store.writes import validation

ROOT = Path(__file__).resolve().parent.parent
SKILL = ROOT / "SKILL.md"
REFERENCES = ROOT / "references"
BODY_CHARS_MAX = 12_000

CONSENT_STATES = ("absent", "never_enabled", "enabled", "paused", "revoked")
TIME_KEYS = ("correction", "replaces", "pinned")
CJK = re.compile(r"[\u4e00-\u9fff]")


def _read(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def _body() -> str:
    text = _read(SKILL)
    assert text.startswith("---\n")
    return text.split("---", 2)[2]


def _flat(text: str) -> str:
    """The text with every run of whitespace as one space (wrapping is not wording)."""
    return " ".join(text.split())


def _section(title_start: str) -> str:
    body = _body()
    start = body.index(f"\n## {title_start}")
    end = body.find("\n## ", start + 1)
    return body[start : end if end != -1 else None]


def _table_rows(text: str, first_header: str) -> list[list[str]]:
    lines = text.splitlines()
    for i, line in enumerate(lines):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and cells[0].strip("` ").startswith(first_header):
            rows = []
            for row in lines[i + 2 :]:
                if not row.startswith("|"):
                    break
                rows.append([c.strip() for c in row.strip().strip("|").split("|")])
            return rows
    raise AssertionError(f"no table starting with column {first_header!r}")


# ---------------------------------------------------------------------------
# Size and links


def test_skill_body_is_under_twelve_thousand_characters() -> None:
    body = _body()
    assert len(body) < BODY_CHARS_MAX, (
        f"SKILL.md's body is {len(body)} characters; move detail to references/"
    )


def test_every_link_in_the_skill_and_its_prose_references_exists() -> None:
    docs = [SKILL, *(REFERENCES / name for name in ("protocol.md", "time.md", "memory-rules.md"))]
    for doc in docs:
        links = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", _read(doc))
        local = [link for link in links if "://" not in link]
        assert local or doc.name == "memory-rules.md", doc.name
        for link in local:
            assert (doc.parent / link).is_file(), f"{doc.name} links {link}"
    for name in ("protocol.md", "time.md", "memory-rules.md", "error-codes.md"):
        assert f"(references/{name})" in _body(), name


def test_every_mcp_tool_is_named_in_the_skill() -> None:
    text = _body()
    for command in COMMANDS.values():
        if command.tool is not None:
            assert f"`{command.tool.name}`" in text, command.tool.name


def test_no_document_of_the_skill_installs_from_a_package_index() -> None:
    # documentation/commands.md#a-person-named-never-guessed: the project is not on an index under this name. (The generated
    # references follow the code they are generated from; these are written by hand.)
    prose = ("protocol.md", "time.md", "memory-rules.md", "error-codes.md")
    for doc in [SKILL, *(REFERENCES / name for name in prose)]:
        flat = _flat(_read(doc))
        assert not re.search(r"pip install [\"']?memory-store", flat), doc.name
    assert "from a checkout" in _flat(_body())
    assert "memory-store skill install" in _body()


# ---------------------------------------------------------------------------
# Consent (documentation/commands.md#consent-states-and-the-order-of-checks) and the words a new reader asked about


def test_the_status_table_names_every_consent_state_once() -> None:
    rows = _table_rows(_section("1."), "consent_state")
    named = [s for row in rows for s in re.findall(r"`([a-z_]+)`", row[0])]
    assert sorted(named) == sorted(CONSENT_STATES)
    revoked = next(row for row in rows if "`revoked`" in row[0])
    assert "Never ask again" in revoked[1] and "unless they raise it" in revoked[1]
    assert CJK.search(revoked[1]), "the revoked rule in Chinese too"
    enabled = next(row for row in rows if row[0] == "`enabled`")
    assert "Don't ask again" in enabled[1]


def test_consent_persists_in_the_store_not_in_recollection() -> None:
    flat = _flat(_section("1."))
    assert "Consent lives in the store, not in your recollection" in flat
    assert "revoked_at" in flat


def test_a_task_is_one_conversation() -> None:
    flat = _flat(_body())
    assert "A **task** is one conversation (session) with the host" in flat
    protocol = _flat(_read(REFERENCES / "protocol.md"))
    assert "A new conversation is a new task" in protocol


def test_the_relative_date_example_is_right() -> None:
    """The worked example must itself be correct: the Saturday of the week before."""
    flat = _flat(_body())
    found = re.search(
        r"\"上周六\", told on (\w+) (\d{4}-\d{2}-\d{2}) → `(\d{4}-\d{2}-\d{2})`", flat
    )
    assert found, "the 上周六 example"
    weekday, told, answer = found.groups()
    told_day = datetime.date.fromisoformat(told)
    assert told_day.strftime("%A") == weekday
    monday = told_day - datetime.timedelta(days=told_day.weekday())
    assert datetime.date.fromisoformat(answer) == monday - datetime.timedelta(days=2)
    for phrase in ("Approximate", "about", "大约", "Unknown", "date unknown", "日期不详"):
        assert phrase in flat, phrase


def test_source_ref_without_turn_numbers() -> None:
    flat = _flat(_section("4."))
    assert "`turn:12` when the host numbers turns" in flat
    assert "a short quote" in flat and '"conversation 2026-12-01"' in flat


def test_ids_appear_only_inside_commands_handed_over_whole() -> None:
    rules = _flat(_section("Ground rules"))
    assert "Never show the path, raw JSON, ids or error codes" in rules
    assert "ids go in your tool calls" in rules
    assert "give it whole, as the product gave it" in rules
    assert "--data-dir '<dir>'" in rules
    protocol = _flat(_read(REFERENCES / "protocol.md"))
    assert "This is the one place where an id or the folder appears" in protocol


# ---------------------------------------------------------------------------
# The time protocol (documentation/time.md#where-history-lives)


def test_the_skill_teaches_change_correction_and_end() -> None:
    section = _section("5.")
    rows = _table_rows(section, "the person says")
    said = {row[0]: row[1] for row in rows}
    change = next(v for k, v in said.items() if "换工作" in k)
    assert "plain upsert" in change and "`occurred_at`" in change and "past" in change
    correction = next(v for k, v in said.items() if "不对" in k)
    assert '`"correction": true`' in correction
    end = next(v for k, v in said.items() if "辞职" in k)
    assert '`"action": "end"`' in end and "when it stopped" in end
    breakup = next(v for k, v in said.items() if "分手" in k)
    assert "not `end`" in breakup
    for key, _ in rows:
        assert CJK.search(key) and re.search(r"[A-Za-z]{3}", key), key


def test_the_skill_teaches_related_pinned_when_and_tidy() -> None:
    flat = _flat(_body())
    for phrase in (
        "`results[i].related`",
        '`"replaces": "<that id>"`',
        '`"pinned": true`',
        '`"pinned": false`',
        "at most 5 per person",
        "A row with `until` is no longer true",
        "memory-store tidy [--subject-id S]",
        "`data.proposal`",
        "only on their yes",
        "`memory_tidy`",
    ):
        assert phrase in flat, phrase


def _documented_deltas(text: str) -> list[str]:
    # The same extraction as test_docs.py: ```json blocks, here-documents, inline objects.
    snippets = re.findall(r"^```json\n(.*?)^```$", text, re.M | re.S)
    snippets += re.findall(r"<<'EOF'\n(.*?)\nEOF", text, re.S)
    snippets += [s for s in re.findall(r"`(\{.*?\})`", text) if '"scope"' in s or '"id"' in s]
    return [s for s in snippets if "…" not in s]


def _delta_schema() -> dict[str, Any]:
    return json.loads(_read(REFERENCES / "schemas" / "delta.schema.json"))


def _without_time_keys(delta: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in delta.items() if k not in TIME_KEYS}


def test_the_time_reference_deltas_are_accepted() -> None:
    """Every example in time.md is one `apply` takes. Until the delta schema carries the (documentation/time.md#recall)
    keys (release 3 is adding them), each example must use only keys the schema or documentation/time.md#where-history-lives
    names, and must be accepted once the documentation/time.md#where-history-lives keys are taken out (an `end` has nothing
    left to check). With the keys in the schema, each is validated whole."""
    snippets = _documented_deltas(_read(REFERENCES / "time.md"))
    assert len(snippets) >= 6
    props = _delta_schema()["properties"]
    speaks_time = set(TIME_KEYS) <= set(props) and "end" in props["action"]["enum"]
    uses = {key: 0 for key in (*TIME_KEYS, "end")}
    for snippet in snippets:
        body = json.loads(snippet)
        deltas = body.get("deltas", [body])
        for delta in deltas:
            for key in TIME_KEYS:
                uses[key] += key in delta
            uses["end"] += delta.get("action") == "end"
        if speaks_time:
            validation.load_deltas(validation.parse_body(snippet))
            continue
        for delta in deltas:
            assert set(delta) <= set(props) | set(TIME_KEYS), delta
        plain = [_without_time_keys(d) for d in deltas if d.get("action") != "end"]
        if plain:
            validation.load_deltas(validation.parse_body(json.dumps({"deltas": plain})))
    assert uses["correction"] and uses["pinned"] and uses["end"], uses


# ---------------------------------------------------------------------------
# Both languages


def test_the_phrase_map_is_in_both_languages() -> None:
    rows = _table_rows(_section("7."), "the person says")
    assert len(rows) >= 12
    for said, run in rows:
        assert CJK.search(said) and re.search(r"[A-Za-z]{3}", said), said
        assert "memory-store " in run, said


def test_the_consent_question_and_the_confirmation_line_in_both_languages() -> None:
    quotes = re.findall(r"^> (.+)$", _body(), re.M)
    assert any(q.startswith("Would you like me to keep a long-term memory") for q in quotes)
    assert any(q.startswith("要不要我把你告诉我的") for q in quotes)
    assert any(q.startswith("Memory updated:") for q in quotes)
    assert any(q.startswith("记忆更新：") for q in quotes)

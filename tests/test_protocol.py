"""One protocol (documentation/guarantees.md#the-skill-and-the-documents): the MCP server's instructions, ``SKILL.md`` and
``references/`` say the same where the model acts on them — what to do in each
``consent_state`` (never ``memory_enable`` when paused or revoked), one rule for
``related``, no second question in chat when the client asks the person, and health
never stored. Each document is parsed for these points, not searched for one sentence.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from memory_store.consent import CONSENT_STATES
from memory_store.mcp import INSTRUCTIONS

ROOT = Path(__file__).resolve().parent.parent
SKILL = (ROOT / "SKILL.md").read_text("utf-8")
REFERENCES = {p.name: p.read_text("utf-8") for p in (ROOT / "references").glob("*.md")}
PROTOCOL = REFERENCES["protocol.md"]

# What each state asks of the model, the same everywhere.
EXPECTED = {
    "absent": "ask once",
    "never_enabled": "ask once",
    "enabled": "use memory",
    "paused": "without memory, resume on request",
    "revoked": "without memory, never ask",
}


def _flat(text: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"[`*]", "", text)).strip().lower()


def _action(text: str) -> str:
    """The action a document gives for a state, as one of EXPECTED's words."""
    t = _flat(text)
    if "use memory" in t:
        return "use memory"
    if "without memory" in t and "resume" in t and "only when they ask" in t:
        return "without memory, resume on request"
    if "without memory" in t and "never" in t and "unless they raise it" in t:
        return "without memory, never ask"
    if "once" in t and "help" in t and ("ask" in t or "memory_enable" in t):
        return "ask once"
    return f"unclear: {text!r}"


def _instruction_states() -> dict[str, str]:
    states = {}
    for line in INSTRUCTIONS.splitlines():
        found = re.match(r"- ([a-z_, ]+): (.+)", line)
        if found:
            for state in found.group(1).split(", "):
                states[state] = found.group(2)
    return states


def _table_states(text: str, heading: str) -> dict[str, str]:
    """The consent table under ``heading``: each state's last cell ("the same": the row
    above's)."""
    section = text.split(heading, 1)[1].split("\n## ", 1)[0]
    states: dict[str, str] = {}
    previous = ""
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        names = re.findall(r"`([a-z_]+)`", cells[0]) if line.startswith("|") else []
        if not names or not set(names) <= set(CONSENT_STATES):
            continue
        action = previous if cells[-1] == "the same" else cells[-1]
        for name in names:
            states[name] = action
        previous = action
    return states


@pytest.mark.parametrize(
    "where",
    ["instructions", "SKILL.md", "references/protocol.md"],
)
def test_every_consent_state_has_the_same_action_everywhere(where: str) -> None:
    states = {
        "instructions": _instruction_states,
        "SKILL.md": lambda: _table_states(SKILL, "## 1. "),
        "references/protocol.md": lambda: _table_states(PROTOCOL, "## 1. "),
    }[where]()
    assert set(states) == set(CONSENT_STATES), states
    assert {s: _action(a) for s, a in states.items()} == EXPECTED
    for state in ("paused", "revoked"):  # never turned on again by the model
        text = _flat(states[state])
        assert "enable --confirm" not in text, text
        assert "memory_enable" not in text or "never call memory_enable" in text, text


def _related_rules() -> dict[str, str]:
    time = REFERENCES["time.md"]
    return {
        "instructions": next(line for line in INSTRUCTIONS.splitlines() if "related" in line),
        "SKILL.md": re.search(r"- \*\*`related`\*\*.*?(?=\n- |\n\n)", SKILL, re.S).group(0),
        "references/protocol.md": re.search(
            r"- `related` in the result.*?(?=\n- |\n\n|\n#)", PROTOCOL, re.S
        ).group(0),
        "references/time.md": time.split("## Two rows for one thing", 1)[1].split("\n## ")[0],
    }


@pytest.mark.parametrize(
    "where", ["instructions", "SKILL.md", "references/protocol.md", "references/time.md"]
)
def test_one_rule_for_related(where: str) -> None:
    rule = _flat(_related_rules()[where])
    assert "ask which holds" in rule, rule
    assert "replaces" in rule and "clearly replaces the old" in rule, rule
    assert re.search(r"keep (both|them both)[^.]*only (if|when) the person says both hold", rule), (
        rule
    )


def test_under_mcp_the_client_asks_and_the_model_asks_nothing_more() -> None:
    skill_mcp = SKILL.split("## 8. ", 1)[1].split("\n## ", 1)[0]
    protocol_mcp = PROTOCOL.split("## 8. ", 1)[1].split("\n## ", 1)[0]
    for where, text in (
        ("instructions", INSTRUCTIONS),
        ("SKILL.md", skill_mcp),
        ("references/protocol.md", protocol_mcp),
    ):
        t = _flat(text)
        assert re.search(r"never (ask )?a second question in chat", t), where
        assert "say in chat what" in t or "say in one line what" in t, where
        assert "memory_enable" in t, where


def test_health_is_never_stored_and_no_document_makes_an_exception() -> None:
    documents = {"instructions": INSTRUCTIONS, "SKILL.md": SKILL, **REFERENCES}
    assert "never store health" in _flat(INSTRUCTIONS)
    assert "never store health" in _flat(REFERENCES["memory-rules.md"])
    assert "health" in _flat(SKILL.split("**Don't write**", 1)[1].split("\n- ", 1)[0])
    for name, text in documents.items():
        if name == "recall-aliases.md":  # the alias table names words, not rules
            continue
        for sentence in re.split(r"(?<=[.;:])\s", _flat(text)):
            if "health" in sentence:
                assert "unless" not in sentence and "if the user asks" not in sentence, (
                    name,
                    sentence,
                )

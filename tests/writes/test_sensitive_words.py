"""Passwords, credentials and health in words, closer still (documentation/privacy.md).

A password, PIN or passcode however it is written (any script, a phrase, a passphrase);
a credential given for a named account, device, door or network without the word
"password"; a health condition or a medicine named without a verb of diagnosis; health
field names in the plural and run together. Each is refused without its text echoed, by
the library, the real command line and the real MCP server; the ordinary sentences kept
beside this file (``ordinary_sentences.txt``) are all stored.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from support import apply, delta, ok, refused

from memory_store import MemoryStore
from memory_store.mcp import build_server
from memory_store.writes.sensitive import sensitive_field, sensitive_text

# (text, the secret it gives: never to be echoed)
SECRETS = [
    ("密码是芝麻开门", "芝麻开门"),
    ("口令是 芝麻开门", "芝麻开门"),
    ("PIN码是 4821", "4821"),
    ("我的密碼是 hunter2", "hunter2"),
    ("password: correct horse battery staple", "correct horse battery staple"),
    ("her password is 芝麻开门", "芝麻开门"),
    ("支付密碼為 135790", "135790"),
    ("门禁码是 4821#", "4821#"),
    ("パスワードは sakura2026", "sakura2026"),
    ("비밀번호는 tiger77", "tiger77"),
    ("passphrase = purple monkey dishwasher lamp", "purple monkey dishwasher lamp"),
    ("Her PIN number is 0417", "0417"),
]
CREDENTIALS = [
    ("wifi code is bluefish77", "bluefish77"),
    ("the alarm code is 4821", "4821"),
    ("HR portal: Tulip#2291", "Tulip#2291"),
    ("the garage door code is 7731", "7731"),
    ("code for the gate: 4821", "4821"),
    ("her Netflix login is maple_leaf9", "maple_leaf9"),
    ("WiFi是bluefish77", "bluefish77"),
    ("router admin: Qx7!tree", "Qx7!tree"),
    ("the lock combination is 12-34-56", "12-34-56"),
]
HEALTH = [
    "has ADHD",
    "她有抑郁症",
    "takes Adderall",
    "her brother is autistic",
    "has had asthma since she was a kid",
    "living with type 1 diabetes",
    "her mom has Alzheimer’s",
    "he has PTSD from the army",
    "on Ozempic since March",
    "struggles with depression",
    "breast cancer survivor",
    "她有多动症",
    "他爸爸有糖尿病和高血压",
    "每天吃二甲双胍",
    "她去年得了乳腺癌",
    "她有癫痫",
    "他在吃安眠药",
]
HEALTH_FIELDS = [
    "diagnoses",
    "therapies",
    "symptoms",
    "medications",
    "health_history",
    "mentalhealth",
    "healthhistory",
    "medical_records",
    "meds",
    "past_surgeries",
    "eating_disorder",
    "psychiatrist",
]
CREDENTIAL_FIELDS = ["wifi_code", "door_code", "alarm_codes", "gate_code", "access_code"]
ORDINARY_FIELDS = ["healthy_eating", "healthy_habits", "agreement_conditions", "pinyin_name"]


def ordinary_sentences() -> list[str]:
    path = Path(__file__).with_name("ordinary_sentences.txt")
    lines = (line.strip() for line in path.read_text("utf-8").splitlines())
    return [line for line in lines if line and not line.startswith("#")]


ORDINARY = ordinary_sentences()


@pytest.mark.parametrize(("text", "secret"), SECRETS, ids=lambda v: str(v)[:24])
def test_a_password_in_any_script_or_wording(text: str, secret: str) -> None:
    assert sensitive_text(text) == "secret"


@pytest.mark.parametrize(("text", "secret"), CREDENTIALS, ids=lambda v: str(v)[:24])
def test_a_credential_for_a_named_thing_without_the_word_password(text: str, secret: str) -> None:
    assert sensitive_text(text) == "secret"


@pytest.mark.parametrize("text", HEALTH)
def test_a_condition_or_medicine_without_a_verb_of_diagnosis(text: str) -> None:
    assert sensitive_text(text) == "medical"


@pytest.mark.parametrize("field", HEALTH_FIELDS)
def test_health_field_names_in_the_plural_and_run_together(field: str) -> None:
    assert sensitive_field(field) == "medical"


@pytest.mark.parametrize("field", CREDENTIAL_FIELDS)
def test_a_code_field_for_a_door_or_network_is_a_credential(field: str) -> None:
    assert sensitive_field(field) == "credential"


@pytest.mark.parametrize("field", ORDINARY_FIELDS)
def test_ordinary_field_names_still_pass(field: str) -> None:
    assert sensitive_field(field) is None


def test_the_ordinary_sentences_are_many_and_in_both_languages() -> None:
    assert len(ORDINARY) >= 45
    chinese = [s for s in ORDINARY if any("\u4e00" <= c <= "\u9fff" for c in s)]
    assert len(chinese) >= 15 and len(ORDINARY) - len(chinese) >= 15
    for named in ("she runs a pharmacy", "我最近压力很大睡不好", "1Password", "密码学"):
        assert named in ORDINARY
    assert "the wifi is slow" in ORDINARY


@pytest.mark.parametrize("text", ORDINARY)
def test_an_ordinary_sentence_is_no_false_alarm(text: str) -> None:
    assert sensitive_text(text) is None


def _not_echoed(secret: str, *outputs: str) -> None:
    for out in outputs:
        assert secret not in out
        assert secret not in json.dumps(out, ensure_ascii=True)


@pytest.mark.parametrize(("text", "secret"), SECRETS[:6] + CREDENTIALS[:3])
def test_the_cli_refuses_without_echo(enabled: Path, text: str, secret: str) -> None:
    r = apply(delta(field="fact", value=text))
    assert r.error is not None and r.error["code"] == "SENSITIVE_REJECTED"
    assert r.error["details"]["detector"] == "secret"
    _not_echoed(secret, r.stdout, r.stderr)
    assert ok("show")["count"] == 0


def test_the_cli_refuses_health_fields_and_values(enabled: Path) -> None:
    for d, detector in (
        (delta(field="diagnoses", value="ADHD"), "field:medical"),
        (delta(field="therapies", value="CBT weekly"), "field:medical"),
        (delta(field="fact", value="has ADHD"), "medical"),
        (delta(field="fact", value="她有抑郁症"), "medical"),
    ):
        r = apply(d)
        assert r.error is not None and r.error["code"] == "SENSITIVE_REJECTED", r.stdout
        assert r.error["details"]["detector"] == detector
    assert ok("show")["count"] == 0


def test_the_cli_stores_the_ordinary_sentences(enabled: Path) -> None:
    # In batches within the caps (20 deltas a batch, 15 rows a person).
    for start in range(0, len(ORDINARY), 15):
        part = ORDINARY[start : start + 15]
        r = apply(
            *(delta(subject=f"obj-{start}", field=f"f{i}", value=v) for i, v in enumerate(part))
        )
        assert r.error is None, r.stdout
    assert ok("show")["count"] == len(ORDINARY)


def test_the_library_refuses_without_echo(enabled: Path) -> None:
    from memory_store import MemoryStoreError

    store = MemoryStore(enabled)
    with pytest.raises(MemoryStoreError) as caught:
        store.apply(delta(field="fact", value="HR portal: Tulip#2291"))
    assert caught.value.code == "SENSITIVE_REJECTED"
    _not_echoed("Tulip#2291", str(caught.value), json.dumps(caught.value.details))


@pytest.mark.anyio
async def test_the_mcp_server_refuses_without_echo(enabled: Path) -> None:
    store = MemoryStore(enabled)
    store.hold()
    try:
        async with Client(build_server(store)) as client:
            for text, secret in (SECRETS[0], CREDENTIALS[0]):
                result: Any = await client.call_tool(
                    "memory_apply", {"deltas": [delta(field="fact", value=text)]}
                )
                payload = refused(result, "SENSITIVE_REJECTED")
                assert payload["details"]["detector"] == "secret"
                _not_echoed(secret, result.content[0].text)
            result = await client.call_tool(
                "memory_apply", {"deltas": [delta(field="diagnoses", value="x")]}
            )
            assert refused(result, "SENSITIVE_REJECTED")["details"]["detector"] == "field:medical"
    finally:
        store.release()

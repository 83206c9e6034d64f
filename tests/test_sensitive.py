"""Sensitive content is refused (contract §6): a positive corpus per detector, in Chinese
and English, must be refused without echoing the text; a negative corpus of ordinary
values must pass with zero false positives."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import apply, delta, fails, ok

from memory_store import policy
from memory_store.validation import sensitive_field, sensitive_text


def prc_id(first17: str) -> str:
    weights = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)
    total = sum(int(c) * w for c, w in zip(first17, weights, strict=True))
    return first17 + "10X98765432"[total % 11]


VALID_ID = prc_id("11010519491231002")
VALID_ID_X = next(
    i for i in (prc_id(f"44030119900101{n:03d}") for n in range(1000)) if i.endswith("X")
)

POSITIVE: dict[str, list[str]] = {
    "email": [
        "她的邮箱是 lily.chen@example.com 记得别发错",
        "mail me at john_doe+tag@mail.example.co.uk",
    ],
    "phone": [
        "她的手机 13812345678",
        "电话：138-1234-5678",
        "138 1234 5678 是他的新号",
        "+8613912345678",
        "call +44 20 7946 0958 tonight",
        "his number is +1 415 555 2671",
        "office (020) 7946 0958",
        "555-123-4567 is her work line",
    ],
    "prc_id": [f"身份证号 {VALID_ID}", f"her ID is {VALID_ID_X}", f"证件 {VALID_ID_X.lower()}"],
    "payment_card": [
        "卡号 4111 1111 1111 1111",
        "card 5500-0000-0000-0004 expires soon",
        "4012888888881881",
    ],
    "iban": ["IBAN GB82 WEST 1234 5698 7654 32", "DE89370400440532013000 是他的账户"],
    "api_key": [
        "key sk-proj-abcdEFGH1234ijklMNOP5678",
        "token ghp_abcdefghijklmnopqrstuvwxyz0123456789",
        "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz",
        "AWS 的 AKIAIOSFODNN7EXAMPLE",
        "slack xoxb-123456789012-abcdefghij",
        "密钥 9f8e7d6c5b4a39281706f5e4d3c2b1a0ZyXwVuTs",
    ],
    "url_credentials": [
        "https://admin:hunter2@example.com/db",
        "数据库 postgres://user:pa55@db.internal:5432/app",
    ],
}

NEGATIVE = [
    "2026-08-02 19:30",
    "2026-08-02T19:30:00+08:00",
    "晚上 7:30 见面",
    "20:00-22:00",
    "10:30–11:45",
    "她 28 岁",
    "25-30 岁之间",
    "385 元",
    "¥1,280",
    "$49.99",
    "价格 12.5 万",
    "85/100",
    "打分 9/10",
    "评分 4.5 星",
    "3 次",
    "第 3 次约会",
    "每周三次",
    "等了 45 分钟",
    "两个小时",
    "3-5 天",
    "INTJ",
    "ENFP-T",
    "地铁 10 号线",
    "2 号线转 4 号线",
    "房间 1203",
    "1203 室",
    "门牌 88 号",
    "2019 年认识",
    "2024",
    "2026/08/02",
    "12/25 圣诞节",
    "2026-08-02 到 2026-08-05",
    "v2.3.1",
    "Python 3.11.7",
    "iOS 17.2",
    "版本 1.0.0-beta.2",
    "身高 165cm",
    "体重 50kg",
    "100 米",
    "1,000,000 步",
    "航班 CA1234",
    "G1234 次高铁",
    "座位 12A",
    "1-2-3 木头人",
    "讨论了 api 设计",
    "她说 ok",
    "双方已确认进入排他约会",
    "We agreed to call every Sunday at 9pm",
    "她喜欢吃辣，不喜欢香菜",
    "turn:当前任务",
]

SENSITIVE_FIELDS = [
    ("password", "credential"),
    ("wifi_password", "credential"),
    ("api_token", "credential"),
    ("bank_account", "financial_account"),
    ("card_number", "financial_account"),
    ("creditcard", "financial_account"),
    ("id_card", "government_id"),
    ("passport", "government_id"),
    ("home_address", "home_address"),
    ("phone", "contact"),
    ("phonenumber", "contact"),
    ("email", "contact"),
    ("diagnosis", "medical"),
    ("medication", "medical"),
    ("sexual_preference", "sexual"),
    # Where someone lives stays refused in every spelling…
    ("address", "home_address"),
    ("addresses", "home_address"),
    ("street_address", "home_address"),
    ("mailing_address", "home_address"),
    ("work_address", "home_address"),
    ("postcode", "home_address"),
    ("zip_code", "home_address"),
    ("zipcode", "home_address"),
    ("home_addr", "home_address"),
    ("mobile_number", "contact"),
    ("qq_number", "contact"),
    ("wechat_id", "contact"),
    ("passport_no", "government_id"),
    ("cvv", "credential"),
    ("pin_code", "credential"),
]
ORDINARY_FIELDS = [
    *(f for fields in policy.CONVENTIONAL_FIELDS.values() for f in fields),
    "addressing_style",
    "street_food",
    "shopping",
    "discount",
    "pinyin_name",
    # …but how someone likes to be addressed (称呼) is not an address.
    "forms_of_address",
    "address_form",
    "preferred_address",
    "address_as",
    "form_of_address",
    "how_to_address",
    "nickname",
    "preferred_name",
    "addressed_as",
    "spinning_class",
]


@pytest.mark.parametrize(
    ("detector", "text"), [(d, t) for d, texts in POSITIVE.items() for t in texts]
)
def test_positive_corpus_is_detected(detector: str, text: str) -> None:
    assert sensitive_text(text) == detector


@pytest.mark.parametrize("text", NEGATIVE)
def test_negative_corpus_passes(text: str) -> None:
    assert sensitive_text(text) is None


def test_negative_corpus_is_large_enough() -> None:
    assert len(NEGATIVE) >= 40


def test_every_detector_has_positive_samples() -> None:
    assert set(POSITIVE) == set(policy.SENSITIVE_VALUE_DETECTORS)


def test_checksums_matter() -> None:
    assert sensitive_text(f"ID {VALID_ID[:-1]}{'0' if VALID_ID[-1] != '0' else '1'}") is None
    assert sensitive_text("card 4111 1111 1111 1112") is None  # fails Luhn
    assert sensitive_text("IBAN GB82 WEST 1234 5698 7654 33") is None  # fails mod-97


@pytest.mark.parametrize(("field", "detector"), SENSITIVE_FIELDS)
def test_sensitive_field_names(field: str, detector: str) -> None:
    assert sensitive_field(field) == detector


@pytest.mark.parametrize("field", ORDINARY_FIELDS)
def test_ordinary_field_names(field: str) -> None:
    assert sensitive_field(field) is None


# --- through the CLI ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("detector", "text"), [(d, t) for d, texts in POSITIVE.items() for t in texts[:2]]
)
def test_cli_refuses_without_echo(enabled: Path, detector: str, text: str) -> None:
    for d in (delta(field="fact", value=text), delta(field="fact", value="x", source_ref=text)):
        r = apply(d)
        assert r.error is not None and r.error["code"] == "SENSITIVE_REJECTED"
        assert r.code == 4
        assert r.error["details"]["detector"] == detector
        assert r.error["details"]["index"] == 0
        for part in (text, *text.split()):
            if len(part) >= 6 and any(c.isdigit() for c in part):
                assert part not in r.stdout and part not in r.stderr
    assert ok("show")["count"] == 0


def test_cli_refuses_sensitive_field_and_flag(enabled: Path) -> None:
    r = fails(
        "SENSITIVE_REJECTED", "apply", "--json", json.dumps(delta(field="home_address", value="x"))
    )
    assert r.error["details"]["detector"] == "field:home_address"
    r = fails(
        "SENSITIVE_REJECTED", "apply", "--json", json.dumps(delta(value="ok", sensitive=True))
    )
    assert r.error["details"]["detector"] == "sensitive_flag"


def test_cli_stores_a_form_of_address(enabled: Path) -> None:
    r = apply(delta(field="preferred_address", value="叫她 Lily 姐"))
    assert r.code == 0, r.stdout
    r = fails(
        "SENSITIVE_REJECTED", "apply", "--json", json.dumps(delta(field="address", value="x"))
    )
    assert r.error["details"]["detector"] == "field:home_address"


def test_cli_stores_the_negative_corpus(enabled: Path) -> None:
    for start in range(0, len(NEGATIVE), 15):
        chunk = NEGATIVE[start : start + 15]
        r = apply(
            *(delta(subject=f"obj-{start}", field=f"f{i}", value=v) for i, v in enumerate(chunk))
        )
        assert r.code == 0, r.stdout
    stored = {m["value"] for m in ok("show")["memories"]}
    assert stored == set(NEGATIVE)

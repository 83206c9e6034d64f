"""Sensitive content is refused (documentation/privacy.md#what-they-look-for, documentation/privacy.md#what-the-detectors-see): a positive corpus per detector, in
Chinese and English, plain and disguised, must be refused without echoing the text; a
negative corpus of ordinary values must pass with zero false positives."""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path

import pytest
from support import apply, delta, fails, ok, prc_id

from memory_store import policy
from memory_store.writes.validation import sensitive_field, sensitive_text


def luhn(partial: str) -> str:
    """``partial`` with the check digit that makes it pass Luhn."""
    for d in "0123456789":
        total = 0
        for i, c in enumerate(reversed(partial + d)):
            k = int(c) * (2 if i % 2 else 1)
            total += k - 9 if k > 9 else k
        if total % 10 == 0:
            return partial + d
    raise AssertionError


def wide(text: str) -> str:
    """The fullwidth form of the ASCII in ``text`` (１３８, ＠, ｓｋ－)."""
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text)


def split(text: str, sep: str, every: int = 1) -> str:
    """``text`` with ``sep`` (an invisible character, say) every ``every`` characters."""
    return sep.join(text[i : i + every] for i in range(0, len(text), every))


VALID_ID = prc_id("11010519491231002")
VALID_ID_X = next(
    i for i in (prc_id(f"44030119900101{n:03d}") for n in range(1000)) if i.endswith("X")
)
UNIONPAY = luhn("622202123456789012")

POSITIVE: dict[str, list[str]] = {
    "email": [
        "她的邮箱是 lily.chen@example.com 记得别发错",
        "mail me at john_doe+tag@mail.example.co.uk",
        "WeChat 不用，发邮件到 xiaoming@126.com",
        "ping me: alice.w at outlook.com",
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
        "+86 138 1234 5678",
        "138.1234.5678",
        "0755-86001234",
        "座机 010-12345678",
        "(0755) 8600 1234",
        "UK mobile 07700 900123",
        "+33 6 12 34 56 78",
        "+852 9123 4567",
        "客服 400-820-8820",
        "4008 123 123",
        "(415) 555-2671",
        "电话是 0755-8600-1234 转 808",
        "Tel:13812345678",
        "2026-04-26 138 1234 5678 联系她",
    ],
    "prc_id": [
        f"身份证号 {VALID_ID}",
        f"her ID is {VALID_ID_X}",
        f"证件 {VALID_ID_X.lower()}",
        f"身份证{VALID_ID}，别外传",
    ],
    "payment_card": [
        "卡号 4111 1111 1111 1111",
        "card 5500-0000-0000-0004 expires soon",
        "4012888888881881",
        "3782 822463 10005",
        f"{UNIONPAY[:4]} {UNIONPAY[4:8]} {UNIONPAY[8:12]} {UNIONPAY[12:16]} {UNIONPAY[16:]}",
        "5555 5555 5555 4444",
        "卡号是 4111 1111 1111 1111，有效期 12/28",
        "4111 1111 1111 1111 123",
        "4 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1",
    ],
    "iban": [
        "IBAN GB82 WEST 1234 5698 7654 32",
        "DE89370400440532013000 是他的账户",
        "FR14 2004 1010 0505 0001 3M02 606",
        "NL91ABNA0417164300",
        "ES91 2100 0418 4502 0005 1332",
    ],
    "api_key": [
        "key sk-proj-abcdEFGH1234ijklMNOP5678",
        "token ghp_abcdefghijklmnopqrstuvwxyz0123456789",
        "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz",
        "AWS 的 AKIAIOSFODNN7EXAMPLE",
        "slack xoxb-123456789012-abcdefghij",
        "密钥 9f8e7d6c5b4a39281706f5e4d3c2b1a0ZyXwVuTs",
        "AIzaSyD-1234567890abcdefghijklmnopqrstu",
        "glpat-abcdefghij1234567890",
    ],
    "url_credentials": [
        "https://admin:hunter2@example.com/db",
        "数据库 postgres://user:pa55@db.internal:5432/app",
        "ftp://bob:secret@files.example.org",
    ],
    # documentation/privacy.md#what-they-look-for: a password, PIN or passcode given in a value, whatever the field.
    "secret": [
        "password is Tulip#2026",
        "pw Tulip#2026",
        "密码是Tulip#2026",
        "her wifi password is tulipgarden",
        "PIN 4821",
        "pw: x9k2",
        "登录密码 Tulip2026",
        "口令 abc123",
        "passcode = 7788",
        "银行卡密码为 135790",
    ],
    # documentation/privacy.md#what-they-look-for: a diagnosis or a medicine under any field name.
    "medical": [
        "Generalized anxiety disorder, on sertraline",
        "diagnosed with bipolar disorder last year",
        "takes Lexapro every morning",
        "去年确诊了抑郁症",
        "在吃舍曲林",
        "她有焦虑症，在看医生",
    ],
}

# The same things written so that the detectors before documentation/privacy.md#what-the-detectors-see missed them
# (each one passed the original detectors): fullwidth characters, invisible
# characters, unusual spaces and dashes, country-code prefixes, spelled-out "at".
DISGUISED: dict[str, list[str]] = {
    "email": [
        "邮箱 lily.chen＠example.com",
        "lily(at)example.com",
        "wang.fang（at）163.com",
        "zhang.wei[at]qq.com",
        "写信给 li.na [at] example [dot] cn",
        "chen_jie2020(AT)outlook(DOT)com",
        "john.doe at example dot com",
        "lily\u200b@example.com",
        wide("lily@example.com"),
        "john.smith @ gmail.com",
        "anna.k 【at】 proton.me",
    ],
    "phone": [
        "手机 " + wide("13812345678"),
        "手机 " + split("13812345678", "\u200b", 4),
        "138\u20601234\u20605678",
        split("13812345678", "\u200c"),
        "他的号码 138\u00ad1234\u00ad5678",
        "0086 138 1234 5678",
        "0086-13812345678",
        "008613812345678",
        "86-138-1234-5678",
        "86 13812345678",
        "＋８６ １３９ １２３４ ５６７８",
        "138\u20101234\u20105678",
        "139－1234－5678",
        "138\u00a01234\u00a05678",
        "138\u30001234\u30005678",
        "手机号 1 3 8 1 2 3 4 5 6 7 8",
        "رقمه ١٣٨١٢٣٤٥٦٧٨",  # Arabic-Indic digits
        "फ़ोन १३८ १२३४ ५६७८",  # Devanagari digits
        wide("020 7946 0958"),
        "电话 138 1234 5678 2026",
    ],
    "prc_id": [
        f"身份证 {VALID_ID[:6]} {VALID_ID[6:14]} {VALID_ID[14:]}",
        f"身份证号：{wide(VALID_ID)}",
        f"ID {VALID_ID[:6]}-{VALID_ID[6:14]}-{VALID_ID[14:]}",
        f"证件 {split(VALID_ID, chr(0x200B), 4)}",
        f"证件 {VALID_ID_X[:-1]}Ｘ",
        f"{VALID_ID_X[:6]} {VALID_ID_X[6:10]} {VALID_ID_X[10:14]} {VALID_ID_X[14:]}",
        f"身份证 {VALID_ID[:6]} {VALID_ID[6:14]} {VALID_ID[14:]} 别外传",
    ],
    "payment_card": [
        "卡号 " + wide("4111 1111 1111 1111"),
        "卡号 " + wide("4111111111111111"),
        split("4111111111111111", "\u200b", 4),
        "4111.1111.1111.1111",
        "card ４０１２\u2060８８８８\u2060８８８８\u20601881",
        "4111\u00a01111\u00a01111\u00a01111",
        "卡号 4111 1111 1111 1111 2026年到期",
        "5500\u20110000\u20110000\u20110004",
    ],
    "iban": [
        "IBAN " + wide("DE89 3704 0044 0532 0130 00"),
        "GB82-WEST-1234-5698-7654-32",
        split("DE89370400440532013000", "\u200b", 4),
    ],
    "api_key": [
        wide("sk-proj-abcdEFGH1234ijklMNOP5678"),
        "ghp_abcdefghij\u200bklmnopqrstuvwxyz0123456789",
    ],
    "url_credentials": ["ｈｔｔｐｓ：／／admin:hunter2@example.com"],
    "secret": [
        "ＰＡＳＳＷＯＲＤ ＩＳ Ｔｕｌｉｐ＃２０２６",
        "密码：Tulip​#2026",
        "Password: Tulip#2026",
    ],
    "medical": [wide("sertraline") + " 50mg", "Generalized Anxiety Disorder"],
}

NEGATIVE = [
    # documentation/privacy.md#what-they-look-for: no secret is given, no diagnosis is named.
    "she forgot her password again",
    "her password is weak, I told her to change it",
    "密码忘了，只好重置",
    "她说密码是她的生日",
    "we pinned the map on the wall",
    "a pin from the concert",
    "she passed the exam in 2026",
    "cares a lot about mental health at work",
    "feels anxious before interviews",
    "最近压力大，有点焦虑",
    "went to a therapy dog event with her niece",
    "health-food shop owner",
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
    # Runs of dates and years: never one number (documentation/privacy.md#false-alarms-it-avoids).
    "出差 2026-04-26 2026-05-03",
    "2026-04-26 至 2026-05-03 出差",
    "假期 2026.10.01 2026.10.07",
    "2026/04/26 2026/05/03 2026/06/01",
    "纪念日 2019-05-20 2020-05-20 2021-05-20",
    "dates: 2026-04-26, 2026-05-03",
    "26.04.2026 03.05.2026",
    "2026-04-26 2026-05-03 2026-05-10 2026-05-17",
    "2026 0426 2026 0503",
    "20260426 20260503",
    "2019 2021 2023",
    "在一起的年份 2018 2019 2020 2021",
    "1998 2003 2008 2013 2018",
    "years 1999 2004 2010 2016",
    "2015-2018-2021-2024",
    "2019 年 2021 年 2023 年各去了一次日本",
    "we met in 2019, engaged 2021, married 2023",
    "生日 1995.07.14",
    "1995年7月14日",
    "Her birthday is 1995-07-14",
    "２０２６年４月２６日",
    "2019-2023 在北京",
    # Prices and amounts.
    "1200 1500 1800 元",
    "预算 1200 1500 1800 2000 元",
    "¥1200 1500 1800",
    "$1200 1500 1800 2000",
    "价格 3999 4999 5999 6999 元",
    "租金选项 1200 1500 1800 2000 2400",
    "rent 1500 1800 2100 2400 dollars",
    "USD 1200 1500 1800 2000",
    "月薪 15000 18000 22000 元",
    "prices 899 999 1299 1499",
    "售价 399 499 1299 1599",
    "房租 4500 元/月",
    "礼物预算 500-800 元",
    "每月 2000-3000 元零花钱",
    "¥88.00",
    "$1,299.99",
    "budget $1,200–$1,800",
    "€25 per person",
    "£1,200 deposit",
    "¥3,999 → ¥2,999",
    "costs $12.99/month",
    "99 元两件",
    "人均 150 元",
    "价格 １２００ 元",
    "price went from 1500 to 1800",
    "1 美元 = 7.2 人民币",
    "tickets 2 x $45",
    "phone bill 128 元/月",
    "存了 3 万块",
    "房价 5.8 万/平",
    "酒店订单 3 晚 1200 元",
    # Heights, weights, measures.
    "170 175 180 cm",
    "身高 170 175 180 185 cm",
    "身高 160 165 170 175 180 cm",
    "体重 50 52 55 kg",
    "165cm 50kg",
    "身高 １７０ｃｍ",
    "他 1.8 米，她 1.65 米",
    "she is 5'4\" and 120 lbs",
    "6 ft 2 in",
    "跑了 5.2 公里",
    "温度 26°C",
    "电量 85%",
    "体脂 18.5%",
    "鞋码 37 38",
    # Scores and counts.
    "考试 85 90 78 92 88",
    "三次打分 7 8 9",
    "评分 4.5/5",
    "得分 ８５／１００",
    "85/100 90/100",
    "rated it 4/5, then 9/10",
    "GPA 3.8",
    "雅思 7.5",
    "托福 105",
    "SAT 1200 1350 1480 1550",
    "top scores 98 95 93 90",
    "数学 135 语文 120 英语 142",
    "比分 3:2",
    "3-2 赢了",
    "score 21-19 21-17",
    "won 21-15 21-18 in badminton",
    "步数 12,345",
    "population 21,540,000",
    "1 2 3 4 5 6 7 8 9 10",
    "Lucky numbers 7 13 21 42",
    "favorite number 1729",
    "我爱你 520 1314",
    "5201314",
    "在一起 1000 天了",
    "电话打了 3 次没人接",
    # Times, durations, ages.
    "19:30 21:00",
    "19:30-21:00",
    "7:00 12:00 18:30",
    "0930 1130 1400 1630",
    "１９：３０ 见",
    "周六 14:00-16:00",
    "周一到周五 9:00-18:00 上班",
    "预约了 4 月 26 日 14:30 的牙医",
    "每天 8 小时",
    "2h 30min",
    "马拉松 4:05:33",
    "ran 10 km in 52:30",
    "she sleeps 23:30 to 7:30",
    "sleeps 7.5 hours",
    "from 9 to 5",
    "她 28 岁，他 30 岁",
    "ages 25 28 31",
    "认识 3 年 2 个月",
    "2024 年 3 月认识",
    # How someone likes to be addressed is not an address.
    "叫她 Lily 姐",
    "称呼：王老师",
    "喜欢别人叫她 Coco",
    "prefers to be addressed as Dr. Chen",
    "address her as Ms. Li",
    "he goes by Jim, never James",
    # Rooms, travel.
    "住 8 栋 1203 室",
    "Room 1203, Building 8",
    "会议室 A-302",
    "酒店 2108 房",
    "apartment 12B, 3rd floor",
    "Seat 23A",
    "CA1234 座位 32A",
    "登机口 C12",
    "MU5101 08:00 起飞",
    "高铁 G1234 14:05 出发 16:30 到",
    "D2281",
    "UA 857",
    "Flight UA857 departs 13:45",
    "航班 CA 1234 和 CA 1235",
    "bus 301 at 8:15",
    "快递单号 SF1234567890123",
    # Versions and other technical numbers.
    "iOS 17.2.1",
    "Chrome 124.0.6367.91",
    "build 20260426.1",
    "版本 10.0.19045.4291",
    "Node 20.11.1 和 npm 10.2.4",
    "kernel 6.8.0-45-generic",
    "iPhone 15 Pro Max 256GB",
    "IP 192.168.1.100",
    "ISBN 978-7-5327-4321-5",
    "coordinates 39.9042 116.4074",
    "经纬度 31.2304, 121.4737",
    "时间戳 1714112345",
    "邮编 100871",
    "车牌 京A·12345",
    # "at", "dot" and "email" in ordinary sentences; invisible characters in text.
    "meet at noon",
    "meet at the cafe at 7.30pm",
    "dinner at Haidilao.",
    "bought it at taobao.com",
    "she works at google.com",
    "Mr.Li at Starbucks.Then we walked home",
    "we laughed at his joke (at least I did)",
    "arrived at 9.15 and left at 10.30",
    "the dot com era",
    "她说 at 就是在的意思",
    "email 她不看，微信回复快",
    "她\u200b喜欢猫",
    "纪念日是 5 月 20 日",
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
    # documentation/privacy.md#what-they-look-for: health, in every spelling the assistant reached for.
    ("health", "medical"),
    ("health_condition", "medical"),
    ("mental_health", "medical"),
    ("condition_anxiety", "medical"),
    ("medicine", "medical"),
    ("therapy", "medical"),
    ("symptoms", "medical"),
    ("illness", "medical"),
    ("disease", "medical"),
    ("treatment", "medical"),
    ("chronic_conditions", "medical"),
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
    "healthy_eating",
    "agreement_conditions",
    "weather_condition",
    "fact_work_schedule",
]


@pytest.mark.parametrize(
    ("detector", "text"), [(d, t) for d, texts in POSITIVE.items() for t in texts]
)
def test_positive_corpus_is_detected(detector: str, text: str) -> None:
    assert sensitive_text(text) == detector


@pytest.mark.parametrize(
    ("detector", "text"), [(d, t) for d, texts in DISGUISED.items() for t in texts]
)
def test_disguised_corpus_is_detected(detector: str, text: str) -> None:
    assert sensitive_text(text) == detector


@pytest.mark.parametrize("text", NEGATIVE)
def test_negative_corpus_passes(text: str) -> None:
    assert sensitive_text(text) is None


def test_corpora_are_large_enough() -> None:
    positives = [t for corpus in (POSITIVE, DISGUISED) for texts in corpus.values() for t in texts]
    assert len(positives) >= 60 and len(set(positives)) == len(positives)
    assert len(NEGATIVE) >= 120 and len(set(NEGATIVE)) == len(NEGATIVE)


def test_every_detector_has_positive_samples() -> None:
    assert set(POSITIVE) == set(DISGUISED) == set(policy.SENSITIVE_VALUE_DETECTORS)


def test_checksums_matter() -> None:
    assert sensitive_text(f"ID {VALID_ID[:-1]}{'0' if VALID_ID[-1] != '0' else '1'}") is None
    assert sensitive_text("card 4111 1111 1111 1112") is None  # fails Luhn
    assert sensitive_text("IBAN GB82 WEST 1234 5698 7654 33") is None  # fails mod-97
    # …also once the formatting is seen through.
    wrong = VALID_ID[:-1] + ("0" if VALID_ID[-1] != "0" else "1")
    assert sensitive_text(f"ID {wrong[:6]} {wrong[6:14]} {wrong[14:]}") is None
    assert sensitive_text(wide("4111 1111 1111 1112")) is None
    assert sensitive_text(split("4111111111111112", "\u200b", 4)) is None


@pytest.mark.parametrize(
    "text",
    [
        "41111 1111 1111 111",  # Luhn-valid, but not grouped as cards are printed
        "4111-11111-1111-111",
        "1381 2345 678",  # not grouped as mobiles are written
        "12812345678",  # no mainland mobile starts with 12
        "020-0123 4567",  # a subscriber number never starts with 0
    ],
)
def test_shape_matters(text: str) -> None:
    assert sensitive_text(text) is None


@pytest.mark.parametrize(("field", "detector"), SENSITIVE_FIELDS)
def test_sensitive_field_names(field: str, detector: str) -> None:
    assert sensitive_field(field) == detector


@pytest.mark.parametrize("field", ORDINARY_FIELDS)
def test_ordinary_field_names(field: str) -> None:
    assert sensitive_field(field) is None


# --- through the CLI ------------------------------------------------------------------


def assert_not_echoed(text: str, *outputs: str) -> None:
    """Neither the text, nor a word of it that holds a digit or an address, nor its
    digits, appear in the outputs — as written or once normalized."""
    seen = unicodedata.normalize("NFKC", text)
    seen = "".join(c for c in seen if unicodedata.category(c) != "Cf")
    digits = "".join(c for c in seen if c.isdigit())
    for part in (text, seen, digits, *text.split(), *seen.split()):
        if len(part) >= 6 and any(c.isdigit() or c in "@.:" for c in part):
            for out in outputs:
                assert part not in out


def assert_refused(text: str, detector: str) -> None:
    for d in (delta(field="fact", value=text), delta(field="fact", value="x", source_ref=text)):
        r = apply(d)
        assert r.error is not None and r.error["code"] == "SENSITIVE_REJECTED"
        assert r.code == 4
        assert r.error["details"]["detector"] == detector
        assert r.error["details"]["index"] == 0
        assert_not_echoed(text, r.stdout, r.stderr)
    assert ok("show")["count"] == 0


@pytest.mark.parametrize(
    ("detector", "text"), [(d, t) for d, texts in POSITIVE.items() for t in texts[:2]]
)
def test_cli_refuses_without_echo(enabled: Path, detector: str, text: str) -> None:
    assert_refused(text, detector)


# One of each disguise through the real CLI; the rest of DISGUISED is checked above.
CLI_DISGUISED = [
    ("email", "邮箱 lily.chen＠example.com"),
    ("email", "lily(at)example.com"),
    ("email", "wang.fang（at）163.com"),
    ("email", "zhang.wei[at]qq.com"),
    ("phone", "手机 " + wide("13812345678")),
    ("phone", "手机 " + split("13812345678", "\u200b", 4)),
    ("phone", "0086 138 1234 5678"),
    ("phone", "86-138-1234-5678"),
    ("phone", "＋８６ １３９ １２３４ ５６７８"),
    ("prc_id", f"身份证 {VALID_ID[:6]} {VALID_ID[6:14]} {VALID_ID[14:]}"),
    ("prc_id", f"身份证号：{wide(VALID_ID)}"),
    ("payment_card", "卡号 " + wide("4111 1111 1111 1111")),
    ("payment_card", split("4111111111111111", "\u200b", 4)),
    ("iban", "IBAN " + wide("DE89 3704 0044 0532 0130 00")),
    ("api_key", wide("sk-proj-abcdEFGH1234ijklMNOP5678")),
    ("url_credentials", "ｈｔｔｐｓ：／／admin:hunter2@example.com"),
    ("secret", "密码：Tulip​#2026"),
    ("medical", "Generalized Anxiety Disorder"),
]


def test_cli_subset_covers_every_disguise() -> None:
    assert set(CLI_DISGUISED) <= {(d, t) for d, texts in DISGUISED.items() for t in texts}
    assert {d for d, _ in CLI_DISGUISED} == set(policy.SENSITIVE_VALUE_DETECTORS)


@pytest.mark.parametrize(("detector", "text"), CLI_DISGUISED)
def test_cli_refuses_disguised_without_echo(enabled: Path, detector: str, text: str) -> None:
    assert_refused(text, detector)


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
    # The corpus is larger than a store may hold (200 rows): store it in parts.
    per_store = 180
    for part in range(0, len(NEGATIVE), per_store):
        values = NEGATIVE[part : part + per_store]
        for start in range(0, len(values), 15):
            chunk = values[start : start + 15]
            r = apply(
                *(
                    delta(subject=f"obj-{start}", field=f"f{i}", value=v)
                    for i, v in enumerate(chunk)
                )
            )
            assert r.code == 0, r.stdout
        stored = {m["value"] for m in ok("show")["memories"]}
        assert stored == set(values)
        ok("clear", "--confirm")


@pytest.mark.parametrize(
    "field", ["health_condition", "mental_health", "health", "condition_anxiety"]
)
def test_cli_refuses_health_under_any_health_field(enabled: Path, field: str) -> None:
    value = "Generalized anxiety disorder, on sertraline"
    r = fails("SENSITIVE_REJECTED", "apply", "--json", json.dumps(delta(field=field, value=value)))
    assert r.error["details"]["detector"] == "field:medical"
    assert "sertraline" not in r.stdout + r.stderr
    r = fails("SENSITIVE_REJECTED", "apply", "--json", json.dumps(delta(field="fact", value=value)))
    assert r.error["details"]["detector"] == "medical"
    assert "sertraline" not in r.stdout + r.stderr
    assert ok("show")["count"] == 0


def test_cli_stores_a_password_mentioned_without_the_secret(enabled: Path) -> None:
    for text in ("password is Tulip#2026", "pw Tulip#2026", "密码是Tulip#2026"):
        r = fails(
            "SENSITIVE_REJECTED", "apply", "--json", json.dumps(delta(field="note", value=text))
        )
        assert r.error["details"]["detector"] == "secret"
        assert "Tulip" not in r.stdout + r.stderr
    assert apply(delta(field="note", value="she forgot her password again")).code == 0

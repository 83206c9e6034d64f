"""The page's words in one language: field names a person reads, times in words, and which
language to speak.

A row's field is a key the assistant chose (``job``, ``fact_job``, ``goal_work``); a person
reads "job", "goal: work", or in Chinese "工作". ``FIELD_NAMES`` names the fields the
assistant is taught to use (``SKILL.md``) in both languages, as data; any other name is made
readable from its words. Dates read as a person says them ("since March 2025",
"2025年3月起"); the exact stored times stay in each row's details (``documentation/page.md``).
Nothing here reads the store or writes markup.
"""

from __future__ import annotations

import os
import re

TYPE_CHECKING = False  # typing costs a few ms to import; the CLI's start-up cannot afford it
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

LANGS = ("en", "zh")

# The known fields' names, (Chinese, English).
FIELD_NAMES: dict[str, tuple[str, str]] = {
    "display_label": ("名字", "name"),
    "name": ("名字", "name"),
    "job": ("工作", "job"),
    "occupation": ("职业", "occupation"),
    "role": ("身份", "role"),
    "work": ("工作", "work"),
    "company": ("公司", "company"),
    "school": ("学校", "school"),
    "city": ("城市", "city"),
    "location": ("所在地", "location"),
    "hometown": ("家乡", "hometown"),
    "age": ("年龄", "age"),
    "birthday": ("生日", "birthday"),
    "family": ("家人", "family"),
    "pet": ("宠物", "pet"),
    "mbti": ("MBTI", "MBTI"),
    "likes": ("喜欢", "likes"),
    "dislikes": ("不喜欢", "dislikes"),
    "hobby": ("爱好", "hobby"),
    "hobbies": ("爱好", "hobbies"),
    "food": ("口味", "food"),
    "preference": ("偏好", "preference"),
    "goal": ("目标", "goal"),
    "boundary": ("界限", "boundary"),
    "communication_style": ("沟通方式", "communication style"),
    "love_language": ("爱的语言", "love language"),
    "stage": ("阶段", "stage"),
    "status": ("状态", "status"),
    "agreement": ("约定", "agreement"),
    "constraint": ("顾虑", "constraint"),
    "next_goal": ("下一步", "next goal"),
    "shared_project": ("一起做的事", "shared project"),
    "interest_level": ("兴趣程度", "interest level"),
    "work_stress": ("工作压力", "work stress"),
    "met": ("认识", "how you met"),
    "first_meeting": ("第一次见面", "first meeting"),
    "first_date": ("第一次约会", "first date"),
    "conflict": ("争吵", "quarrel"),
    "repair": ("和好", "making up"),
    "promise_kept": ("守约", "a promise kept"),
    "invitation": ("邀请", "invitation"),
    "gift": ("礼物", "gift"),
    "trip": ("旅行", "trip"),
    "planned_activity": ("计划的活动", "planned activity"),
    "planned_dinner": ("约好的晚饭", "planned dinner"),
    "attachment_style": ("依恋类型", "attachment style"),
    "intent": ("意图", "intent"),
    "mood": ("情绪", "mood"),
}
# A first word that only says what kind of key it is ("fact_job" is the job).
_DROPPED = {"fact", "facts", "info", "object", "user", "profile"}
# A first word that names a kind of thing ("goal_work" is a goal: work).
_KINDS = {
    "goal": ("目标", "goal"),
    "plan": ("计划", "plan"),
    "boundary": ("界限", "boundary"),
    "preference": ("偏好", "preference"),
    "likes": ("喜欢", "likes"),
    "dislikes": ("不喜欢", "dislikes"),
    "habit": ("习惯", "habit"),
    "family": ("家人", "family"),
}


def pick(lang: str, zh: str, en: str) -> str:
    return zh if lang == "zh" else en


def field_name(field: Any, lang: str) -> str:
    """``field`` as a person reads it: the table's name, else its words ("goal: work")."""
    text = "" if field is None else str(field)
    if text in FIELD_NAMES:
        return pick(lang, *FIELD_NAMES[text])
    words = [w for w in re.split(r"[_.\-\s]+", text) if w]
    if len(words) > 1 and words[0].lower() in _DROPPED:
        words = words[1:]
        rest = "_".join(words)
        if rest in FIELD_NAMES:
            return pick(lang, *FIELD_NAMES[rest])
    if len(words) > 1 and words[0].lower() in _KINDS:
        kind = pick(lang, *_KINDS[words[0].lower()])
        rest = "_".join(words[1:])
        tail = pick(lang, *FIELD_NAMES[rest]) if rest in FIELD_NAMES else " ".join(words[1:])
        return f"{kind}：{tail}" if lang == "zh" else f"{kind}: {tail}"
    return " ".join(words) or text


MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
_DATE_RE = re.compile(r"(\d{4})(?:-(\d\d)(?:-(\d\d))?)?")


def month(date: Any, lang: str) -> str:
    """A date as its month in words: "March 2025", "2025年3月"; as stored if it is none."""
    m = _DATE_RE.match(date) if isinstance(date, str) else None
    if m is None or (m[2] and not 1 <= int(m[2]) <= 12):
        return "" if date is None else str(date)
    if not m[2]:
        return f"{m[1]}年" if lang == "zh" else m[1]
    return f"{m[1]}年{int(m[2])}月" if lang == "zh" else f"{MONTHS[int(m[2]) - 1]} {m[1]}"


def day(date: Any, lang: str) -> str:
    """A date as a day in words: "3 May 2026", "2026年5月3日"; coarser dates as ``month``."""
    m = _DATE_RE.match(date) if isinstance(date, str) else None
    if m is None or not m[3] or not 1 <= int(m[2]) <= 12:
        return month(date, lang)
    if lang == "zh":
        return f"{m[1]}年{int(m[2])}月{int(m[3])}日"
    return f"{int(m[3])} {MONTHS[int(m[2]) - 1]} {m[1]}"


def since(date: Any, lang: str) -> str:
    return f"{month(date, lang)}起" if lang == "zh" else f"since {month(date, lang)}"


def until(date: Any, lang: str) -> str:
    return f"到{month(date, lang)}为止" if lang == "zh" else f"until {month(date, lang)}"


def from_accept_language(header: Any) -> str | None:
    """The language an ``Accept-Language`` header prefers among Chinese and English."""
    best: tuple[float, int, str] | None = None
    for place, part in enumerate(str(header or "").split(",")):
        tag, _, params = part.strip().partition(";")
        lang = tag.strip().lower()[:2]
        if lang not in LANGS:
            continue
        weight = 1.0
        q = params.strip()
        if q.startswith("q="):
            try:
                weight = float(q[2:])
            except ValueError:
                weight = 0.0
        if weight > 0 and (best is None or (-weight, place) < (-best[0], best[1])):
            best = (weight, place, lang)
    return None if best is None else best[2]


def speaking(chosen: Any, kept: str | None, accept: Any) -> str | None:
    """The served page's one language: ``chosen`` on the page (``?lang=``) when it is one,
    else the one ``kept`` from an earlier choice, else the browser's ``Accept-Language``
    (None when all three are absent, where a caller wants to keep none)."""
    if chosen in LANGS:
        return str(chosen)
    if kept in LANGS:
        return kept
    return from_accept_language(accept) if accept is not None else None


def from_locale(environ: Mapping[str, str] | None = None) -> str:
    """The language of this computer's locale (``LC_ALL``, ``LC_MESSAGES``, ``LANG``, the
    first one set, as the C library reads them): Chinese for ``zh…``, else English."""
    env = os.environ if environ is None else environ
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(name)
        if value:
            return "zh" if value.lower().startswith("zh") else "en"
    return "en"

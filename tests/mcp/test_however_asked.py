"""A time named however it is asked (documentation/time.md, "However it is asked") through
the MCP SDK's own client, in process: ``memory_context`` and ``memory_search`` answer a
question that names its time by an event, another value's period, an order word, the
user's own life or two events, in English and in Chinese, with no time cue word, and say
in ``data.as_of`` what they understood. No new argument: the question is enough.
"""

from __future__ import annotations

from typing import Any

import pytest
from mcp import Client
from support import MODES, call, data_of, delta, ok, put

from memory_store.mcp import build_server

pytestmark = pytest.mark.anyio

S = "obj-ln"


@pytest.fixture
def lina(store: Any) -> Any:
    """Lina: a job that changed twice, homes in 杭州 and then 上海, hobbies, stages; two
    events (a trip, a breakup and making up); the user's own job changed."""
    ok("enable", "--confirm")
    put(delta(subject=S, value="Lina（读书会认识）"))
    for day, field, value in (
        ("2024-01-10", "job", "Nurse at a children's hospital"),
        ("2024-01-10", "city", "住在杭州滨江"),
        ("2024-01-10", "hobby", "Yoga on Saturday mornings"),
        ("2024-08-01", "job", "Clinical researcher at a drug company"),
        ("2024-11-01", "hobby", "Scuba diving at Qiandao Lake"),
        ("2025-03-01", "city", "搬到上海静安"),
        ("2025-06-01", "job", "Runs her own bakery in Shanghai"),
        ("2025-07-01", "hobby", "Ultimate frisbee on Sundays"),
    ):
        put(delta(subject=S, field=field, value=value, occurred_at=day))
    for day, value in (
        ("2024-01-10", "读书会上认识，刚加微信"),
        ("2024-04-01", "暧昧"),
        ("2024-06-01", "正式在一起"),
    ):
        put(delta("relationship", subject=S, field="stage", value=value, occurred_at=day))
    for day, field, value in (
        ("2024-10-02", "trip", "国庆一起去大理玩了五天"),
        ("2024-12-01", "breakup", "分手：电话里大吵一架"),
        ("2025-02-01", "reconcile", "复合：她从杭州来看我"),
    ):
        put(delta("event", subject=S, field=field, value=value, occurred_at=day))
    put(delta("user", field="job", value="Junior designer at a studio", occurred_at="2023-09-01"))
    put(delta("user", field="job", value="Promoted to art director", occurred_at="2024-09-15"))
    return store


async def _ask(client: Any, query: str) -> dict[str, Any]:
    return data_of(await call(client, "memory_context", subject_id=S, max_chars=1000, query=query))


@pytest.mark.parametrize("mode", MODES)
async def test_every_way_of_naming_a_time(lina: Any, mode: str) -> None:
    async with Client(build_server(lina), mode=mode) as client:
        trip = await _ask(client, "国庆我们去大理那一趟，Lina 在做什么工作？")
        period = await _ask(client, "In the months Lina lived in 杭州滨江, what was her hobby?")
        first = await _ask(client, "我们最开始是什么关系？")
        mine = await _ask(client, "The week I got promoted to art director, what was Lina's job?")
        between = await _ask(client, "分手到复合中间那几个月，Lina 有什么爱好？")
        now = await _ask(client, "What does Lina do?")
        found = data_of(
            await call(client, "memory_search", query="国庆我们去大理那一趟，Lina 的工作？")
        )
    assert trip["memories"][1]["value"] == "Clinical researcher at a drug company"
    assert trip["as_of"]["date"] == "2024-10-02"
    # 滨江: 2024-01-10 to 2025-03-01; yoga held ten months of it, diving four
    assert period["memories"][1]["value"] == "Yoga on Saturday mornings"
    assert (period["as_of"]["from"], period["as_of"]["until"]) == ("2024-01-10", "2025-03-01")
    assert first["memories"][1]["value"] == "读书会上认识，刚加微信"
    assert first["memories"][1]["until"] == "2024-04-01"
    assert mine["memories"][1]["value"] == "Clinical researcher at a drug company"
    assert mine["as_of"]["date"] == "2024-09-15"
    assert between["memories"][1]["value"] == "Scuba diving at Qiandao Lake"
    assert (between["as_of"]["from"], between["as_of"]["until"]) == ("2024-12-01", "2025-02-01")
    assert now["as_of"] is None
    assert "Runs her own bakery in Shanghai" in [m["value"] for m in now["memories"][:3]]
    assert found["as_of"]["date"] == "2024-10-02"
    assert found["memories"][0]["value"] == "Clinical researcher at a drug company"

"""Render references/recall-aliases.md from the alias table in memory_store/recall/aliases.py.

    python scripts/gen_recall_aliases.py            # rewrite references/recall-aliases.md
    python scripts/gen_recall_aliases.py --check    # exit 1 if the file is stale

tests/recall/test_relevance.py checks that the file is current.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUTPUT = ROOT / "references" / "recall-aliases.md"

HEAD = """\
# Recall aliases

`context --query` ranks memories by the words they share with the user's
question (documentation/recall.md#the-method; how: `documentation/recall.md`). Words alone miss a
question asked in other words — "你男朋友是干什么的？" shares no word with a memory
in the field `fact_job` that says "在医院当护士", and "Is she allergic to
anything?" none with "对花粉过敏". This table closes part of that gap: each
row is one everyday concept of the domain, with the words that name it in
English and in Chinese.

The table widens the words of the question, not the reach of a field (documentation/recall.md#the-alias-table-widens-the-question-not-a-field, "search is precise"). A group's **heads** name the concept itself (job,
工作; hobby, 爱好); its **members**, in clusters of synonyms and translations,
are its kinds or instances (hike, 爬山, 徒步; piano, 钢琴):

- a question holding a head asks about the concept: it shares one more term
  with every memory whose value — or, for a hypothesis, evidence — holds any
  term of the group, heads or members, and with every memory whose field
  name does ("她做什么工作？" finds `fact_job`; "what are her hobbies?" finds
  "plays the piano");
- a question holding only a member is widened to that member's cluster and to
  the group's heads, in values ("can he eat sashimi?" finds "对海鲜过敏"); a
  field name counts only when it names the cluster. "Who likes hiking?" does
  not find every memory in `hobby`, nor "plays the piano".

The shared term is weighted like a word, by how rare it is among the rows.

How terms match:

- **English words** are compared after the same folding as every English word
  (lowercase, plural and -ed/-ing endings, a five-letter prefix): `sibling`
  matches "siblings", `cook` matches "cooking".
- **English phrases** match the same words in sequence, apart by spaces or
  hyphens: `self care` matches "self-care".
- **Chinese terms** match as written anywhere in the text, and also with the
  particle 了 inside, as separable verbs take it: `道歉` matches "道了歉".

What belongs here: a general concept that any conversation of the domain may
need — the field vocabulary of `memory-rules.md` (jobs, family, the stages of
a relationship, conflicts and repairs, plans, hobbies, pets, travel…) — never
a word added because one test question needs it. Words that mean many things
("look", "run", "花") stay out: they would join memories that have nothing in
common. A term may sit in two groups when it names both (妈妈: family and
parents).

To extend it: edit `memory_store/recall/aliases.py` (its docstring states the rules
a test enforces), run `python scripts/gen_recall_aliases.py` to rewrite this
file, and measure with the recall benchmark (`../shared/recall/`, both
`--split dev` and `--split zh`): a group that lifts nothing there is probably
too narrow, one that lowers a figure too broad.

"""


def members_text(english: str, chinese: str) -> str:
    """("cat kitten; milk_tea", "猫; 奶茶") -> "cat, kitten, 猫 · milk tea, 奶茶"."""
    if not english:
        return ""
    clusters = zip(english.split("; "), chinese.split("; "), strict=True)
    return " · ".join(
        ", ".join(t.replace("_", " ") for t in f"{en} {zh}".split() if t != "-")
        for en, zh in clusters
    )


def render() -> str:
    sys.path.insert(0, str(ROOT))
    from memory_store.recall.aliases import GROUPS, MEMBERS

    lines = [
        HEAD.rstrip("\n"),
        "",
        f"{len(GROUPS)} groups.",
        "",
        "| group | heads | members |",
        "|---|---|---|",
    ]
    for name, words, phrases, chinese in GROUPS:
        heads = words.split() + [p for p in phrases.split("; ") if p] + chinese.split()
        lines.append(
            f"| `{name}` | {', '.join(heads)} | {members_text(*MEMBERS.get(name, ('', '')))} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    text = render()
    if "--check" in argv:
        current = OUTPUT.read_text(encoding="utf-8") if OUTPUT.exists() else ""
        if current != text:
            print(f"{OUTPUT} is stale: run python scripts/gen_recall_aliases.py")
            return 1
        return 0
    OUTPUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUTPUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

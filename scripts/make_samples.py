"""Write the small SAMPLE data sets (invented debates, in the published formats) under
debench/data/samples/, so every task runs offline. Rerun after editing the texts below.

    python scripts/make_samples.py
"""

from __future__ import annotations

import csv
import io
import zipfile
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent / "debench" / "data" / "samples"
NOTE = (
    "# SAMPLE data — invented for debench\n\nShort debates written for debench so that `debench eval` runs offline. "
    "The format is exactly the published one, but the debates, names and labels are made up: results on it "
    'are marked `"is_sample": true` and say nothing about any judge.\n'
)

ONE_V_ONE = [
    (
        "0001",
        "Cities should make public transport free",
        "rosa",
        "tom",
        [
            (
                "rosa",
                "Free transit pays for itself in cleaner air and fewer traffic deaths. Tallinn removed fares and "
                "ridership rose while car trips fell.",
            ),
            (
                "tom",
                "Tallinn's ridership gain came mostly from walkers, not drivers. Fares fund maintenance; remove "
                "them and service quality drops.",
            ),
            (
                "rosa",
                "Maintenance can be funded by congestion charges, which also push drivers onto buses. Quality fell "
                "nowhere that planned the funding.",
            ),
            (
                "tom",
                "Congestion charges are a new tax on the poorest commuters who cannot switch. Cheaper "
                "targeted passes help them more.",
            ),
        ],
        {"general": 0.0, "argument": 0.0, "source": 0.5, "language": 0.5},
    ),
    (
        "0002",
        "Homework should be abolished in primary schools",
        "lee",
        "ana",
        [
            ("lee", "homework is bad kids hate it"),
            (
                "ana",
                "Meta-analyses by Cooper (2006) find little benefit of homework for young children, but some for "
                "reading practice at home. A ban throws out the useful part.",
            ),
            ("lee", "kids should play"),
            (
                "ana",
                "Play matters, and light reading homework takes ten minutes. My opponent has not "
                "answered the evidence on reading.",
            ),
        ],
        {"general": 1.0, "argument": 1.0, "source": 1.0, "language": 1.0},
    ),
    (
        "0003",
        "Zoos should be phased out",
        "kim",
        "sam",
        [
            (
                "kim",
                "Large animals such as elephants live shorter lives in zoos than in protected reserves; a "
                "phase-out moves them to sanctuaries.",
            ),
            (
                "sam",
                "Zoos fund conservation and breeding programmes that saved species such as the "
                "Arabian oryx. Reform them instead.",
            ),
        ],
        {"general": 0.5, "argument": 0.5, "source": 0.5, "language": 0.5},
    ),
    (
        "0004",
        "Voting should be compulsory",
        "ivo",
        "mei",
        [
            (
                "ivo",
                "Compulsory voting in Australia keeps turnout above 90% and makes parties court every "
                "citizen, not only the loyal ones.",
            ),
            (
                "mei",
                "Forcing people to vote adds uninformed, random ballots; the right not to "
                "vote is part of free expression.",
            ),
            (
                "ivo",
                "Ballots can be spoiled, so expression is kept; and evidence shows informed voting "
                "rises once people must take part.",
            ),
            ("mei", "That evidence is thin. Fines for not voting fall hardest on people who already feel excluded."),
            (
                "ivo",
                "Fines are tiny and waived with reason. Unequal turnout is the real exclusion, and "
                "my opponent leaves it standing.",
            ),
            ("mei", "Better to make voting easy — holidays, postal ballots — than compulsory."),
        ],
        {"general": 0.0, "argument": 0.0, "source": 0.5, "language": 0.5},
    ),
]

BP = [
    (
        "001",
        "Sample Open Final",
        "This House would ban advertising aimed at children.",
        ["CG"],
        [
            "OG: Children cannot tell persuasion from information; a ban protects them the way we "
            "protect them from other exploitation.",
            "OO: Bans are unenforceable online and push marketing into influencer content that is harder to see. "
            "Parents, not states, should decide.",
            "OG: Influencer content can be covered by the same rule, as several countries already do. Parents "
            "cannot supervise every screen.",
            "OO: The cost falls on children's media, which advertising funds. Fewer good "
            "programmes is the real effect.",
            "CG: Extension: the harm is not one purchase but lifelong habits — sugar, gambling-like loot boxes. The "
            "ban changes the norms companies design for.",
            "CO: Extension: a ban entrenches the biggest brands, which need no advertising; small firms lose "
            "their only way to reach families.",
            "CG: Whip: OO never showed that funding outweighs protection; CO's market point ignores that the brands "
            "most advertised are already the biggest.",
            "CO: Whip: Government assumed enforcement works; we showed why it fails and who pays for it.",
        ],
    ),
    (
        "002",
        "Sample Open Semifinal",
        "This House believes that cities should ban private cars from their centres.",
        ["OO", "CO"],
        [
            "OG: Car-free centres cut pollution and deaths, and shops gain footfall.",
            "OO: Shops in many towns lost trade after pedestrianisation when public transport was weak; the ban "
            "must follow transit, not lead it.",
            "OG: Then phase it in; the principle stands.",
            "OO: A phased ban is not this motion. Disabled residents and night workers lose access.",
            "CG: Extension on climate targets: cities cannot meet them without cutting car trips.",
            "CO: Extension: targets are better met by pricing, which keeps access for those who need "
            "it and raises money for transit.",
            "CG: Whip summary of Government's case.",
            "CO: Whip: pricing beats bans on every metric raised in this debate.",
        ],
    ),
]
TEAM_FULL = {
    "OG": "Opening_Government_(OG)",
    "OO": "Opening_Opposition_(OO)",
    "CG": "Closing_Government_(CG)",
    "CO": "Closing_Opposition_(CO)",
}
BP_ORDER = ["OG", "OO", "OG", "OO", "CG", "CO", "CG", "CO"]

DEBATEBENCH = [
    (
        "Sample Open 2026 Round 1",
        {"PM": 76, "LO": 74, "DPM": 75, "DLO": 73, "MG": 78, "MO": 75, "GW": 77, "OW": 72},
        ["CG", "OG", "CO", "OO"],
        "This house would make voting compulsory.",
    ),
    (
        "Sample Open 2026 Round 2",
        {"PM": 73, "LO": 77, "DPM": 72, "DLO": 76, "MG": 74, "MO": 79, "GW": 73, "OW": 78},
        ["CO", "OO", "CG", "OG"],
        "This house would abolish homework in primary schools.",
    ),
]


def write_debateart(root: Path) -> None:
    for sub in ("motion", "speech", "gold"):
        (root / sub).mkdir(parents=True, exist_ok=True)
    final, dims, listing = [], [], []
    for num, motion, pro, con, speeches, labels in ONE_V_ONE:
        doc = f"debateart_{num}"
        (root / "motion" / f"{doc}.yml").write_text(
            yaml.safe_dump(
                {
                    "motion": motion,
                    "pro_side": [{"name": pro}],
                    "con_side": [{"name": con}],
                    "info_slide": "No information",
                    "speech_order": [s[0] for s in speeches],
                },
                sort_keys=False,
            )
        )
        (root / "speech" / f"{doc}.yml").write_text(
            yaml.safe_dump(
                [{"debater_name": n, "content": t} for n, t in speeches], sort_keys=False, allow_unicode=True
            )
        )
        meta = [int(num), len(speeches) > 4, False, 3]
        final.append([*meta, labels["general"]])
        dims += [[*meta, d, labels[d]] for d in ("argument", "source", "language")]
        listing.append(f"{doc}\t{num}: {motion}")
    for name, header, rows in (
        ("final.csv", ["dart_id", "is_many_round", "is_long", "vote_count", "label"], final),
        ("dimension.csv", ["dart_id", "is_many_round", "is_long", "vote_count", "dimension", "label"], dims),
    ):
        with open(root / "gold" / name, "w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(header)
            w.writerows(rows)
    (root / "motion" / "motion_list.txt").write_text("\n".join(listing) + "\n")
    (root / "README.md").write_text(NOTE)


def write_bp(root: Path) -> None:
    for sub in ("motion", "speech", "gold"):
        (root / sub).mkdir(parents=True, exist_ok=True)
    gold, listing = [], []
    for num, rnd, motion, winners, texts in BP:
        doc = f"bp_{num}"
        (root / "motion" / f"{doc}.yml").write_text(
            yaml.safe_dump(
                {
                    "motion": motion,
                    "pro_speakers": [{"name": TEAM_FULL["OG"]}, {"name": TEAM_FULL["CG"]}],
                    "con_speakers": [{"name": TEAM_FULL["OO"]}, {"name": TEAM_FULL["CO"]}],
                    "info_slide": "No information.",
                    "speech_order": [TEAM_FULL[t] for t in BP_ORDER],
                },
                sort_keys=False,
            )
        )
        (root / "speech" / f"{doc}.yml").write_text(
            yaml.safe_dump(
                [
                    {"speaker_name": TEAM_FULL[t], "content": x.split(": ", 1)[1]}
                    for t, x in zip(BP_ORDER, texts, strict=True)
                ],
                sort_keys=False,
            )
        )
        gold.append([int(num), ",".join(winners)])
        listing.append(f"{doc}\t{rnd}: {motion}")
    with open(root / "gold" / "gold.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["bp_id", "label"])
        w.writerows(gold)
    (root / "motion" / "motion_list.txt").write_text("\n".join(listing) + "\n")
    (root / "README.md").write_text(NOTE)


def debatebench_transcript(motion: str) -> str:
    roles = ["pm", "lo", "dpm", "dlo", "mg", "mo", "gw", "ow"]
    parts = [f"Motion: {motion}", ""]
    for r in roles:
        poi = (
            "\n<poi>Does your model not exclude the people most affected?</poi>\nNo, and I will explain why.\n"
            if r in ("dpm", "mo")
            else ""
        )
        parts.append(
            f"<{r}>\nThis is the {r.upper()} speech of a sample debate: a claim, a reason and an example.{poi}\n</{r}>"
        )
    return "\n".join(parts) + "\n"


def write_debatebench(root: Path) -> None:
    from openpyxl import Workbook

    root.mkdir(parents=True, exist_ok=True)
    wb = Workbook()
    ws = wb.active
    ws.append(["Tourney", "PM", "LO", "DPM", "DLO", "MG", "MO", "GW", "OW", "First", "Second", "Third", "Fourth"])
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, scores, ranking, motion in DEBATEBENCH:
            ws.append([name, *scores.values(), *ranking])
            info = zipfile.ZipInfo(f"Cleaned Speeches/{name}.txt", date_time=(2026, 1, 1, 0, 0, 0))
            zf.writestr(info, debatebench_transcript(motion))
    wb.properties.created = wb.properties.modified = __import__("datetime").datetime(2026, 1, 1)
    wb.save(root / "scores.xlsx")
    (root / "Cleaned Speeches.zip").write_bytes(buf.getvalue())
    (root / "README.md").write_text(NOTE)


if __name__ == "__main__":
    write_debateart(ROOT / "debateart")
    write_bp(ROOT / "bp_competition")
    write_debatebench(ROOT / "debatebench")
    print(f"wrote samples under {ROOT}")

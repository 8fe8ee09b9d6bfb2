"""A pack build's result as Loreweaver Studio's Pack bench reads it
(`manage.py pack build FOLDER --out FILE --json`; docs/packs.md, "Building").

The bench runs the reference's engine CLI (`--pack DIR --out FILE --json`) and reads
exactly one JSON object on stdout: `{ok: true, path, id, version, sha256, trust}`, or
`{ok: false, error}`. Its `trust` has the reference's shape (`PackTrust`: counts of
skills, rule systems, cards, lorebooks, assets and their bytes, panels, presets, prep
scripts, the kit's subjects; whether the pack ships hooks, EJS template blocks or a
rules script; how many cards are world cards; whether its kit licenses image
generation), which this server reads from the pack it just built, as its install will.
"""

from __future__ import annotations

import hashlib
from pathlib import Path, PurePosixPath

from packs import cards, lwpack


def studio_trust(pack: lwpack.Pack) -> dict:
    """The reference's trust summary (`PackTrust`) of the checked pack `pack`."""
    contents, trust, kit = pack.manifest["contents"], pack.trust, pack.kit
    splits = [cards.split_card(card["path"], pack.files[card["path"]]) for card in pack.cards]
    skill_text = [
        data
        for path, data in pack.files.items()
        if PurePosixPath(path).name == "SKILL.md"
        and any(path.startswith(f"{folder.rstrip('/')}/") for folder in contents.get("skills", []))
    ]
    return {
        "skills": trust["skills"],
        "rulepacks": trust["rulepacks"],
        "cards": trust["cards"],
        "lorebooks": trust["lorebooks"],
        "assets": trust["assets"],
        "asset_bytes": trust["asset_bytes"],
        # A world card's hook scripts are code a keeper's import installs: disclosed as
        # a skill's hooks.js is, as the reference discloses them.
        "has_hooks": bool(trust["hooks"]) or any(split.hooks for split in splits),
        "has_ejs": any(b"<%" in text for text in skill_text)
        or any("template (EJS) block" in entry for split in splits for entry in split.discarded),
        "has_rules_script": bool(lwpack.rulepack_scripts(pack.manifest, pack.files)),
        "world_cards": sum(card["kind"] == "world" for card in pack.cards),
        "panels": trust["panels"],
        "presentation": len(kit["subjects"]) if kit else 0,
        "imagegen": bool(
            kit and kit["generation"] == "allow" and any(subject.get("ref") for subject in kit["subjects"])
        ),
        "presets": trust.get("presets", 0),
        "prep_scripts": trust.get("prep_scripts", 0),
    }


def built(pack: lwpack.Pack, path: Path, data: bytes) -> dict:
    """The bench's success object for `pack`, written to `path` as `data`."""
    return {
        "ok": True,
        "path": str(path),
        "id": pack.pack_id,
        "version": pack.version,
        "sha256": hashlib.sha256(data).hexdigest(),
        "trust": studio_trust(pack),
    }


def failed(error: str) -> dict:
    """The bench's failure object: `error` is what the build refused, in words."""
    return {"ok": False, "error": error}

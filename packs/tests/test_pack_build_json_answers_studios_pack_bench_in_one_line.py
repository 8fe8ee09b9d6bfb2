"""`manage.py pack build FOLDER --out FILE --json`, as Loreweaver Studio's Pack bench
runs the engine CLI (docs/packs.md, "Building"): stdout is exactly one JSON line,
`{ok, path, id, version, sha256, trust}` with the reference's trust shape, or `{ok:
false, error}` with a failing exit; the trust card goes to stderr. No manage.py
command prints django-axes' start line ("AXES: BEGIN ...") on either stream."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

FIXTURES = Path(__file__).resolve().parent / "fixtures"
HOOK = 'on("reply_ready", () => emitUI([{kind: "text", text: "Rain."}]));'
STUDIO_TRUST = {
    "skills",
    "rulepacks",
    "cards",
    "lorebooks",
    "assets",
    "asset_bytes",
    "has_hooks",
    "has_ejs",
    "has_rules_script",
    "world_cards",
    "panels",
    "presentation",
    "imagegen",
    "presets",
    "prep_scripts",
}


def _folder(root: Path) -> Path:
    folder = root / "bench-pack"
    (folder / "cards").mkdir(parents=True)
    shutil.copy(FIXTURES / "studio_export.st.json", folder / "cards" / "apartment.json")
    lorecard = json.loads((FIXTURES / "studio_export.lorecard.json").read_text())
    (folder / "cards" / "apartment.lorecard.json").write_text(json.dumps({**lorecard, "hooks": [HOOK]}))
    (folder / "pack.yaml").write_text(
        "id: bench-pack\nversion: 0.2.0\nname: Bench\ndescription: Built for the bench.\n"
        "authors: [Tests]\nlicense: MIT\n"
        "contents: {cards: [cards/apartment.json, cards/apartment.lorecard.json]}\n"
    )
    return folder


def test_a_build_answers_one_json_line_with_the_reference_trust_shape(server_env, tmp_path):
    out = tmp_path / "bench-pack-0.2.0.lwpack"
    run = server_env.manage("pack", "build", str(_folder(tmp_path)), "--out", str(out), "--json")
    assert run.returncode == 0, run.stderr
    assert run.stdout.endswith("\n") and run.stdout.count("\n") == 1
    result = json.loads(run.stdout)
    assert {key: result[key] for key in ("ok", "path", "id", "version")} == {
        "ok": True,
        "path": str(out),
        "id": "bench-pack",
        "version": "0.2.0",
    }
    assert result["sha256"] == hashlib.sha256(out.read_bytes()).hexdigest()
    trust = result["trust"]
    assert set(trust) == STUDIO_TRUST
    assert (trust["cards"], trust["world_cards"], trust["has_hooks"], trust["has_ejs"]) == (2, 2, True, False)
    assert "Bench (bench-pack 0.2.0)" in run.stderr and "AXES" not in run.stderr


def test_a_refused_build_answers_ok_false_with_the_reason_and_fails(server_env, tmp_path):
    folder = _folder(tmp_path)
    (folder / "pack.yaml").write_text("id: [not a pack\n")
    run = server_env.manage("pack", "build", str(folder), "--out", str(tmp_path / "x.lwpack"), "--json")
    assert run.returncode == 1
    assert run.stdout.count("\n") == 1
    result = json.loads(run.stdout)
    assert result["ok"] is False and "pack.yaml" in result["error"]


def test_no_command_prints_the_axes_start_line(server_env):
    for command in (("pack", "list"), ("check",)):
        run = server_env.manage(*command)
        assert run.returncode == 0, run.stderr
        assert "AXES" not in run.stdout and "AXES" not in run.stderr

"""A corpus of hostile packs, each with the words its refusal must contain: used by
the tests (`test_hostile_packs_are_refused.py`) and timed by `bench/packs.py`."""

from __future__ import annotations

import hashlib
import io
import stat
import zipfile

import yaml

from packs import lwpack

PANELS = "ui/panels.yaml"


def _manifest(files: dict[str, bytes], **overrides: object) -> dict:
    manifest = {
        "manifest_version": 2,
        "id": "hostile",
        "version": "1.0.0",
        "name": {"en": "Hostile"},
        "description": {"en": "A pack that should never install."},
        "authors": [],
        "license": "MIT",
        "contents": {"panels": [PANELS]} if PANELS in files else {},
        "assets": [],
        "files": [
            {"path": path, "sha256": hashlib.sha256(data).hexdigest(), "size": len(data)}
            for path, data in sorted(files.items())
        ],
    }
    manifest["trust"] = lwpack.trust_card(
        lwpack.check_manifest(manifest | {"trust": {}}, built=True), files, []
    )
    manifest.update(overrides)
    return manifest


def _zip(members: list[tuple[zipfile.ZipInfo | str, bytes]]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for info, data in members:
            archive.writestr(info, data)
    return out.getvalue()


def _pack(files: dict[str, bytes], manifest: dict | None = None) -> bytes:
    manifest = manifest or _manifest(files)
    return _zip([("pack.yaml", yaml.safe_dump(manifest).encode()), *files.items()])


def _panels(count: int) -> bytes:
    panel = "  - {id: p%d, title: P, slot: sidebar, blocks: [{kind: divider}]}\n"
    return ("panels:\n" + "".join(panel % n for n in range(count))).encode()


def _symlink(name: str) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name)
    info.external_attr = (stat.S_IFLNK | 0o777) << 16
    return info


def _lying_header() -> bytes:
    """A member whose header says 10 bytes but inflates to 20 MB."""
    data = _pack({"notes.txt": b"0123456789"})
    big = b"\0" * (20 * 1024 * 1024)
    out = io.BytesIO()
    with (
        zipfile.ZipFile(io.BytesIO(data)) as source,
        zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target,
    ):
        for member in source.infolist():
            target.writestr(member, big if member.filename == "notes.txt" else source.read(member))
    raw = bytearray(out.getvalue())
    # Point the central directory's size of notes.txt back at 10 bytes.
    with zipfile.ZipFile(io.BytesIO(bytes(raw))) as archive:
        member = archive.getinfo("notes.txt")
    central = raw.rfind(b"PK\x01\x02" + raw[raw.find(b"PK\x01\x02") + 4 : raw.find(b"PK\x01\x02") + 4], 0)
    offset = raw.find(b"notes.txt", central) - 46 + 24
    raw[offset : offset + 4] = (10).to_bytes(4, "little")
    assert member.file_size == len(big)
    return bytes(raw)


def _alias_bomb() -> bytes:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{n}: &a{n} [{', '.join(['*a' + str(n - 1)] * 9)}]" for n in range(1, 10)]
    return _zip([("pack.yaml", "\n".join(lines).encode())])


HOSTILE = {
    "zip bomb (inflates 1000 times)": (
        lambda: _pack({"assets/zeros.bin": b"\0" * (50 * 1024 * 1024)}),
        "zip bomb",
    ),
    "a header that lies about a file's size": (
        _lying_header,
        "larger than|size its inventory|sha256|cannot be read",
    ),
    "a total over the cap": (
        lambda: _pack(
            {"a.txt": b"a"},
            _manifest({"a.txt": b"a"})
            | {"files": [{"path": f"f{n}", "sha256": "0" * 64, "size": 200 * 1024 * 1024} for n in range(6)]},
        ),
        "more than",
    ),
    "a path that climbs out": (
        lambda: _zip([("pack.yaml", b"id: x"), ("../evil.txt", b"x")]),
        "leave the pack",
    ),
    "an absolute path": (
        lambda: _zip([("pack.yaml", b"id: x"), ("/etc/cron.d/evil", b"x")]),
        "leave the pack",
    ),
    "a windows drive path": (
        lambda: _zip([("pack.yaml", b"id: x"), ("C:/evil.txt", b"x")]),
        "leave the pack",
    ),
    "a symlink": (lambda: _zip([(_symlink("link"), b"/etc/passwd"), ("pack.yaml", b"id: x")]), "plain file"),
    "a digest that does not match": (
        lambda: _pack(
            {"a.txt": b"what the pack says"},
            _manifest({"a.txt": b"what the pack says"})
            | {"files": [{"path": "a.txt", "sha256": hashlib.sha256(b"x" * 18).hexdigest(), "size": 18}]},
        ),
        "sha256",
    ),
    "a file missing from the inventory": (
        lambda: _zip([("pack.yaml", yaml.safe_dump(_manifest({})).encode()), ("stowaway.js", b"x")]),
        "inventory",
    ),
    "10,000 panels": (lambda: _pack({PANELS: _panels(10_000)}), "larger than|1 to 16 panels"),
    "3,000 panels in a small file": (lambda: _pack({PANELS: _panels(3_000)}), "larger than|1 to 16 panels"),
    "a 50 MB panels.yaml": (
        lambda: _pack({PANELS: b"# " + b"x" * (50 * 1024 * 1024)}),
        "larger than|zip bomb",
    ),
    "an alias bomb in the manifest": (_alias_bomb, "anchors or aliases"),
    "a manifest that is not a mapping": (lambda: _zip([("pack.yaml", b"- just\n- a list\n")]), "mapping"),
    "no manifest": (lambda: _zip([("readme.txt", b"hello")]), "no pack.yaml"),
    "not a zip at all": (lambda: b"MZ\x90\x00" + b"\0" * 100, "not a zip"),
    "a bad pack id": (lambda: _pack({}, _manifest({}) | {"id": "../../etc"}), "pack id"),
    "a panel condition outside the subset": (
        lambda: _pack(
            {
                PANELS: b"panels: [{id: p, title: P, slot: sidebar, "
                b"blocks: [{kind: divider, visible_when: 'day + 1 > 3'}]}]\n"
            }
        ),
        "day \\+ 1 > 3",
    ),
}

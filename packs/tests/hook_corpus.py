"""Hook scripts for the tests: one that behaves, and a hostile corpus."""

from __future__ import annotations

WELL_BEHAVED = """
on("reply_ready", () => {
  emitUI(
    [{kind: "text", text: "The lamp is lit on day " + getvar("day") + "."}],
    {panel: "sidebar", id: "lamp"}
  );
});
"""

HOSTILE = {
    "infinite_loop": 'on("reply_ready", () => { while (true) {} });',
    "loop_at_load": "while (true) {}",
    "async_loop": 'on("reply_ready", async () => { await null; for (;;) {} });',
    "gigabyte": (
        'on("reply_ready", () => { const big = new ArrayBuffer(1024 * 1024 * 1024); big.byteLength; });'
    ),
    "growing_arrays": (
        'on("reply_ready", () => { const all = []; for (;;) all.push(new Array(1e6).fill("x")); });'
    ),
    "ten_thousand_emits": (
        'on("reply_ready", () => { for (let i = 0; i < 10000; i++) {'
        ' emitUI([{kind: "divider"}]); emitPanel("board", {i}); } });'
    ),
    "deep_recursion": 'function down(n) { return down(n + 1) + 1; } on("reply_ready", () => down(0));',
    "require": (
        'on("reply_ready", () => emitUI([{kind: "text", text: require("fs").readFileSync("/etc/passwd")}]));'
    ),
    "process": 'on("reply_ready", () => emitUI([{kind: "text", text: process.env.DJANGO_SECRET_KEY}]));',
    "files": 'on("reply_ready", () => emitUI([{kind: "text", text: std.loadFile("/etc/passwd")}]));',
    "network": (
        'on("reply_ready", () => fetch("http://127.0.0.1:6379/")'
        '.then(r => emitUI([{kind: "text", text: r}])));'
    ),
    "escape_through_prototypes": (
        'on("reply_ready", () => emitUI([{kind: "text",'
        ' text: String(this.constructor.constructor("return process")())}]));'
    ),
    "huge_emission": 'on("reply_ready", () => emitUI([{kind: "text", text: "x".repeat(10 * 1024 * 1024)}]));',
    "throws": 'on("reply_ready", () => { throw new Error("boom"); });',
    "syntax_error": "on(reply_ready, => {",
}

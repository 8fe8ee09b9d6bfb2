"""The SVG gate: every drawing of the attack corpus
is refused and every safe drawing is accepted."""

from __future__ import annotations

import pytest

from media_store.svg import BadSvg, check_svg

HEAD = '<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100">'
XLINK = 'xmlns:xlink="http://www.w3.org/1999/xlink"'


def _svg(inner: str, attributes: str = "") -> str:
    return f'<svg xmlns="http://www.w3.org/2000/svg" {attributes} width="10" height="10">{inner}</svg>'


ATTACKS = {
    "script element": _svg("<script>alert(1)</script>"),
    "script with src": _svg('<script href="https://evil.example/x.js"/>'),
    "namespaced script": _svg('<s:script xmlns:s="http://www.w3.org/2000/svg">alert(1)</s:script>'),
    "xhtml script": _svg('<h:script xmlns:h="http://www.w3.org/1999/xhtml">alert(1)</h:script>'),
    "onload on root": '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>',
    "onclick on rect": _svg('<rect width="5" height="5" onclick="alert(1)"/>'),
    "onmouseover on text": _svg('<text onmouseover="alert(1)">hi</text>'),
    "upper-case handler": _svg('<rect ONLOAD="alert(1)"/>'),
    "foreignObject": _svg("<foreignObject><div>hi</div></foreignObject>"),
    "foreignObject with iframe": _svg(
        '<foreignObject><iframe xmlns="http://www.w3.org/1999/xhtml" src="https://evil.example"/></foreignObject>'
    ),
    "a href javascript": _svg('<a href="javascript:alert(1)"><text>x</text></a>'),
    "xlink href http": _svg('<a xlink:href="http://evil.example"><text>x</text></a>', XLINK),
    "image external": _svg('<image href="https://evil.example/pixel.png"/>'),
    "image data url": _svg('<image href="data:image/png;base64,AAAA"/>'),
    "use external": _svg('<use xlink:href="https://evil.example/sprite.svg#a"/>', XLINK),
    "use local": _svg('<use href="#a"/>'),
    "xlink on rect": _svg('<rect xlink:href="http://evil.example" width="1" height="1"/>', XLINK),
    "style element": _svg("<style>rect { fill: url(https://evil.example/x) }</style>"),
    "style attribute": _svg('<rect style="fill:red" width="1" height="1"/>'),
    "fill url": _svg('<rect fill="url(https://evil.example/#g)" width="1" height="1"/>'),
    "fill local url": _svg('<rect fill="url(#gradient)" width="1" height="1"/>'),
    "stroke data url": _svg('<line stroke="data:text/html,hi" x1="0" y1="0" x2="1" y2="1"/>'),
    "css expression": _svg('<rect fill="expression(alert(1))" width="1" height="1"/>'),
    "doctype": '<!DOCTYPE svg [<!ENTITY x "y">]>' + _svg("<text>&x;</text>"),
    "billion laughs": '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;">]>'
    + _svg("<text>&lol2;</text>"),
    "external entity": '<!DOCTYPE svg [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>'
    + _svg("<text>&xxe;</text>"),
    "nested svg with script": _svg(_svg("<script>alert(1)</script>")),
    "nested svg onload": _svg('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>'),
    "root not svg": '<html xmlns="http://www.w3.org/1999/xhtml"><svg/></html>',
    "svg without namespace": '<svg width="1" height="1"><rect/></svg>',
    "animate set href": _svg('<set attributeName="href" to="javascript:alert(1)"/>'),
    "animate": _svg('<animate attributeName="x" from="0" to="1"/>'),
    "xml-stylesheet": '<?xml version="1.0"?><?xml-stylesheet href="https://evil.example/x.css"?>' + _svg(""),
    "not xml": "this is not a drawing",
    "truncated": HEAD + "<rect",
    "path element (not allowed)": _svg('<path d="M0 0 L1 1"/>'),
    "circle element (not allowed)": _svg('<circle r="3"/>'),
    "xml:base": _svg('<g xml:base="https://evil.example/"><rect/></g>'),
    "event on tspan": _svg('<text><tspan onfocus="alert(1)">x</tspan></text>'),
}

SAFE = {
    "empty": _svg(""),
    "with declaration": '<?xml version="1.0" encoding="UTF-8"?>'
    + _svg('<rect width="5" height="5" fill="#a33"/>'),
    "map grid": _svg(
        '<g stroke="#333" stroke-width="0.5">'
        + "".join(f'<line x1="{i}" y1="0" x2="{i}" y2="10"/>' for i in range(10))
        + "</g>"
    ),
    "labelled room": _svg(
        '<title>The cellar</title><desc>A hand-drawn plan</desc><rect x="1" y="1" width="8" height="6" '
        'fill="none" stroke="black"/><text x="2" y="5" font-size="2" text-anchor="start">Cellar</text>'
    ),
    "polyline path": _svg(
        '<polyline points="0,0 3,4 6,1 9,9" fill="none" stroke="red" stroke-linejoin="round"/>'
    ),
    "text with tspans": _svg(
        '<text x="0" y="4"><tspan font-weight="bold">Gull</tspan><tspan dx="1">Rock</tspan></text>'
    ),
    "transformed group": _svg(
        '<g transform="rotate(45 5 5) translate(1,1)" opacity="0.5"><rect width="2" height="2"/></g>'
    ),
    "nested svg": _svg(
        '<svg xmlns="http://www.w3.org/2000/svg" x="1" y="1" viewBox="0 0 2 2">'
        '<rect width="1" height="1"/></svg>'
    ),
    "comment": _svg("<!-- drawn by the keeper --><rect width='1' height='1'/>"),
    "unicode text": _svg("<text>鸥岩灯塔 ☂</text>"),
}


@pytest.mark.parametrize("drawing", list(ATTACKS.values()), ids=list(ATTACKS))
def test_every_attack_is_refused(drawing):
    with pytest.raises(BadSvg):
        check_svg(drawing.encode("utf-8"))


@pytest.mark.parametrize("drawing", list(SAFE.values()), ids=list(SAFE))
def test_every_safe_drawing_is_accepted(drawing):
    check_svg(drawing.encode("utf-8"))


def test_the_corpus_is_large_enough():
    assert len(ATTACKS) >= 30 and len(SAFE) >= 8

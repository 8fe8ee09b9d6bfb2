"""The SVG gate: a drawing is accepted only if it is inert.

The document is parsed by a hardened parser (defusedxml: no DTDs, no entities, no
external references) and every element and attribute is checked against an allow
list. Only `svg, g, rect, line, polyline, text, tspan, title, desc` in the SVG
namespace, with plain presentation attributes; no scripts, no event handlers, no
links, no CSS, no `url(...)`, no data URLs. Anything not understood is refused.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ElementTree

from defusedxml import DefusedXmlException
from defusedxml.ElementTree import fromstring

SVG_NS = "http://www.w3.org/2000/svg"
ELEMENTS = frozenset({"svg", "g", "rect", "line", "polyline", "text", "tspan", "title", "desc"})
ATTRIBUTES = frozenset(
    {
        "width",
        "height",
        "viewBox",
        "preserveAspectRatio",
        "version",
        "x",
        "y",
        "x1",
        "y1",
        "x2",
        "y2",
        "rx",
        "ry",
        "dx",
        "dy",
        "points",
        "transform",
        "fill",
        "fill-opacity",
        "fill-rule",
        "stroke",
        "stroke-width",
        "stroke-opacity",
        "stroke-linecap",
        "stroke-linejoin",
        "stroke-dasharray",
        "opacity",
        "font-family",
        "font-size",
        "font-weight",
        "font-style",
        "text-anchor",
        "dominant-baseline",
        "letter-spacing",
        "id",
    }
)
# Values that could reach outside the drawing or run something.
_DANGEROUS_VALUE = re.compile(r"url\s*\(|javascript:|data:|expression\s*\(|@import|&|<|\\", re.IGNORECASE)
_LIMIT_BYTES = 8 * 1024 * 1024


class BadSvg(ValueError):
    """Why a drawing was refused."""


def _local(tag: str) -> tuple[str, str]:
    if tag.startswith("{"):
        namespace, _, name = tag[1:].partition("}")
        return namespace, name
    return "", tag


def check_svg(data: bytes) -> None:
    """Raise `BadSvg` unless `data` is an inert drawing of the allowed elements."""
    if len(data) > _LIMIT_BYTES:
        raise BadSvg("too large")
    lowered = data.lower()
    if b"<!doctype" in lowered or b"<!entity" in lowered:
        raise BadSvg("DOCTYPE and entities are not allowed")
    # The parser drops processing instructions, but the stored bytes keep them (an
    # xml-stylesheet could pull in CSS): only the XML declaration may open with <?.
    body = re.sub(rb"^\s*<\?xml[^?]*\?>", b"", data, count=1)
    if b"<?" in body:
        raise BadSvg("processing instructions are not allowed")
    try:
        root = fromstring(data, forbid_dtd=True, forbid_entities=True, forbid_external=True)
    except (DefusedXmlException, ElementTree.ParseError, ValueError) as exc:
        raise BadSvg(f"not well-formed XML ({exc.__class__.__name__})") from None
    if _local(root.tag) != (SVG_NS, "svg"):
        raise BadSvg("the root element must be <svg> in the SVG namespace")
    for element in root.iter():
        if not isinstance(element.tag, str):
            raise BadSvg("comments and processing instructions are not allowed")
        namespace, name = _local(element.tag)
        if namespace != SVG_NS or name not in ELEMENTS:
            raise BadSvg(f"element <{name}> is not allowed")
        for attribute, value in element.attrib.items():
            attribute_namespace, attribute_name = _local(attribute)
            if attribute_namespace or attribute_name not in ATTRIBUTES:
                raise BadSvg(f"attribute {attribute_name!r} is not allowed")
            if _DANGEROUS_VALUE.search(value):
                raise BadSvg(f"attribute {attribute_name!r} has an unsafe value")

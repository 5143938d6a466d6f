"""Document block fixtures in DingTalk's "块元素数据结构" shape (vendor-apis.md §1.4).

A block is {"blockType": T, T: {...properties}, "children": [...], "id": str, "index": n}.
`sample_blocks()` exercises every documented block type plus the field-observed variants a
tolerant parser must accept (string heading levels, rowSize vs rolSize, "unknown" blocks).
"""
from __future__ import annotations

import copy
import json


# ---- inline elements -------------------------------------------------------------------
def text_run(text: str, **styles) -> dict:
    """Styles use DingTalk's keys: bold, italic, stike (sic), underline, color, highlight, sz, fonts."""
    return {"text": text, **styles}


def link(href: str, text: str) -> dict:
    return {"elementType": "link", "properties": {"href": href}, "children": [{"text": text}]}


def image(src: str) -> dict:
    return {"elementType": "image", "properties": {"src": src}}


def sticker(code: str) -> dict:
    return {"elementType": "sticker", "properties": {"code": code}}


def _plain(children: list) -> str:
    out = []
    for child in children:
        if "text" in child:
            out.append(child["text"])
        elif child.get("elementType") == "link":
            out.append("".join(c.get("text", "") for c in child.get("children", [])))
    return "".join(out)


# ---- blocks ----------------------------------------------------------------------------
def paragraph(*children, indent: int | None = None, folded: bool | None = None) -> dict:
    props: dict = {"text": _plain(list(children))}
    if indent:
        props["indent"] = {"left": indent}
    if folded is not None:
        props["folded"] = folded
    return {"blockType": "paragraph", "paragraph": props, "children": list(children)}


def heading(level, *children) -> dict:
    return {"blockType": "heading", "heading": {"level": level, "text": _plain(list(children))},
            "children": list(children)}


def blockquote(*children) -> dict:
    return {"blockType": "blockquote", "blockquote": {"text": _plain(list(children))},
            "children": list(children)}


def list_item(ordered: bool, list_id: str, level: int, *children) -> dict:
    kind = "orderedList" if ordered else "unorderedList"
    style = "decimal" if ordered else "disc"
    props = {"list": {"listId": list_id, "level": level, "listStyleType": style,
                      "listStyle": {"format": style, "text": "%1." if ordered else "•",
                                    "align": "left"},
                      "symbolStyle": {}}}
    return {"blockType": kind, kind: props, "children": list(children)}


def callout(*children, sticker_name: str = "tada", bgcolor: str = "#FFF5EB") -> dict:
    return {"blockType": "callout",
            "callout": {"sticker": sticker_name, "showstk": True, "color": "#FF8800",
                        "border": "#FFCC99", "bgcolor": bgcolor},
            "children": list(children)}


def columns(*children, size: int = 2) -> dict:
    return {"blockType": "columns", "columns": {"size": size, "noFill": False},
            "children": list(children)}


def table(cells: list[list[str]], size_key: str = "rolSize") -> dict:
    # The doc spells the row count "rolSize"; field fixtures use "rowSize".
    return {"blockType": "table",
            "table": {size_key: len(cells), "colSize": len(cells[0]) if cells else 0,
                      "cells": cells},
            "children": []}


def unknown() -> dict:
    # Code blocks, embedded sheets, etc. come back with an undocumented type ("unknown").
    return {"blockType": "unknown", "unknown": {}, "children": []}


def sample_blocks() -> list[dict]:
    """One document covering every documented block type and inline style."""
    return [
        heading(1, text_run("Emulator sample document")),
        paragraph(text_run("Plain, "), text_run("bold", bold=True), text_run(", "),
                  text_run("italic", italic=True), text_run(", "),
                  text_run("struck", stike=True), text_run(", "),
                  text_run("underlined", underline=True), text_run(" and "),
                  text_run("red highlighted", color="#FF0000", highlight="#FFFF00", sz=14,
                           fonts="PingFang SC"),
                  text_run(" text with a "), link("https://example.com/page", "link"),
                  text_run(" and a sticker "), sticker("大笑")),
        heading(2, text_run("Lists")),
        list_item(False, "ul1", 0, text_run("bullet one")),
        list_item(False, "ul1", 1, text_run("nested bullet")),
        list_item(False, "ul1", 0, text_run("bullet two")),
        list_item(True, "ol1", 0, text_run("step one")),
        list_item(True, "ol1", 1, text_run("sub step")),
        list_item(True, "ol1", 0, text_run("step two")),
        # Field reports show string levels on live traffic; keep one so parsers stay lenient.
        heading("heading-3", text_run("Quotes and callouts")),
        blockquote(text_run("A quoted line")),
        callout(paragraph(text_run("Callout body "), text_run("important", bold=True))),
        columns(paragraph(text_run("left column")), paragraph(text_run("right column"))),
        paragraph(image("https://example.com/picture.png")),
        paragraph(text_run("indented and folded"), indent=2, folded=True),
        table([["h1", "h2"], ["a", "b"]]),
        table([["x", "y", "z"]], size_key="rowSize"),
        unknown(),
        paragraph(text_run("多语言 的 段落 — end")),
    ]


def generated_blocks(title: str, count: int) -> list[dict]:
    """Cheap per-document content for bulk seeding: a heading then `count - 1` paragraphs."""
    out = [heading(1, text_run(title))]
    for i in range(1, max(count, 1)):
        out.append(paragraph(text_run(f"{title} paragraph {i}")))
    return out


def normalize(block_list: list, doc_id: str) -> list[dict]:
    """Give every block (recursively) a stable id and every top-level block its index."""
    if not isinstance(block_list, list):
        raise ValueError("blocks must be a list")
    out = copy.deepcopy(block_list)
    counter = [0]

    def assign(block_seq: list) -> None:
        for block in block_seq:
            if not isinstance(block, dict) or "blockType" not in block:
                continue  # inline elements have no id
            counter[0] += 1
            block.setdefault("id", f"{doc_id[:12]}b{counter[0]:05d}")
            assign(block.get("children", []))

    for i, block in enumerate(out):
        if not isinstance(block, dict) or "blockType" not in block:
            raise ValueError(f"top-level block {i} lacks blockType")
        block["index"] = i
    assign(out)
    return out


def byte_size(block_list: list) -> int:
    return len(json.dumps(block_list, ensure_ascii=False).encode())


def word_count(block_list: list) -> int:
    total = 0
    for block in block_list:
        props = block.get(block.get("blockType"), {})
        if isinstance(props, dict):
            total += len(str(props.get("text", "")))
    return total

"""Every pipeline example in README.md and docs/*.md passes `cdcd validate`.

Each fenced ```yaml block is a whole pipeline unless its fence says otherwise: a block that shows
only part of a pipeline (one `sink:` block, a `transform:` rule) is marked ```` ```yaml fragment ````.
A fragment with a `source:` but no `sink:` (or the reverse) is validated with a `values` sink (or
source) added; a fragment with neither is skipped. A block neither whole (top-level `source:` and
`sink:`) nor marked fails this test, so an example added later is validated too. Examples name
servers that need not exist (validate contacts none); `${VAR}`, `${secret_values.name}` and
`<placeholder>` get placeholder values here.
"""
import os
import re
import textwrap

import pytest

import cdcd_process as cdcd

FRAGMENT = "fragment"
# Fences may be indented (inside a list item); the closing one is indented alike.
FENCE = re.compile(r"^(?P<indent>[ \t]*)```(?P<info>[^\n`]*)\n(?P<body>.*?)^(?P=indent)```[ \t]*$",
                   re.M | re.S)
ENV_REFERENCE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
SECRET_REFERENCE = re.compile(r"\$\{secret_values\.([A-Za-z0-9_.-]+)\}")
TOP_LEVEL_KEY = re.compile(r"^([A-Za-z_-]+):", re.M)
# `<yourAppKey>`, `<account>`: what the reader fills in, as in the vendor's documents.
ANGLE_PLACEHOLDER = re.compile(r"<[A-Za-z][A-Za-z0-9_-]*>")


def documents():
    return [cdcd.REPO / "README.md", *sorted((cdcd.REPO / "docs").glob("*.md"))]


def fenced_yaml(text: str):
    """(line of the fence, info words after `yaml`, body) of every ```yaml block of `text`."""
    for m in FENCE.finditer(text):
        words = m.group("info").split()
        if words and words[0] in ("yaml", "yml"):
            yield (text.count("\n", 0, m.start()) + 1, words[1:],
                   textwrap.dedent(m.group("body")))


def yaml_blocks():
    return [pytest.param(doc, line, markers, body, id=f"{doc.relative_to(cdcd.REPO)}:{line}")
            for doc in documents() for line, markers, body in fenced_yaml(doc.read_text())]


def is_whole_pipeline(body: str) -> bool:
    keys = set(TOP_LEVEL_KEY.findall(body))
    return "source" in keys and "sink" in keys


def completed_fragment(body: str):
    """A fragment with one connector block made whole with a `values` counterpart; else None."""
    keys = set(TOP_LEVEL_KEY.findall(body))
    if "source" in keys and "sink" not in keys:
        return body + "sink:\n  type: values\n"
    if "sink" in keys and "source" not in keys:
        return "source:\n  type: values\n" + body
    return None


def placeholder_environment(body: str) -> dict:
    """Values for the example's ${VAR} and ${secret_values.name} references (CDCD_SECRET_NAME)."""
    env = dict(os.environ)
    for name in ENV_REFERENCE.findall(body):
        env.setdefault(name, "placeholder")
    for name in SECRET_REFERENCE.findall(body):
        env["CDCD_SECRET_" + re.sub(r"[^A-Z0-9]", "_", name.upper())] = "placeholder"
    return env


def test_the_documents_have_pipeline_examples():
    # The README's headline example at least: a regex that finds nothing must not pass silently.
    whole = [b for b in yaml_blocks() if FRAGMENT not in b.values[2]]
    assert any(b.values[0].name == "README.md" for b in whole)


@pytest.mark.parametrize("doc, line, markers, body", yaml_blocks())
def test_example_is_a_valid_pipeline_or_a_marked_fragment(tmp_path, doc, line, markers, body):
    where = f"{doc.relative_to(cdcd.REPO)}:{line}"
    if FRAGMENT in markers:
        body = completed_fragment(body)
        if body is None:
            pytest.skip("a fragment without a source or sink block")
    else:
        assert is_whole_pipeline(body), (
            f"{where}: a ```yaml block is a whole pipeline (source and sink) that cdcd validate "
            f"accepts; mark a partial example ```yaml {FRAGMENT}")
    body = ANGLE_PLACEHOLDER.sub("placeholder", body)
    path = cdcd.write_pipeline(tmp_path, body)
    result = cdcd.run(["validate", path], env=placeholder_environment(body))
    assert result.returncode == 0, f"{where}: cdcd validate failed:\n{result.stderr}"


def test_fences_and_markers_are_read_as_documented():
    text = ("intro\n```yaml\nsource:\n  type: values\nsink:\n  type: values\n```\n"
            "```yaml fragment\nsink:\n  type: file\n```\n```sh\ncdcd run x\n```\n"
            "* item\n  ```yaml\n  source:\n  sink:\n  ```\n")
    blocks = list(fenced_yaml(text))
    assert [(line, markers) for line, markers, _ in blocks] == [
        (2, []), (8, ["fragment"]), (16, [])]
    assert blocks[2][2] == "source:\nsink:\n"
    assert is_whole_pipeline(blocks[0][2]) and not is_whole_pipeline(blocks[1][2])
    assert is_whole_pipeline(completed_fragment(blocks[1][2]))
    assert completed_fragment("transform:\n  - source-table: a\n") is None
    assert placeholder_environment("k: ${secret_values.oss-sk} ${ALIBABA_AK}")[
        "CDCD_SECRET_OSS_SK"] == "placeholder"

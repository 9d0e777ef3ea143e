"""The book's Python examples cannot rot: every ```python block marked ``<!-- test -->`` in
``docs/book/src`` runs, in a scratch folder holding the files of its chapter's
``examples/`` folder, and must not raise."""

import shutil
from pathlib import Path

import pytest

BOOK = Path(__file__).resolve().parents[3] / "docs" / "book" / "src"


def marked_blocks() -> list[tuple[str, str]]:
    blocks = []
    for chapter in sorted(BOOK.rglob("*.md")):
        lines = chapter.read_text().splitlines()
        for k, line in enumerate(lines):
            if line.strip() != "<!-- test -->" or lines[k + 1].strip() != "```python":
                continue
            end = next(i for i in range(k + 2, len(lines)) if lines[i].strip() == "```")
            blocks.append((str(chapter.relative_to(BOOK)), "\n".join(lines[k + 2:end])))
    return blocks


BLOCKS = marked_blocks()


def test_the_guide_has_a_tested_python_example():
    assert any(chapter == "guide/python.md" for chapter, _ in BLOCKS), BLOCKS


@pytest.mark.parametrize("chapter,code", BLOCKS, ids=[c for c, _ in BLOCKS])
def test_a_marked_python_example_runs(chapter, code, tmp_path, monkeypatch):
    examples = (BOOK / chapter).parent / "examples"
    if examples.is_dir():
        for p in examples.iterdir():
            shutil.copy(p, tmp_path / p.name)
    monkeypatch.chdir(tmp_path)
    exec(compile(code, f"{chapter} (marked example)", "exec"), {"__name__": "__book__"})

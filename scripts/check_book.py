"""Builds the book with mdbook and checks it: mdbook reports no error (an include that does
not resolve, a missing chapter), no page holds an unexpanded `{{#…}}` directive, and every
internal link — to a page, a file the book ships, or an anchor — resolves.

    python scripts/check_book.py [--mdbook PATH]

Exit status 1 with every broken link listed.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

BOOK = Path(__file__).resolve().parent.parent / "docs" / "book"


class Page(HTMLParser):
    """The ids and the links of one HTML page."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if a.get("id"):
            self.ids.add(a["id"])
        if tag == "a" and a.get("name"):
            self.ids.add(a["name"])
        for key in ("href", "src"):
            if a.get(key) and tag in ("a", "img"):
                self.links.append(a[key])


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--mdbook", default="mdbook")
    a = p.parse_args()
    build = subprocess.run([a.mdbook, "build", str(BOOK)], capture_output=True, text=True)
    problems = [l for l in (build.stdout + build.stderr).splitlines() if "ERROR" in l]
    if build.returncode != 0:
        problems.append(f"mdbook exited with {build.returncode}")
    out = BOOK / "book"
    pages: dict[Path, Page] = {}
    for html in out.rglob("*.html"):
        page = Page()
        text = html.read_text(encoding="utf-8")
        if "{{#" in text:
            problems.append(f"{html.relative_to(out)}: an unexpanded {{{{#…}}}} directive")
        page.feed(text)
        pages[html] = page
    checked = 0
    for html, page in pages.items():
        for link in page.links:
            parts = urlsplit(link)
            if parts.scheme or parts.netloc or link.startswith("mailto:"):
                continue
            target = (html.parent / unquote(parts.path)).resolve() if parts.path else html
            checked += 1
            if not target.exists():
                problems.append(f"{html.relative_to(out)}: {link}: no such page or file")
                continue
            if parts.fragment and target.suffix == ".html":
                if parts.fragment not in pages[target].ids:
                    problems.append(f"{html.relative_to(out)}: {link}: no anchor #{parts.fragment}")
    for line in problems:
        print(line, file=sys.stderr)
    print(f"{len(pages)} pages, {checked} internal links checked, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

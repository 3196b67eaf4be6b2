"""README.md and docs/ are usable from a copy of the repository alone: every link is
relative and lands on a file (and heading) inside it."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
# [text](target) outside code: the target up to a space or the closing parenthesis
LINK = re.compile(r"(?<!\!)\[[^\]]*\]\(([^)\s]+)\)")
IMAGE = re.compile(r"!\[[^\]]*\]\(([^)\s]+)\)")


def _prose(text: str) -> str:
    """The text without fenced code blocks and inline code, where brackets are code."""
    text = re.sub(r"^```.*?^```", "", text, flags=re.MULTILINE | re.DOTALL)
    return re.sub(r"`[^`\n]*`", "", text)


def _anchors(page: Path) -> set[str]:
    """GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens."""
    heads = re.findall(r"^#+\s+(.*)$", _prose(page.read_text()), re.MULTILINE)
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-") for h in heads}


def _links(page: Path) -> list[str]:
    text = _prose(page.read_text())
    return LINK.findall(text) + IMAGE.findall(text)


@pytest.mark.parametrize("page", PAGES, ids=[p.relative_to(ROOT).as_posix() for p in PAGES])
def test_every_link_resolves_inside_the_repository(page):
    for target in _links(page):
        assert "://" not in target and not target.startswith("mailto:"), f"{page.name}: {target}"
        path, _, anchor = target.partition("#")
        dest = (page.parent / path).resolve() if path else page
        assert dest.is_relative_to(ROOT), f"{page.name}: {target} leaves the repository"
        assert dest.exists(), f"{page.name}: {target} does not exist"
        if anchor and dest.suffix == ".md":
            assert anchor in _anchors(dest), f"{page.name}: no heading #{anchor} in {dest.name}"


def test_the_project_documents_its_own_language_lbm_format_and_published_figures():
    readme = (ROOT / "README.md").read_text()
    for page in ("docs/spd.md", "docs/lbm_format.md", "docs/reference.md"):
        assert (ROOT / page).exists() and f"]({page})" in readme, page


def test_the_checker_sees_a_link_out_of_the_repository(tmp_path):
    page = tmp_path / "p.md"
    page.write_text("See [SPD](../shared/SPD.md) and `[not](a/link)`.\n```\n[code](x)\n```\n")
    assert _links(page) == ["../shared/SPD.md"]

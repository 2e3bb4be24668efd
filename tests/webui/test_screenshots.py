"""``scripts/screenshots`` keeps working (tests.support.screenshots, with tests/webui/test_browser.py's
skip): every page of its list is taken, 1280 pixels wide, small, into a scratch folder."""

from __future__ import annotations

from PIL import Image

from tests.support import screenshots
from tests.webui.test_browser import pytestmark  # noqa: F401 (slow, and Chromium installed)


def test_the_readme_pictures_can_be_retaken(tmp_path):
    taken = screenshots.take(tmp_path)
    assert [path.name for path in taken] == [name for name, _ in screenshots.PAGES]
    for path in taken:
        with Image.open(path) as image:
            assert image.width == screenshots.WIDTH and image.mode == "P", path  # 256 colours
            assert screenshots.MIN_HEIGHT <= image.height <= screenshots.MAX_HEIGHT, path
        assert path.stat().st_size < 150_000, path

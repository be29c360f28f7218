"""Page grids: pages land in their cells in order, runs follow MMLongBench-Doc's rule, and a
pixel budget is kept."""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image

from docqa.imaging.page_grid import grid_image, grid_images, grid_runs

COLOURS = [(255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 0), (0, 255, 255), (255, 0, 255)]


def pages(folder: Path, count: int, size: tuple[int, int] = (40, 30)) -> list[Path]:
    """``count`` page images, each filled with its own colour."""
    paths = []
    for index in range(count):
        path = folder / f"page-{index}.png"
        Image.new("RGB", size, COLOURS[index % len(COLOURS)]).save(path)
        paths.append(path)
    return paths


def cell_colour(image: Image.Image, column: int, row: int, size: tuple[int, int] = (40, 30)):
    return image.getpixel((column * size[0] + size[0] // 2, row * size[1] + size[1] // 2))


def test_pages_fill_the_grid_row_by_row(tmp_path: Path) -> None:
    image = grid_image(pages(tmp_path, 5), columns=3)
    assert image.size == (3 * 40, 2 * 30)
    assert [cell_colour(image, c, 0) for c in range(3)] == COLOURS[:3]
    assert [cell_colour(image, c, 1) for c in range(2)] == COLOURS[3:5]
    assert cell_colour(image, 2, 1) == (255, 255, 255)  # the empty cell stays white


def test_the_default_grid_is_near_square_and_never_wider_than_its_pages(tmp_path: Path) -> None:
    assert grid_image(pages(tmp_path, 4)).size == (2 * 40, 2 * 30)
    assert grid_image(pages(tmp_path, 2), columns=3).size == (2 * 40, 30)


def test_a_page_of_another_size_is_scaled_into_its_cell(tmp_path: Path) -> None:
    first, second = pages(tmp_path, 2)
    Image.new("RGB", (80, 30), COLOURS[1]).save(second)  # twice as wide: half-size in its cell
    image = grid_image([first, second], columns=2)
    assert image.size == (80, 30)
    assert image.getpixel((60, 10)) == COLOURS[1]
    assert image.getpixel((60, 25)) == (255, 255, 255)  # below the scaled page


def test_a_pixel_budget_scales_the_grid_down(tmp_path: Path) -> None:
    image = grid_image(pages(tmp_path, 6), columns=3, max_pixels=1800)
    assert image.width * image.height <= 1800
    assert abs(image.width / image.height - (120 / 60)) < 0.1
    assert grid_image(pages(tmp_path, 1), max_pixels=10**6).size == (40, 30)  # within: unchanged


@pytest.mark.parametrize(
    ("count", "runs"),
    [
        (1, [[0]]),
        (3, [[0], [1], [2]]),
        (7, [[0, 1], [2, 3], [4, 5], [6]]),
        (10, [[0, 1], [2, 3], [4, 5], [6, 7], [8, 9]]),
        (11, [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9, 10]]),
    ],
)
def test_runs_follow_mmlongbench_doc(count: int, runs: list[list[int]]) -> None:
    assert [list(run) for run in grid_runs(count)] == runs


def test_a_document_becomes_at_most_five_grids_covering_every_page_once(tmp_path: Path) -> None:
    grids = grid_images(pages(tmp_path, 13))
    assert len(grids) == 5
    assert [i for run, _ in grids for i in run] == list(range(13))
    first_run, first = grids[0]
    assert len(first_run) == 3
    assert first.size == (3 * 40, 30)
    assert cell_colour(first, 2, 0) == COLOURS[2]


def test_bad_input_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="at least one page"):
        grid_image([])
    with pytest.raises(ValueError, match="column"):
        grid_image(pages(tmp_path, 1), columns=0)
    broken = tmp_path / "broken.png"
    broken.write_bytes(b"not a png")
    with pytest.raises(ValueError, match="broken.png cannot be read"):
        grid_image([broken])

"""Unpacking a downloaded archive once, next to it.

LongDocURL ships its PDFs as ``pdf_files.tar.gz``. The archive is unpacked into a folder of the
same name (``pdf_files/``) through a temporary folder, and a marker records which archive
(name, size, modification time) it came from: a rerun unpacks nothing, an interrupted unpack
starts over, and a re-downloaded archive is unpacked again.
"""

from __future__ import annotations

import logging
import shutil
import tarfile
from pathlib import Path

log = logging.getLogger(__name__)

MARKER = ".unpacked-from"
SUFFIXES = (".tar.gz", ".tgz", ".tar")


def unpack_once(archive: Path) -> Path:
    """Unpack ``archive`` into the folder beside it named after it; return that folder."""
    folder = archive.with_name(_stem(archive.name))
    stat = archive.stat()
    stamp = f"{archive.name} {stat.st_size} {stat.st_mtime_ns}\n"
    marker = folder / MARKER
    if marker.is_file() and marker.read_text() == stamp:
        return folder
    partial = folder.with_name(folder.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir()
    log.info("unpacking %s into %s", archive, folder)
    try:
        with tarfile.open(archive) as tar:
            # "data" refuses absolute paths, '..' and links that leave the folder
            tar.extractall(partial, filter="data")
    except (tarfile.TarError, EOFError, OSError) as error:
        shutil.rmtree(partial, ignore_errors=True)
        raise OSError(
            f"{archive} cannot be unpacked ({error}): delete it and rerun the download"
        ) from None
    shutil.rmtree(folder, ignore_errors=True)
    partial.rename(folder)
    marker.write_text(stamp)
    return folder


def _stem(name: str) -> str:
    for suffix in SUFFIXES:
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name + ".unpacked"

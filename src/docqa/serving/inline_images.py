"""Page images that arrive inline in a request (``data:`` URLs), kept as files for the backend.

Backends read pages from paths (the response cache hashes their bytes), so each decoded image
is written once under its content hash: a page sent by many requests is one file. The server
never fetches a URL: only inline base64 images are accepted.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import io
import re
import threading
from pathlib import Path

from PIL import Image

DATA_URL = re.compile(r"^data:image/(?P<kind>[a-z0-9.+-]+);base64,(?P<data>.*)$", re.S)


class ImageStore:
    """Decodes inline images into ``folder`` (created), one file per distinct image."""

    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)

    def save(self, url: str, where: str) -> Path:
        """The file holding the image of the ``data:`` URL ``url``; ``where`` names the part
        in error messages. ``ValueError`` when it is not an inline image or not readable."""
        match = DATA_URL.match(url)
        if match is None:
            shown = url[:40] + ("…" if len(url) > 40 else "")
            raise ValueError(
                f"{where}: image_url {shown!r} is not an inline image; send the page as a "
                "data:image/png;base64,... URL (this server fetches nothing)"
            )
        try:
            data = base64.b64decode(match["data"], validate=True)
        except (binascii.Error, ValueError) as error:
            raise ValueError(f"{where}: the image's base64 data is broken ({error})") from None
        try:
            with Image.open(io.BytesIO(data)) as image:
                image.verify()
        except Exception as error:  # PIL raises many kinds for a file that is not an image
            raise ValueError(
                f"{where}: the inline data is not a readable image ({error}); send a PNG or JPEG"
            ) from None
        path = self.folder / f"{hashlib.sha256(data).hexdigest()}.{match['kind']}"
        if not path.exists():
            partial = path.with_name(f".{path.name}.{threading.get_ident()}")
            partial.write_bytes(data)
            partial.replace(path)
        return path

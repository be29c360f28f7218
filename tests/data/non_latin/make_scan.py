"""How lunyu-xueer-scan.pdf was made (run once; README.md says from what, under which licences).

A page of the Analects (论语·学而, public domain) set in Droid Sans Fallback (Apache-2.0) and
written as a PDF page that is one 150 dpi grayscale image, with no text layer: what a scanner
gives. ``python make_scan.py DroidSansFallback.ttf lunyu-xueer-scan.pdf``
"""

from __future__ import annotations

import sys
import textwrap

from PIL import Image, ImageDraw, ImageFont

TITLE = "论语·学而第一"
TEXT = [
    "子曰：学而时习之，不亦说乎？有朋自远方来，不亦乐乎？人不知而不愠，不亦君子乎？",
    "有子曰：其为人也孝弟，而好犯上者，鲜矣；不好犯上，而好作乱者，未之有也。"
    "君子务本，本立而道生。孝弟也者，其为仁之本与！",
    "子曰：巧言令色，鲜矣仁！",
    "曾子曰：吾日三省吾身：为人谋而不忠乎？与朋友交而不信乎？传不习乎？",
    "子曰：道千乘之国，敬事而信，节用而爱人，使民以时。",
    "子曰：弟子入则孝，出则弟，谨而信，泛爱众，而亲仁。行有余力，则以学文。",
    "子夏曰：贤贤易色；事父母，能竭其力；事君，能致其身；与朋友交，言而有信。"
    "虽曰未学，吾必谓之学矣。",
]
DPI = 150
WIDTH, HEIGHT = int(8.27 * DPI), int(11.69 * DPI)  # A4


def main(font_path: str, out: str) -> None:
    page = Image.new("L", (WIDTH, HEIGHT), 255)
    draw = ImageDraw.Draw(page)
    title = ImageFont.truetype(font_path, 40)
    body = ImageFont.truetype(font_path, 28)
    draw.text((WIDTH // 2, 140), TITLE, font=title, fill=0, anchor="mt")
    y = 240
    for paragraph in TEXT:
        for line in textwrap.wrap(paragraph, 34):
            draw.text((120, y), line, font=body, fill=0)
            y += 46
        y += 24
    page.save(out, "PDF", resolution=DPI)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])

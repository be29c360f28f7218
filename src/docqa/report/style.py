"""One figure style for every paper figure: sizes, fonts, colour-blind-safe colours, saving.

Figures are built on :class:`matplotlib.figure.Figure` (never pyplot), so no global backend
or open-figure state is involved; PNGs are drawn by the Agg canvas. Saving strips the
timestamp and software metadata so that a rerun writes identical bytes.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import matplotlib
from matplotlib.figure import Figure

# Okabe & Ito (2008), ordered so that the first colours are the most distinct on white; the
# yellow comes last among the colours because thin lines in it are hard to see.
OKABE_ITO = (
    "#0072B2",  # blue
    "#E69F00",  # orange
    "#009E73",  # bluish green
    "#D55E00",  # vermillion
    "#CC79A7",  # reddish purple
    "#56B4E9",  # sky blue
    "#F0E442",  # yellow
    "#000000",  # black
)
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
HATCHES = ("", "//", "..", "xx")
BASELINE_COLOUR = "#7F7F7F"

# A two-column paper's full text width, in inches; fonts are sized for print at 1:1.
PAGE_WIDTH = 7.0
#: PNG resolution unless the config's report.figures.dpi says otherwise
DPI = 300

RC_PARAMS: dict[str, Any] = {
    "font.family": "DejaVu Sans",
    "font.size": 8,
    "axes.titlesize": 9,
    "axes.labelsize": 8,
    "xtick.labelsize": 7,
    "ytick.labelsize": 7,
    "legend.fontsize": 7,
    "figure.titlesize": 10,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "axes.grid.axis": "y",
    "axes.axisbelow": True,
    "grid.linewidth": 0.5,
    "grid.alpha": 0.5,
    "lines.linewidth": 1.5,
    "lines.markersize": 4,
    "savefig.dpi": DPI,
    # TrueType (not Type 3) fonts in PDFs: editable text, accepted by publishers.
    "pdf.fonttype": 42,
    "svg.hashsalt": "docqa",
}


def figure_style() -> AbstractContextManager[None]:
    """Context in which to build and save a figure: the style applies to both."""
    return matplotlib.rc_context(RC_PARAMS)  # type: ignore[arg-type]


def colour(index: int) -> str:
    return OKABE_ITO[index % len(OKABE_ITO)]


def marker(index: int) -> str:
    return MARKERS[index % len(MARKERS)]


def hatch(index: int) -> str:
    """No hatch for the first palette-full of series, then a hatch per further round, so
    series that share a colour stay distinguishable."""
    return HATCHES[(index // len(OKABE_ITO)) % len(HATCHES)]


def save_figure(figure: Figure, png: Path, pdf: Path, dpi: int = DPI) -> None:
    """Save ``figure`` as PNG (at ``dpi``) and PDF without timestamps or version strings."""
    for path in (png, pdf):
        Path(path).parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(png, format="png", dpi=dpi, metadata={"Software": None})
    figure.savefig(
        pdf, format="pdf", metadata={"CreationDate": None, "Producer": None, "Creator": None}
    )

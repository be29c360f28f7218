#!/usr/bin/env bash
# Prepare what benchmarks/gpu_acceptance.py carries to the GPU machine, here on a CPU machine
# with docqa's venv:
#
#   .whl/         the wheels that machine lacks (it has torch, transformers, numpy, pillow,
#                 scipy, matplotlib, tqdm, pyyaml, psutil, safetensors, accelerate; no network):
#                   bitsandbytes  nf4/int8 loading (docqa.backends.quantization)
#                   pypdfium2     DocPilot's Focus crops (docqa.methods.docpilot.crops)
#                   pytesseract   imported by docqa.text.ocr and DocPilot's Focus (never run on a VLM)
#                   bm25s         the bm25 retriever the methods rank pages with
#                 (their own requirements — torch, numpy, packaging, pillow, scipy — are there)
#   .gpu-inputs/  synthslides decks rendered, OCRed and indexed by docqa's own stages
#
# Both folders are git-ignored and together stay under the 64 MiB a device call carries.
# Then, on the GPU machine, from the repository root (carry: .whl .gpu-inputs), one line:
#
#   python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl && PYTHONPATH=/tmp/site:src PYTHONUNBUFFERED=1 python3 benchmarks/gpu_acceptance.py --device cuda --out $OUT/gpu_acceptance-h200.json
#
# and copy $OUT/gpu_acceptance-h200.json to benchmarks/results/.
#
# Usage: bash benchmarks/gpu_wheels.sh [python]   (default: the venv's python, else python3)
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON="${1:-.venv/bin/python}"
[ -x "$PYTHON" ] || PYTHON=/work/main/.venv/bin/python
[ -x "$PYTHON" ] || PYTHON=python3

# the versions docqa pins (pyproject.toml); the GPU machine runs Python 3.12 on x86-64 Linux
WHEELS=(bitsandbytes==0.50.2 pypdfium2==5.15.2 pytesseract==0.3.13 bm25s==0.3.16)
PLATFORMS=()
for tag in manylinux_2_28_x86_64 manylinux_2_27_x86_64 manylinux_2_24_x86_64 \
    manylinux_2_17_x86_64 manylinux2014_x86_64 manylinux1_x86_64; do
    PLATFORMS+=(--platform "$tag")
done

rm -rf .whl && mkdir -p .whl
python3 -m pip download --quiet --no-deps --only-binary=:all: --python-version 3.12 \
    --implementation cp "${PLATFORMS[@]}" -d .whl "${WHEELS[@]}"

PYTHONPATH=src "$PYTHON" benchmarks/gpu_acceptance.py --device cpu --prepare-only \
    --inputs .gpu-inputs --decks 4 --slides 8 12 --questions-per-deck 8 --dpi 200

ls -l .whl
total=$(du -sb .whl .gpu-inputs | awk '{sum += $1} END {print sum}')
tree=$(git ls-files -z | xargs -0 du -cb | tail -1 | cut -f1)
echo "carried: .whl + .gpu-inputs = $((total / 1048576)) MiB; tracked files $((tree / 1048576)) MiB"
if [ $((total + tree)) -gt $((60 * 1048576)) ]; then
    echo "over 60 MiB: fewer decks (--decks) or a lower --dpi for .gpu-inputs" >&2
    exit 1
fi

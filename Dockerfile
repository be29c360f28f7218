# One image for the whole workflow: CUDA runtime, tesseract, the pinned Python packages, docqa.
#   docker build -t docqa/docqa:0.1.0 .
#   snakemake --cores all --sdm apptainer --apptainer-args "--nv"
FROM nvidia/cuda:13.0.1-cudnn-runtime-ubuntu22.04

ENV DEBIAN_FRONTEND=noninteractive PIP_NO_CACHE_DIR=1 PYTHONUNBUFFERED=1
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3.11 python3.11-venv tesseract-ocr fonts-dejavu-core \
 && rm -rf /var/lib/apt/lists/*

WORKDIR /opt/docqa
# requirements.lock holds the exact pins of pyproject.toml and of everything they pull in.
COPY requirements.lock pyproject.toml README.md ./
RUN python3.11 -m venv /opt/venv \
 && /opt/venv/bin/python -m pip install -r requirements.lock
COPY src ./src
RUN /opt/venv/bin/python -m pip install --no-deps --no-build-isolation -e .
COPY . .
ENV PATH=/opt/venv/bin:$PATH
CMD ["snakemake", "--cores", "all"]

# One image for the whole workflow: CUDA runtime, tesseract, the pinned Python packages, docqa.
# No registry holds it: build it, turn it into the local docqa.sif that config key
# container_image names, and run (docs/scaling-out.md):
#   docker build -t docqa:0.1.0 .
#   apptainer build docqa.sif docker-daemon://docqa:0.1.0
#   snakemake --cores all --sdm apptainer --apptainer-args "--nv"
# Checked by hadolint (make lint).
FROM nvidia/cuda:13.0.1-cudnn-runtime-ubuntu22.04

ENV DEBIAN_FRONTEND=noninteractive PIP_NO_CACHE_DIR=1 PYTHONUNBUFFERED=1
# The base image's tag fixes the Ubuntu release; apt versions are not pinned because Ubuntu's
# archive drops a package's old versions when it publishes a fix, which would break the build.
# hadolint ignore=DL3008
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3.11 python3.11-venv tesseract-ocr tesseract-ocr-osd \
    fonts-dejavu-core \
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

#!/usr/bin/env bash
# A separate virtual environment with deduce (the reference rule system of the rules issue), for
# `python benchmarks/rules_meddocan.py --deduce-python .venv-deduce/bin/python`. deduce is not a dependency of
# clinanon; its own dependencies stay out of clinanon's environment.
set -euo pipefail
cd "$(dirname "$0")/.."
python -m venv .venv-deduce
.venv-deduce/bin/pip install -q "deduce==3.0.6"
.venv-deduce/bin/python -c "import deduce; print('deduce', deduce.__version__, 'in .venv-deduce')"

#!/usr/bin/env bash
# Prints the python3 that imports torch and torchvision (Debian's python3-torch and
# python3-torchvision): /usr/bin/python3 first, as a pyenv or venv python3 on PATH may
# lack them; plain python3 when none does (its import then fails with Python's message).
for python in /usr/bin/python3 python3; do
  if "$python" -c 'import torch, torchvision' 2>/dev/null; then
    echo "$python"
    exit 0
  fi
done
echo python3

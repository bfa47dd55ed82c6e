"""ONNX's checker, with full shape inference, over the models graph::save_onnx wrote.

  check_models.py LIST [LIST...]
      each LIST a text file naming one .onnx file per line (onnx_conformance --round-trip
      writes DIR/written.txt; test_export_onnx writes its own). Prints each rejected
      model with the checker's reason and the totals; exits 1 when any is rejected.
"""
import sys

import onnx


def main(lists):
    files = []
    for path in lists:
        with open(path) as f:
            files += [line.strip() for line in f if line.strip()]
    bad = 0
    for name in files:
        try:
            onnx.checker.check_model(onnx.load(name), full_check=True)
        except Exception as e:  # the checker raises several types; each is a rejection
            bad += 1
            print(f"{name}: {str(e).splitlines()[0][:300]}")
    print(f"onnx.checker (full_check, onnx {onnx.__version__}): {len(files) - bad} of {len(files)} "
          f"models accepted")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""torch.save files for test_torch_file.cpp, made by Debian's python3-torch at test time.

  torch_fixtures.py make DIR    writes the fixtures below into DIR
  torch_fixtures.py check FILE  loads nabla's FILE with torch.load(weights_only=True) and
                                checks it holds what test_torch_file.cpp wrote (exit 1 if not)

Values follow value(n, dtype) = (arange(n) * 0.75 - 3) cast to dtype, so both sides know
them without sharing data.
"""
import collections
import io
import os
import sys
import zipfile

import torch


def value(n, dtype):
    v = torch.arange(n, dtype=torch.float64) * 0.75 - 3
    if dtype == torch.bool:
        return torch.arange(n) % 3 == 0
    if dtype == torch.uint8:
        return torch.arange(n, dtype=torch.uint8) * 7
    return v.to(dtype)


DTYPES = {"f32": torch.float32, "f64": torch.float64, "f16": torch.float16,
          "bf16": torch.bfloat16, "i64": torch.int64, "i32": torch.int32, "i16": torch.int16,
          "i8": torch.int8, "u8": torch.uint8, "b": torch.bool}


class Evil:  # pickled as the global __main__.Evil, which a reader must refuse
    pass


def rewrite(src, dst, change):
    """Copies zip `src` to `dst`, passing each (name, bytes) through `change`."""
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        for info in zin.infolist():
            name, data, method = change(info.filename, zin.read(info.filename))
            zout.writestr(name, data, compress_type=method)


def make(d):
    torch.save({k: value(6, t).reshape(2, 3) for k, t in DTYPES.items()},
               os.path.join(d, "dtypes.pt"))
    base = value(12, torch.float32).reshape(3, 4)
    torch.save(collections.OrderedDict(
        base=base, t=base.t(), col=base[:, 1], tail=base.view(-1)[5:9],
        param=torch.nn.Parameter(value(4, torch.float32)),
        scalar=torch.tensor(7, dtype=torch.int64), empty=torch.zeros(0, 3)),
        os.path.join(d, "shared.pt"))
    torch.save({"model": collections.OrderedDict(w=value(4, torch.float32)), "epoch": 3,
                "lr": 0.5, "name": "run-1", "flags": [True, None, False], "pair": (1, -2),
                "big": 2 ** 40, "neg": -70000},
               os.path.join(d, "nested.pt"))
    # A BatchNorm's state_dict: an OrderedDict with _metadata set through BUILD.
    torch.save(torch.nn.BatchNorm1d(3).state_dict(), os.path.join(d, "batchnorm.pt"))
    torch.save(base, os.path.join(d, "tensor.pt"))
    torch.save([base, base[0]], os.path.join(d, "list.pt"))
    torch.save(base, os.path.join(d, "legacy.pt"), _use_new_zipfile_serialization=False)
    torch.jit.save(torch.jit.script(torch.nn.Linear(2, 2)), os.path.join(d, "torchscript.pt"))
    evil = Evil()
    torch.save({"w": base, "x": evil}, os.path.join(d, "evil.pt"))
    src = os.path.join(d, "shared.pt")
    rewrite(src, os.path.join(d, "deflated.pt"),
            lambda n, b: (n, b, zipfile.ZIP_DEFLATED))

    # The same data as PyTorch >= 2 on a big-endian machine writes it: byteorder "big".
    def to_big(name, data):
        if "/data/" in name:
            return name, bytes(torch.frombuffer(bytearray(data), dtype=torch.float32)
                               .numpy().byteswap().tobytes()), zipfile.ZIP_STORED
        return name, data, zipfile.ZIP_STORED
    plain = os.path.join(d, "plain_f32.pt")
    torch.save({"w": value(5, torch.float32)}, plain)
    rewrite(plain, os.path.join(d, "bigendian.pt"), to_big)
    with zipfile.ZipFile(os.path.join(d, "bigendian.pt"), "a") as z:
        z.writestr(z.namelist()[0].split("/")[0] + "/byteorder", "big")


def check(path):
    got = torch.load(path, weights_only=True)
    assert isinstance(got, dict), type(got)
    for k, t in DTYPES.items():
        want = value(6, t).reshape(2, 3)
        assert got[k].dtype == t and torch.equal(got[k], want), (k, got[k], want)
    base = got["base"]
    assert torch.equal(base, value(12, torch.float32).reshape(3, 4))
    # The views share the base's storage and keep their geometry.
    for k, want in (("t", base.t()), ("col", base[:, 1]), ("tail", base.view(-1)[5:9])):
        v = got[k]
        assert v.storage().data_ptr() == base.storage().data_ptr(), k
        assert v.stride() == want.stride() and v.storage_offset() == want.storage_offset(), k
        assert torch.equal(v, want), k
    assert got["t"].is_contiguous() is False
    assert got["grad"].requires_grad and torch.equal(got["grad"].detach(), value(3, torch.float32))
    assert got["empty"].shape == (0, 3)
    assert got["scalar"].dim() == 0 and got["scalar"].item() == 7
    assert got["n"] == -70000 and got["big"] == 2 ** 40 and got["s"] == "text"
    assert got["list"] == [True, None, False] and got["tuple"] == (1, 2)
    print("python read nabla's file:", len(got), "entries")


if __name__ == "__main__":
    {"make": make, "check": check}[sys.argv[1]](sys.argv[2])

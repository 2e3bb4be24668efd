"""The GGUF <-> Hugging Face bridge of the LoRA training: load the shipped GGUF for training,
write the HF-format base the adapter converter needs, and turn a peft adapter into the GGUF
adapter that llama.cpp (``Llama(lora_path=...)``) loads on top of the unchanged base GGUF.

Needs the ``train`` extra (torch, transformers, peft, gguf, sentencepiece, safetensors) for
``load_base``, ``save_hf_base`` and ``lora_to_gguf``; ``sha256`` and ``llama_cpp_converter``
need only the standard library and pip. The heavy imports happen inside the functions, so
importing this module costs nothing.

The chain (measured in ../shared/notes/measurements.md, section 7):
GGUF --load_base--> transformers model --peft LoRA--> adapter dir --lora_to_gguf--> adapter GGUF.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import torch

# converter's sources live in the llama-cpp-python sdist under this folder
_VENDOR = Path("vendor") / "llama.cpp"
_CONVERTER = "convert_lora_to_gguf.py"
_CONVERTER_DIRS = ("conversion", "gguf-py")
_MARKER = "gguf-source.json"  # written last by save_hf_base: which GGUF the folder was built from
_TAIL = 4000  # characters of a failed subprocess's stderr kept in the error


def default_cache_dir() -> Path:
    """``$XDG_CACHE_HOME/invoice-appliance`` (``~/.cache/invoice-appliance`` by default)."""
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "invoice-appliance"


def sha256(path: str | os.PathLike[str]) -> str:
    """Hex SHA-256 (64 lowercase characters) of the file at ``path``, read in 1 MiB chunks.

    Raises FileNotFoundError / IsADirectoryError / PermissionError as ``open`` does.
    """
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while chunk := fh.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def load_base(
    gguf_path: str | os.PathLike[str],
    dtype: torch.dtype | None = None,
    tokenizer_dir: str | os.PathLike[str] | None = None,
):
    """Load a GGUF model file as a transformers causal LM plus its tokenizer.

    ``gguf_path``: the GGUF file (for the shipped model ``gemma-3-270m-q4_k_m.gguf``, 253 MB;
    see ``models.llama_cpp_backend.ensure_default_model``). Quantised tensors are dequantised,
    so training sees exactly the weights llama.cpp runs. ``dtype``: torch dtype of the loaded
    weights, ``torch.float32`` when None. Returns ``(model, tokenizer)``: for the shipped file
    a ``Gemma3ForCausalLM`` of 268 M parameters (about 1.1 GB in float32; ~45 s on 2 cores) in
    eval mode, and its tokenizer (vocabulary 262,144). The model carries a gguf
    ``quantization_config`` and cannot be ``save_pretrained``: use ``save_hf_base`` for that.

    ``tokenizer_dir``: load the tokenizer from this HF folder (tokenizer.json and
    tokenizer_config.json, e.g. a ``save_hf_base`` folder) instead of from the GGUF. Needed with
    older transformers: 5.17.0 loads the Gemma 3 weights from GGUF correctly but converts its
    tokenizer to a Unigram model without BOS that splits words differently from llama.cpp
    (transformers issue 41494); 5.23.0 matches llama.cpp token for token.

    Raises FileNotFoundError when the file is missing, ImportError without the train extra,
    and whatever transformers raises for an architecture its GGUF loader does not know.
    """
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    path = Path(gguf_path).resolve()
    if not path.is_file():
        raise FileNotFoundError(f"no GGUF file at {path}")
    model = AutoModelForCausalLM.from_pretrained(
        path.parent, gguf_file=path.name, dtype=dtype if dtype is not None else torch.float32
    )
    if tokenizer_dir is not None:
        tokenizer = AutoTokenizer.from_pretrained(Path(tokenizer_dir))
    else:
        tokenizer = AutoTokenizer.from_pretrained(path.parent, gguf_file=path.name)
    return model, tokenizer


def _source_record(gguf_path: Path) -> dict:
    return {"gguf": gguf_path.name, "bytes": gguf_path.stat().st_size, "sha256": sha256(gguf_path)}


def save_hf_base(gguf_path: str | os.PathLike[str], out_dir: str | os.PathLike[str]) -> Path:
    """Write the GGUF model as an HF-format folder (config.json, model.safetensors, tokenizer).

    ``convert_lora_to_gguf.py --base`` reads the base model's config and tensor names from such
    a folder. A model loaded from GGUF refuses ``save_pretrained`` ("quantized with gguf and is
    not serializable"), so the model is rebuilt from its config without the
    ``quantization_config`` and given the loaded state dict (all keys match) before saving.
    Weights are written in float32 (about 1.1 GB for the shipped 270M model; ~1 min on 2 cores).

    Cached: when ``out_dir`` already holds a folder built from a file of the same name, size and
    sha256 (recorded in ``gguf-source.json``, written last), nothing is done. Otherwise the
    folder is built beside ``out_dir`` under a temporary name and renamed into place, replacing
    a stale ``out_dir``; a crash never leaves a half-written folder that passes for complete.
    Returns ``out_dir`` as a Path. Raises as ``load_base`` does.
    """
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM

    src = Path(gguf_path).resolve()
    out = Path(out_dir)
    if not src.is_file():
        raise FileNotFoundError(f"no GGUF file at {src}")
    record = _source_record(src)
    marker = out / _MARKER
    if marker.is_file():
        try:
            if json.loads(marker.read_text()) == record:
                return out
        except ValueError:
            pass
    model, tokenizer = load_base(src, dtype=torch.float32)
    config = AutoConfig.from_pretrained(src.parent, gguf_file=src.name)
    if hasattr(config, "quantization_config"):
        del config.quantization_config
    plain = AutoModelForCausalLM.from_config(config, dtype=torch.float32)
    plain.load_state_dict(model.state_dict())
    del model
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=out.name + ".", suffix=".part", dir=out.parent))
    tmp.chmod(0o755)  # mkdtemp's 0700 would stay on out_dir
    try:
        plain.save_pretrained(tmp)
        tokenizer.save_pretrained(tmp)
        (tmp / _MARKER).write_text(json.dumps(record, indent=1) + "\n")
        if out.exists():
            shutil.rmtree(out)
        os.replace(tmp, out)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp)
    return out


def _llama_cpp_pin() -> str:
    """The llama-cpp-python version the appliance serves with: the installed one, else the pin in
    requirements.lock (next to this package)."""
    try:
        return importlib.metadata.version("llama-cpp-python")
    except importlib.metadata.PackageNotFoundError:
        pass
    lock = Path(__file__).resolve().parent.parent / "requirements.lock"
    for line in lock.read_text().splitlines() if lock.is_file() else []:
        name, sep, version = line.partition("==")
        if sep and name.strip().lower().replace("_", "-") == "llama-cpp-python":
            return version.split(";")[0].strip()
    raise RuntimeError("llama-cpp-python is neither installed nor pinned in requirements.lock")


def _tail(text: str | bytes | None) -> str:
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    return (text or "")[-_TAIL:].strip()


def _converter_members(tar: tarfile.TarFile) -> list[tarfile.TarInfo]:
    """The sdist's members the converter needs (~3 MB of its 217 MB): the top-level files of
    vendor/llama.cpp (the convert_*.py scripts), its conversion/ package, gguf-py/ and the chat
    templates under models/templates/."""
    keep = []
    for member in tar.getmembers():
        parts = Path(member.name).parts
        if len(parts) < 4 or Path(*parts[1:3]) != _VENDOR:
            continue
        rest = parts[3:]
        if (len(rest) == 1 and member.isfile()) or rest[0] in _CONVERTER_DIRS or rest[:2] == ("models", "templates"):
            keep.append(member)
    return keep


def llama_cpp_converter(cache_dir: str | os.PathLike[str] | None = None, version: str | None = None) -> Path:
    """Path of ``vendor/llama.cpp/convert_lora_to_gguf.py`` from the llama-cpp-python sdist.

    The converter must come from the same llama.cpp as the runtime that loads the adapter, so the
    sdist is the one of ``version`` (default: the installed llama-cpp-python, else the pin in
    requirements.lock). It is fetched by package name with pip (``pip download --no-deps
    --no-binary :all: llama-cpp-python==VERSION``, ~77 MB, using pip's configured indexes) and
    unpacked once to ``<cache_dir>/llama-cpp-python-VERSION/`` (``cache_dir`` default:
    ``~/.cache/invoice-appliance``); later calls return the cached path without pip.

    The script imports its sibling ``conversion/`` package and ``gguf-py/``: run it with that
    folder as working directory and ``PYTHONPATH=gguf-py:.`` (``lora_to_gguf`` does).

    Raises RuntimeError, with the tail of pip's stderr, when pip fails (offline, unknown version)
    or the download holds no sdist, and FileNotFoundError when the sdist has no converter.
    """
    version = version or _llama_cpp_pin()
    cache = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    root = cache / f"llama-cpp-python-{version}"
    script = root / _VENDOR / _CONVERTER
    if script.is_file():
        return script
    cache.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=root.name + ".", suffix=".part", dir=cache))
    try:
        cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:"]
        cmd += [f"llama-cpp-python=={version}", "-d", str(work / "dl")]
        try:
            done = subprocess.run(cmd, capture_output=True, text=True)
        except OSError as exc:
            raise RuntimeError(f"could not run pip to fetch the llama-cpp-python {version} sdist: {exc}") from exc
        if done.returncode != 0:
            raise RuntimeError(
                f"pip could not download the llama-cpp-python {version} sdist (exit {done.returncode}):\n"
                + _tail(done.stderr or done.stdout)
            )
        sdists = sorted((work / "dl").glob("*.tar.gz")) if (work / "dl").is_dir() else []
        if not sdists:
            raise RuntimeError(f"pip downloaded no llama-cpp-python {version} sdist (.tar.gz) into {work / 'dl'}")
        unpacked = work / "src"
        with tarfile.open(sdists[0]) as tar:
            tar.extractall(unpacked, members=_converter_members(tar), filter="data")
        tops = [p for p in unpacked.iterdir() if p.is_dir()] if unpacked.is_dir() else []
        if len(tops) != 1 or not (tops[0] / _VENDOR / _CONVERTER).is_file():
            raise FileNotFoundError(f"{sdists[0].name} holds no {(_VENDOR / _CONVERTER).as_posix()}")
        if root.exists():  # a concurrent call got there first
            return script
        os.replace(tops[0], root)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return script


def lora_to_gguf(
    adapter_dir: str | os.PathLike[str],
    base_dir: str | os.PathLike[str],
    out_file: str | os.PathLike[str],
    outtype: str = "f16",
    converter: str | os.PathLike[str] | None = None,
) -> Path:
    """Convert a peft LoRA adapter folder to a GGUF adapter for ``Llama(lora_path=...)``.

    ``adapter_dir``: a peft ``save_pretrained`` folder (adapter_config.json and
    adapter_model.safetensors). ``base_dir``: the HF-format base from ``save_hf_base``.
    ``out_file``: the GGUF to write (for r=16 on the 7 projections of the 270M model: 252
    tensors, about 7.6 MB in f16), written under a temporary name and renamed when the
    converter succeeds. ``outtype``: the converter's ``--outtype`` (f32, f16, bf16, q8_0, auto).
    ``converter``: the script path, ``llama_cpp_converter()`` when None. The converter runs in a
    subprocess with this interpreter (it needs torch, numpy and safetensors from the train
    extra; its gguf-py comes from the sdist), from its own folder with ``PYTHONPATH=gguf-py:.``.
    The adapter's ``lora_alpha`` goes into the GGUF as ``adapter.lora.alpha``, so llama.cpp
    scales by alpha/r itself. Returns ``out_file`` as a Path.

    Raises RuntimeError with the tail of the converter's stderr when it fails or writes nothing.
    """
    script = Path(converter) if converter is not None else llama_cpp_converter()
    script = script.resolve()
    out = Path(out_file).resolve()
    out.parent.mkdir(parents=True, exist_ok=True)
    part = out.with_name(out.name + ".part")
    cmd = [sys.executable, str(script), "--base", str(Path(base_dir).resolve())]
    # Only the adapter's two files go to the converter: it copies metadata from a README.md model
    # card too, and peft's card names the training host's base-model path. The converter names
    # the GGUF (general.name) after this folder: a fixed name keeps the file the same in every run.
    scratch = Path(tempfile.mkdtemp(prefix="adapter."))
    clean = scratch / out.name.removesuffix(".gguf")
    clean.mkdir()
    for name in ("adapter_config.json", "adapter_model.safetensors"):
        if (Path(adapter_dir) / name).is_file():
            shutil.copy2(Path(adapter_dir) / name, clean / name)
    cmd += ["--outfile", str(part), "--outtype", outtype, str(clean)]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(["gguf-py", "."]))
    try:
        done = subprocess.run(cmd, cwd=script.parent, env=env, capture_output=True, text=True)
        if done.returncode != 0 or not part.is_file():
            raise RuntimeError(
                f"{script.name} failed (exit {done.returncode}) converting {adapter_dir}:\n"
                + _tail(done.stderr or done.stdout)
            )
        os.replace(part, out)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
        if part.exists():
            part.unlink()
    return out


def main(argv: list[str] | None = None) -> int:
    """``python -m training.adapter_gguf --base-gguf GGUF --adapter DIR --out FILE``: the HF-format
    base (cached), the converter (cached), the adapter GGUF, and ``FILE.sha256`` beside it in
    sha256sum's format (``HEX  NAME``), which the appliance's startup check reads."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m training.adapter_gguf", description=main.__doc__)
    parser.add_argument("--base-gguf", required=True, help="the base model GGUF the adapter was trained on")
    parser.add_argument("--adapter", required=True, help="peft adapter folder (save_pretrained)")
    parser.add_argument("--out", required=True, help="adapter GGUF to write")
    parser.add_argument("--base-dir", help="HF-format base folder (default: hf-base beside --adapter)")
    parser.add_argument("--outtype", default="f16", choices=["f32", "f16", "bf16", "q8_0", "auto"])
    parser.add_argument("--cache", help="sdist unpack folder (default ~/.cache/invoice-appliance)")
    args = parser.parse_args(argv)

    import time

    started = time.perf_counter()
    base_dir = Path(args.base_dir) if args.base_dir else Path(args.adapter).resolve().parent / "hf-base"
    save_hf_base(args.base_gguf, base_dir)
    converter = llama_cpp_converter(args.cache)
    out = lora_to_gguf(args.adapter, base_dir, args.out, outtype=args.outtype, converter=converter)
    digest = sha256(out)
    out.with_name(out.name + ".sha256").write_text(f"{digest}  {out.name}\n")
    size = out.stat().st_size
    print(f"{out}: {size:,} bytes, sha256 {digest} ({time.perf_counter() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""`attn-tui capture MODEL TEXT [--out FILE.safetensors] [--force] [--layers L …] [--keep-A]
[--device auto|cpu|cuda] [--device-map auto] [--dtype float32|float16|bfloat16] [--revision R]
[--trust-remote-code] [--allow-pickle] [--open]` (or --file PATH for the text): a real model's
heads as a multi-head file, checked against the model layer by layer as it runs.

torch and transformers (the ``models`` extra) are imported only when the command runs; without
them the command names the extra to install. Bad input is a ValueError: one line, exit 2 (cli.main).
"""

from __future__ import annotations

import importlib.util
import os
import stat
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ..core.labeltext import not_utf8
from ..core.limits import printable, unexpected
from .output import OutputError, emit

if TYPE_CHECKING:
    from typing import Any

NAME = "capture"
EXTRA = "pip install 'attn-tui[models]' (in a checkout: pip install -e '.[models]')"
MAX_TEXT_BYTES = 4 * 2**20


def add_parser(sub) -> None:
    c = sub.add_parser(
        NAME,
        help="a real model's heads (Hugging Face id or folder) as a multi-head file, checked against the model",
        description="Run MODEL on TEXT once; write every layer's and head's Q, K, V as its attention received them, "
        "the scale, the mask, the tokens and W_O, layer by layer, each head's A recomputed by attn-tui's core and "
        f"checked against the model's own as the layer runs (docs/CAPTURE.md). Needs the models extra: {EXTRA}.",
    )
    c.add_argument("model", metavar="MODEL", help="a Hugging Face model id or a local folder (from_pretrained's)")
    c.add_argument("text", metavar="TEXT", nargs="?", help="the text to run (or --file PATH)")
    c.add_argument("--file", metavar="PATH", help="read the text from this UTF-8 file")
    c.add_argument("--out", metavar="FILE.safetensors", help="where to write (default: MODEL's name.safetensors)")
    c.add_argument("--force", action="store_true", help="replace --out when it exists (refused otherwise)")
    c.add_argument("--layers", metavar="L", type=int, nargs="+", help="only these layers (counted from 0)")
    c.add_argument(
        "--keep-A",
        dest="keep_A",
        action="store_true",
        help="keep the model's own A in the file too (H x T x T per layer; up to 4,096 tokens)",
    )
    c.add_argument("--device", default="auto", help="auto (default: cuda when torch sees one, else cpu), cpu or cuda")
    c.add_argument(
        "--device-map",
        metavar="auto",
        help="auto: accelerate places the layers over the GPUs and the CPU (a model larger than one device)",
    )
    c.add_argument("--dtype", default="float32", help="float32 (default), float16 or bfloat16")
    c.add_argument("--revision", metavar="R", help="a branch, tag or commit of the model's repository")
    c.add_argument(
        "--trust-remote-code", action="store_true", help="run the model repository's own code (off unless given)"
    )
    c.add_argument(
        "--allow-pickle",
        action="store_true",
        help="load weights from a pickled file (.bin) when the model has no .safetensors (a pickle can run code)",
    )
    c.add_argument("--open", action="store_true", help="open the explorer on the file when written")


def _text(args: Any) -> str:
    if (args.text is None) == (args.file is None):
        raise ValueError("capture: give TEXT or --file PATH (one of them)")
    if args.file is not None:
        data = _read_text_file(args.file)
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ValueError(f"--file {args.file}: not UTF-8 text (byte {exc.start + 1})") from None
    else:
        text = args.text
        where = not_utf8(text)
        if where:  # an argument of bytes that are not UTF-8 (the tokenizer raised a TypeError)
            raise ValueError(f"TEXT: not UTF-8 text ({where}); give UTF-8 text, or --file PATH")
    if not text.strip():
        what = f"--file {args.file}" if args.file is not None else "TEXT"
        raise ValueError(f"{what}: empty; give the text to run the model on")
    return text


def _read_text_file(path: str) -> bytes:
    """At most MAX_TEXT_BYTES + 1 bytes of a regular file (a FIFO, /dev/zero, a folder refused from
    its stat, before a byte is read): never the whole of a file larger than the limit."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        raise ValueError(f"--file {path}: cannot read ({exc.strerror})") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise ValueError(f"--file {path}: not a regular file (a folder, FIFO or device); give a text file")
        with os.fdopen(fd, "rb", closefd=False) as f:
            data = f.read(MAX_TEXT_BYTES + 1)
    except OSError as exc:
        raise ValueError(f"--file {path}: cannot read ({exc.strerror})") from None
    finally:
        os.close(fd)
    if len(data) > MAX_TEXT_BYTES:
        raise ValueError(f"--file {path}: larger than {MAX_TEXT_BYTES // 2**20} MiB")
    return data


def _out(args: Any) -> Path:
    if args.out is not None and not args.out.strip():
        raise ValueError("--out: empty; give a .safetensors file name")
    out = Path(args.out) if args.out else Path(_model_name(args.model) + ".safetensors")
    if out.suffix.lower() != ".safetensors":
        raise ValueError(f"--out {args.out}: a capture is written as .safetensors")
    from ..capture.destination import refusal  # torch-free, as hub: judged before torch loads

    problem = refusal(out, args.force, args.open)
    if problem:
        raise ValueError(problem)
    return out


def _model_name(model: str) -> str:
    """The default file's name: the model's folder or hub name ("." is the folder it names, a review found
    "--out None" said of it, and ".." wrote a hidden "...safetensors"); "capture" where it names none."""
    path = Path(model.rstrip("/") or "/")
    if path.exists():
        path = path.resolve()
    name = path.name
    return name if name and not name.startswith(".") else "capture"


def _installed() -> None:
    """The models extra is there (found, not imported: hub.settle must set HF_HUB_OFFLINE first)."""
    for name in ("torch", "transformers"):
        try:
            found = importlib.util.find_spec(name) is not None
        except (ImportError, ValueError):  # sys.modules[name] = None: blocked
            found = False
        if not found:
            raise ValueError(f"capture needs torch and transformers ({name} is not installed): {EXTRA}")


def _imports():
    try:
        import torch  # noqa: F401
        import transformers  # noqa: F401
    except ImportError as exc:
        raise ValueError(f"capture needs torch and transformers ({exc.name} is not installed): {EXTRA}") from None
    from ..capture import pipeline

    return pipeline


def run(args: Any) -> int:
    """The command; returns the exit code. Prints the check line, then where the file is."""
    from ..capture import hub
    from ..capture.destination import Signalled, WriteError

    text = _text(args)
    out = _out(args)
    _installed()
    # a missing path, no tokenizer, no network: said before torch loads (seconds)
    unreachable = hub.settle(args.model, args.trust_remote_code, args.revision)
    pipeline = _imports()
    device, why = pipeline.pick_device(args.device, args.device_map)
    emit(f"capturing on {device} ({why})\n")  # the first line: where the forward and the check run
    try:
        path, result = pipeline.capture_to_file(
            args.model,
            text,
            out,
            layers=args.layers,
            keep_A=args.keep_A,
            force=args.force,
            opening=args.open,
            dtype=args.dtype,
            device="cpu" if device == "auto" else device,
            device_map=args.device_map,
            revision=args.revision,
            trust_remote_code=args.trust_remote_code,
            allow_pickle=args.allow_pickle,
            unreachable=unreachable,
        )
    except WriteError as exc:  # a full disk: not bad input, the output is incomplete (exit 1)
        raise OutputError(str(exc)) from None
    except Signalled as exc:  # SIGTERM, SIGHUP (`timeout`, a closed terminal): the partial file is gone
        print(f"attn-tui: capture stopped by {exc}; no file written", file=sys.stderr)
        return 128 + exc.signum
    except (ValueError, KeyboardInterrupt):
        raise  # the pipeline's own one-line refusals (exit 2), Ctrl-C (main says it)
    except Exception as exc:  # noqa: BLE001  (the backstop: a corrupt model folder, one line, never a traceback)
        raise ValueError(f"{printable(args.model)}: the model could not be loaded or run ({unexpected(exc)})") from None
    emit(
        f"{result.line()}{_renumbered(args.layers)}\n{prediction_line(path)}\n"
        f"wrote {path} (attn-tui --scenario {path}: the explorer on its heads; attn-tui heads {path}; "
        f"attn-tui report --scenario {path} --layer L --head H)\n"
    )
    if args.open:
        return open_explorer(path)
    return 0


def _renumbered(layers: Any) -> str:
    """With --layers, what the file's layer numbers are (a review read "at layer 0" after --layers 1, and
    then `heads --layer 1` refused): the file keeps the chosen layers in order, counted from 0."""
    if not layers:
        return ""
    pairs = ", ".join(f"{i} is the model's {ly}" for i, ly in enumerate(layers))
    return f"; the file's layers count from 0 (heads, report and the explorer count them so): {pairs}"


def open_explorer(path) -> int:
    """The explorer on the captured file as on any multi-head file (`attn-tui --scenario FILE`): its
    layer 0, head 0, every head a key away and the heads screen on h; the status line shows the
    check's figure (from the file's provenance) from the first frame, with no "new here?" hint
    taking its room."""
    import argparse

    from . import explorer

    args = argparse.Namespace(
        run_scenario=str(path), run_tokens=None, theme=None, resume=False, fresh=True, title_first=True
    )
    return explorer.run(args)


def prediction_line(path) -> str:
    """What the file holds of the model's own prediction, in one line (core/heads/captured_top.py)."""
    from ..core.heads.captured_top import CapturedTop, why_no_parts, why_none
    from ..core.heads.multihead_io import open_file

    src = open_file(path)
    top = src.top
    if top is None:
        why = why_none(src)
        assert why is not None  # a file of heads has no built-in readout (prediction.source_readout)
        return why
    assert isinstance(top, CapturedTop)  # what a file's HeadSource.top holds
    k = top.ids.shape[1]
    parts = "and what each head's direct part of the top one needs" if top.readout else f"({why_no_parts(src)})"
    return f"stored the model's own top {k} next tokens at each position, {parts}: attn-tui heads {path} --query t"

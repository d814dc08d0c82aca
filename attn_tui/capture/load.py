"""The model and tokenizer of a Hugging Face id or a local folder, loaded for capture: the
AutoModel (no task head: capture needs the attention layers only), eval mode, the capture's
attention function. Every failure is a CaptureError of one line."""

from __future__ import annotations

import sys
import threading
import time

import torch
from huggingface_hub.utils import logging as hub_logging
from transformers import MODEL_MAPPING, AutoConfig, AutoModel, AutoTokenizer
from transformers.utils import logging as hf_logging

from . import interface
from .interface import SUPPORTED, Unsupported
from .run import CaptureError

DTYPES = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}
DEVICES = ("cpu", "cuda")


def _first_line(exc) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


def check_options(dtype: str, device: str) -> None:
    if dtype not in DTYPES:
        raise CaptureError(f"--dtype: {dtype!r}; use {', '.join(DTYPES)}")
    if device not in DEVICES:
        raise CaptureError(f"--device: {device!r}; use {' or '.join(DEVICES)}")
    if device == "cuda" and not torch.cuda.is_available():
        raise CaptureError("--device cuda: torch sees no CUDA device here; use --device cpu")


def quiet() -> None:
    """Errors only from transformers' and huggingface_hub's loggers: their retry notices and config
    warnings would bury the one line a failure gets (a download's bars still show on a terminal)."""
    hf_logging.set_verbosity_error()
    hub_logging.set_verbosity_error()


class _Progress:
    """A status line on stderr when loading takes more than a second (transformers draws its own
    bars for downloads and checkpoint shards)."""

    def __init__(self, what: str):
        self.what, self.t0, self.shown = what, time.perf_counter(), False
        self.timer = threading.Timer(1.0, self._show)
        self.timer.daemon = True

    def _show(self):
        self.shown = True
        print(f"attn-tui capture: loading {self.what} …", file=sys.stderr, flush=True)

    def __enter__(self):
        if sys.stderr.isatty():  # a person watching; a pipe or a log gets only the outcome
            self.timer.start()
        return self

    def __exit__(self, *exc):
        self.timer.cancel()
        if self.shown and exc[0] is None:
            print(f"attn-tui capture: loaded in {time.perf_counter() - self.t0:.1f} s", file=sys.stderr, flush=True)
        return False


def prepare(model_id: str, *, dtype="float32", device="cpu", revision=None, trust_remote_code=False):
    """(config, tokenizer) of ``model_id``: what the checks before the weights need (no download of
    the weights yet, no progress bar before a refusal). CaptureError or Unsupported: one line."""
    check_options(dtype, device)
    quiet()
    kw = {"revision": revision, "trust_remote_code": trust_remote_code}
    with _Progress(model_id):
        try:
            config = AutoConfig.from_pretrained(model_id, **kw)
        except (OSError, ValueError, KeyError) as exc:
            raise CaptureError(f"{model_id}: cannot load its config ({_first_line(exc)})") from None
        if getattr(config, "is_encoder_decoder", False):
            raise Unsupported(f"{type(config).__name__}: an encoder-decoder; capture supports {SUPPORTED}")
        try:
            cls = MODEL_MAPPING[type(config)]  # the AutoModel class of this config
        except KeyError:
            cls = None
        if cls is not None and not cls.is_backend_compatible():
            raise Unsupported(f"{cls.__name__} does not route attention through AttentionInterface; {SUPPORTED}")
        try:
            tokenizer = AutoTokenizer.from_pretrained(model_id, **kw)
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise CaptureError(f"{model_id}: cannot load its tokenizer ({_first_line(exc)})") from None
    return config, tokenizer


def load_model(model_id: str, config, *, dtype="float32", device="cpu", revision=None, trust_remote_code=False):
    """The model (AutoModel: no task head), eval mode, on ``device``, attention through the capture."""
    interface.register()
    if not sys.stderr.isatty():  # transformers' bars are for a person watching; a pipe or a log gets one line
        hf_logging.disable_progress_bar()
    kw = {"revision": revision, "trust_remote_code": trust_remote_code}
    with _Progress(model_id):
        try:
            model = AutoModel.from_pretrained(
                model_id, config=config, dtype=DTYPES[dtype], attn_implementation=interface.NAME, **kw
            )
        except (OSError, ValueError, KeyError, RuntimeError) as exc:
            text = _first_line(exc)
            if "attn_implementation" in text or "attention implementation" in text.lower():
                raise Unsupported(f"{type(config).__name__}: {text}; capture supports {SUPPORTED}") from None
            raise CaptureError(f"{model_id}: cannot load the model ({text})") from None
    return model.to(device).eval()

"""The model and tokenizer of a Hugging Face id or a local folder, loaded for capture: the causal
language model (AutoModelForCausalLM) when its weights hold one (config.architectures names a causal LM
class: its own next-token prediction is stored too, top.py), else the AutoModel (no task head: BERT's),
eval mode, the capture's attention function. Every failure is a CaptureError of one line."""

from __future__ import annotations

import os
import pickle
import re
import sys
import threading
import time
import warnings
from typing import TYPE_CHECKING

import torch
from huggingface_hub.utils import logging as hub_logging
from transformers import (
    MODEL_FOR_CAUSAL_LM_MAPPING,
    MODEL_MAPPING,
    AutoConfig,
    AutoModel,
    AutoModelForCausalLM,
    AutoTokenizer,
)
from transformers.utils import logging as hf_logging

from . import interface
from .hub import CACHE_ADVICE, NO_TOKENIZER, tokenizer_missing
from .interface import SUPPORTED, Unsupported
from .run import CaptureError

if TYPE_CHECKING:
    from typing import Any, Literal


EXTRA = "pip install 'attn-tui[models]' (in a checkout: pip install -e '.[models]')"

DTYPES = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}
DEVICES = ("auto", "cpu", "cuda")
DEVICE_MAPS = (None, "auto")


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


def check_options(dtype: str, device: str, device_map: Any | None = None) -> None:
    if device_map not in DEVICE_MAPS:
        raise CaptureError(f"--device-map: {device_map!r}; use auto (accelerate places the layers)")
    if dtype not in DTYPES:
        raise CaptureError(f"--dtype: {dtype!r}; use {', '.join(DTYPES)}")
    if device not in DEVICES:
        raise CaptureError(f"--device: {device!r}; use {', '.join(DEVICES)}")
    if device == "cuda" and not torch.cuda.is_available():
        raise CaptureError("--device cuda: torch sees no CUDA device here; use --device cpu")


def pick_device(device: str, device_map: Any | None = None) -> tuple[str, str]:
    """(the device the capture runs on, the words that say why) for --device (default auto: cuda when
    torch sees one, else cpu). CaptureError for a device that is not one of DEVICES."""
    if device not in DEVICES:
        raise CaptureError(f"--device: {device!r}; use {', '.join(DEVICES)}")
    if device_map is not None:
        return "auto", f"--device-map {device_map}: accelerate places the layers over the GPUs and the CPU"
    if device != "auto":
        return device, f"--device {device}"
    if torch.cuda.is_available():
        return "cuda", f"--device auto: torch sees CUDA ({torch.cuda.get_device_name(0)})"
    return "cpu", "--device auto: torch sees no CUDA device"


def quiet() -> None:
    """Errors only from transformers' and huggingface_hub's loggers: their retry notices and config
    warnings would bury the one line a failure gets (a download's bars still show on a terminal)."""
    hf_logging.set_verbosity_error()
    hub_logging.set_verbosity_error()


class _Progress:
    """A status line on stderr when loading takes more than a second (transformers draws its own
    bars for downloads and checkpoint shards)."""

    def __init__(self, what: str) -> None:
        self.what, self.t0, self.shown = what, time.perf_counter(), False
        self.timer = threading.Timer(1.0, self._show)
        self.timer.daemon = True

    def _show(self) -> None:
        self.shown = True
        print(f"attn-tui capture: loading {self.what} …", file=sys.stderr, flush=True)

    def __enter__(self) -> Any:
        if sys.stderr.isatty():  # a person watching; a pipe or a log gets only the outcome
            self.timer.start()
        return self

    def __exit__(self, *exc: object) -> Literal[False]:
        self.timer.cancel()
        if self.shown and exc[0] is None:
            print(f"attn-tui capture: loaded in {time.perf_counter() - self.t0:.1f} s", file=sys.stderr, flush=True)
        return False


def _hub_problem(model_id: str, exc: BaseException, unreachable: str | None) -> str:
    """The config's load failed (hub.settle refused the plain cases before torch loaded)."""
    if unreachable is not None:
        return f"{model_id}: the hub cannot be reached ({unreachable}); {CACHE_ADVICE}"
    return f"{model_id}: cannot load its config ({_first_line(exc)})"


def prepare(
    model_id: str,
    *,
    dtype: str = "float32",
    device: str = "cpu",
    revision: Any | None = None,
    trust_remote_code: bool = False,
    **kw: Any,
) -> Any:
    """(config, tokenizer) of ``model_id``: what the checks before the weights need (no download of
    the weights yet, no progress bar before a refusal). ``kw["unreachable"]``: why the hub cannot be
    reached (hub.go_offline_if_unreachable). CaptureError or Unsupported: one line."""
    check_options(dtype, device, kw.get("device_map"))
    quiet()
    opts = {"revision": revision, "trust_remote_code": trust_remote_code}
    with _Progress(model_id):
        try:
            config = AutoConfig.from_pretrained(model_id, **opts)
        except (OSError, ValueError, KeyError) as exc:
            raise CaptureError(_hub_problem(model_id, exc, kw.get("unreachable"))) from None
        if getattr(config, "is_encoder_decoder", False):
            raise Unsupported(f"{type(config).__name__}: an encoder-decoder; capture supports {SUPPORTED}")
        try:
            cls = MODEL_MAPPING[type(config)]  # the AutoModel class of this config
        except KeyError:
            cls = None
        if cls is not None and not cls.is_backend_compatible():
            raise Unsupported(f"{cls.__name__} does not route attention through AttentionInterface; {SUPPORTED}")
        missing = tokenizer_missing(model_id)
        if missing:
            raise CaptureError(missing)
        try:
            tokenizer = AutoTokenizer.from_pretrained(model_id, **opts)
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            raise CaptureError(f"{model_id}: cannot load its tokenizer ({_first_line(exc)})") from None
        if tokenizer is None or isinstance(tokenizer, bool):
            raise CaptureError(f"{model_id}: has no tokenizer (tokenizer.json or its vocabulary files). {NO_TOKENIZER}")
    return config, tokenizer


PICKLES = (".bin", ".pt", ".pth", ".ckpt", ".pkl")


def _pickled(model_id: str) -> str | None:
    """The name of a pickled weights file in the folder ``model_id``, when it holds one."""
    if not os.path.isdir(model_id):
        return None
    return next((e.name for e in sorted(os.scandir(model_id), key=lambda e: e.name) if e.name.endswith(PICKLES)), None)


def _load_problem(model_id: Any, config: Any, exc: BaseException, allow_pickle: bool) -> Exception:
    text = _first_line(exc)
    if "attn_implementation" in text or "attention implementation" in text.lower():
        return Unsupported(f"{type(config).__name__}: {text}; capture supports {SUPPORTED}")
    if "accelerate" in text.lower():
        return CaptureError(f"--device-map needs accelerate, which is not installed: {EXTRA}")
    pickle = None if allow_pickle else _pickled(model_id)
    if pickle is None and os.path.isdir(model_id) and "safetensors" in text.lower():  # no pickle either
        return CaptureError(
            f"{model_id}: no weights that load ({text.rstrip('.')}); capture reads model.safetensors, or the "
            "shards its model.safetensors.index.json names"
        )
    if pickle is not None or (not allow_pickle and "safetensors" in text.lower()):
        name = pickle or "a pickled file (.bin)"
        return CaptureError(
            f"{model_id}: its weights are in {name}, a pickle, which can run code as it loads; capture reads "
            f".safetensors only: give --allow-pickle to load it anyway, if you trust where it came from"
        )
    if "ignore_mismatched_sizes" in text or "above report" in text:  # transformers' report is not shown here
        return CaptureError(
            f"{model_id}: its weights do not have the shapes its config asks for (config.json names other sizes "
            "than the weights files hold); use the config that came with these weights"
        )
    return CaptureError(f"{model_id}: cannot load the model ({text})")


def auto_class(config: Any) -> Any:
    """AutoModelForCausalLM when the weights are a causal LM's (config.architectures names the causal LM
    class of its config: GPT2LMHeadModel, LlamaForCausalLM), else AutoModel: a base model's weights (a
    GPT2Model saved alone) hold no LM head, and a head made up at load would predict nothing of the model's."""
    try:
        lm = MODEL_FOR_CAUSAL_LM_MAPPING[type(config)]
    except KeyError:
        return AutoModel
    return AutoModelForCausalLM if lm.__name__ in (getattr(config, "architectures", None) or ()) else AutoModel


def load_model(
    model_id: str,
    config: Any,
    *,
    dtype: str = "float32",
    device: str = "cpu",
    revision: Any | None = None,
    trust_remote_code: bool = False,
    **kw: Any,
) -> Any:
    """The model (auto_class: with its LM head when it has one), eval mode, on ``device`` (or placed by accelerate under
    ``kw["device_map"]``), attention through the capture; weights from .safetensors only unless
    ``kw["allow_pickle"]``."""
    interface.register()
    if not sys.stderr.isatty():  # transformers' bars are for a person watching; a pipe or a log gets one line
        hf_logging.disable_progress_bar()
    device_map, allow_pickle = kw.get("device_map"), bool(kw.get("allow_pickle"))
    opts = {
        "revision": revision,
        "trust_remote_code": trust_remote_code,
        "use_safetensors": None if allow_pickle else True,
    }
    if device_map is not None:
        opts["device_map"] = device_map
    elif device != "cpu":  # the weights loaded straight onto the device: the host never holds them (issue 48)
        opts["device_map"] = device
    with _Progress(model_id):
        try:
            with warnings.catch_warnings():  # torch warns of a pickle's protocol in two lines: the refusal says it
                warnings.filterwarnings("ignore", category=UserWarning, module=r"torch\._weights_only_unpickler")
                model = auto_class(config).from_pretrained(
                    model_id, config=config, dtype=DTYPES[dtype], attn_implementation=interface.NAME, **opts
                )
        except pickle.UnpicklingError as exc:  # --allow-pickle: torch's weights-only loader refused what it found
            # torch writes the reason after "WeightsUnpickler error:", on that line or after blank lines
            found = re.search(r"WeightsUnpickler error:\s*([^\n]*[^\s.])", str(exc))
            what = found.group(1) if found else _first_line(exc) or "not weights alone"
            name = _pickled(model_id) or "its pickled weights"
            raise CaptureError(
                f"{model_id}: {name} holds more than weights, and torch's weights-only loader refused it "
                f"({what}); nothing of it ran"
            ) from None
        except (OSError, ValueError, KeyError, RuntimeError, ImportError) as exc:
            raise _load_problem(model_id, config, exc, allow_pickle) from None
    return (model if "device_map" in opts else model.to(device)).eval()

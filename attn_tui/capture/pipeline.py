"""The capture command's steps in order: the destination judged, config and tokenizer, the
text's limits, the weights, one forward pass checked and written layer by layer, the header."""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch
import transformers

from .. import __version__
from ..core.limits import printable
from .destination import Destination
from .limits import check_config, free_bytes
from .load import load_model, pick_device, prepare
from .run import CaptureError, capture, finish, tokenize

if TYPE_CHECKING:
    from typing import Any


def provenance(
    model: Any, model_id: str, revision: Any, dtype: str, device: str, layers: Any, result: Any
) -> dict[Any, Any]:
    """Where the heads came from and how well they match: kept in the file's metadata."""
    return {
        "model": model_id,
        "revision": revision,
        "commit": getattr(model.config, "_commit_hash", None),
        "architecture": type(model).__name__,
        "dtype": dtype,
        "device": device,
        "device_map": _placement(model) if device == "auto" else None,  # --device-map auto: where each part ran
        "layers": list(layers),
        "transformers": transformers.__version__,
        "torch": torch.__version__,
        "attn_tui": __version__,
        "max_abs_dA": result.max_abs_diff,
        "allowed_dA_at_worst": result.allowed_at_worst,
        "worst_head": list(result.worst),
        "dA_by_head": [list(r) for r in result.by_head],
    }


def _placement(model: Any) -> dict[Any, Any]:
    """Where accelerate put the model: its device map (module -> device) when it split the model, else
    {"": the one device} (it then moves the whole model, keeping no map)."""
    placed = getattr(model, "hf_device_map", None)
    return {k: str(v) for k, v in placed.items()} if placed else {"": str(model.device)}


def capture_to_file(
    model_id: Any,
    text: str,
    out: Any,
    *,
    layers: Any | None = None,
    keep_A: bool = False,
    force: bool = False,
    opening: bool = False,
    **kw: Any,
) -> Any:
    """(path written, HeadsCheck). ``kw``: dtype, device, device_map, revision, trust_remote_code,
    allow_pickle (load.py). CaptureError when a head's A is past what the dtype allows: no file is
    written then; WriteError when the file cannot be written in full (nothing is left)."""
    dtype, device = kw.get("dtype", "float32"), pick_device(kw.get("device", "auto"), kw.get("device_map"))[0]
    kw["device"] = "cpu" if device == "auto" else device
    dest = Destination(out, force, opening)
    with dest as tmp:
        config, tokenizer = prepare(model_id, **kw)
        problem = check_config(config, model_id, dtype, device)  # before any weight loads
        if problem:
            raise CaptureError(problem)
        limits = {"dtype": dtype, "keep_A": keep_A, "free": free_bytes(model_id, device)}
        enc = tokenize(tokenizer, config, text, layers=layers, model_id=model_id, **limits)
        model = load_model(model_id, config, **kw)
        try:
            c = capture(model, tokenizer, enc, tmp, layers=layers, keep_A=keep_A)
            result = c.result
            if not result.holds:
                c.writer.close()
                layer, head, diff, allowed = result.failed[0]
                how = "holds NaN where the other does not" if diff != diff else f"by {diff:.2g}"
                raise CaptureError(
                    f"{model_id}: layer {c.layers[layer]}, head {head}: A recomputed from the captured Q, K differs "
                    f"from the model's {how} (allowed {allowed:.2g} in {dtype}); no file written"
                )
            name = printable(model_id)[:80]
            where = "auto" if kw.get("device_map") else device
            prov = provenance(model, model_id, kw.get("revision"), dtype, where, c.layers, result)
            prov.update(c.provenance)
            # the check's figure is in the provenance: every view shows it from there
            finish(c, title=f"{name} · {dtype}", source=name, provenance=prov)
            return dest.commit(), result
        except OSError as exc:
            raise dest.write_error(exc) from None

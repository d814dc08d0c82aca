"""The capture command's steps in order: load, one forward pass, the check, the file."""

from __future__ import annotations

import torch
import transformers

from .. import __version__
from ..core.limits import printable
from .load import load_model, prepare
from .run import CaptureError, capture, check, tokenize, write_checked


def provenance(model, model_id: str, revision, dtype: str, device: str, layers, result) -> dict:
    """Where the heads came from and how well they match: kept in the file's metadata."""
    return {
        "model": model_id,
        "revision": revision,
        "commit": getattr(model.config, "_commit_hash", None),
        "architecture": type(model).__name__,
        "dtype": dtype,
        "device": device,
        "layers": list(layers),
        "transformers": transformers.__version__,
        "torch": torch.__version__,
        "attn_tui": __version__,
        "max_abs_dA": result.max_abs_diff,
        "allowed_dA_at_worst": result.allowed_at_worst,
        "worst_head": list(result.worst),
    }


def capture_to_file(
    model_id, text, out, *, layers=None, dtype="float32", device="cpu", revision=None, trust_remote_code=False
):
    """(path written, HeadsCheck). CaptureError when a head's A is past what ``dtype`` allows:
    no file is written then."""
    kw = {"dtype": dtype, "device": device, "revision": revision, "trust_remote_code": trust_remote_code}
    config, tokenizer = prepare(model_id, **kw)
    enc = tokenize(tokenizer, config, text, layers=layers, model_id=model_id)
    model = load_model(model_id, config, **kw)
    c = capture(model, tokenizer, enc, layers=layers, device=device)
    result = check(c)
    if not result.holds:
        layer, head, diff, allowed = result.failed[0]
        raise CaptureError(
            f"{model_id}: layer {c.layers[layer]}, head {head}: A recomputed from the captured Q, K differs from the "
            f"model's by {diff:.2g} (allowed {allowed:.2g} in {dtype}); no file written"
        )
    name = printable(model_id)[:80]
    title = f"{name} · {dtype}"  # the check's figure is in the provenance: every view shows it from there
    prov = provenance(model, model_id, revision, dtype, device, c.layers, result)
    prov.update(c.provenance)
    return write_checked(c, out, title=title, source=name, provenance=prov, result=result), result

"""The built-in multi-head scenarios, one a model of core/models (MODELS: induction-demo, text-demo):
the model run on a text, every head of every layer ready for head_scenario and the readings."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..labeltext import shortened
from ..models import MODELS, ModelEntry
from .source import HeadSource

if TYPE_CHECKING:
    from typing import Any

DEFAULT_TOKENS = MODELS["induction-demo"].default_text  # ten letters, then the same ten again


def memory_reader(arrays: dict[Any, Any]) -> Any:
    """read(name, layer, head=None) over whole [L, H, ...] arrays held in memory."""

    def read(name: str, layer: int, head: int | None = None) -> Any:
        a = arrays[name][layer]
        return a if head is None else a[head]

    return read


def model_source(entry: ModelEntry, text: str | None = None) -> HeadSource:
    """Every head of ``entry``'s model on ``text`` (its default when None); InputError (a ValueError,
    one line about the text): nothing to read, an unknown token, too long."""
    text = entry.default_text if text is None else text
    enc, run = entry.run(text)
    model = entry.model()
    L, H, d_k = model.n_layers, model.n_heads, model.d_k
    arrays = {"Q": run.Q, "K": run.K, "V": run.V, "A": run.A, "W_O": model.W_O.reshape(L, H * d_k, -1)}
    shown = " ".join(text.split()) if entry.field == "tokens" else text
    return HeadSource(
        title=shortened(f"{entry.name} on {shortened(shown, 120)!r}", 200),  # '…' inside the quotes where cut
        source=entry.source,
        tokens=enc.labels,
        ids=tuple(int(i) for i in enc.ids) if enc.raw else enc.labels,  # a tokenizer's ids; the demo's letters
        key_tokens=(),
        shapes={k: a.shape for k, a in arrays.items()},
        kv_head=tuple(range(H)),
        scales=(float(model.scale),) * L,
        masks=(("causal", None),) * L,
        dtype="float64",
        read=memory_reader(arrays),
        raw_tokens=enc.raw,
        drawn=enc.drawn,
        model=entry,
        run=run,
        text=text,
    )


def _builtin(entry: ModelEntry) -> Any:
    def open_builtin(text: str | None = None) -> HeadSource:
        return model_source(MODELS[entry.name], text)  # the registry's entry when called

    open_builtin.__doc__ = f"{entry.summary}\n\nIts heads on ``text`` (default: the entry's default_text)."
    return open_builtin


HEAD_BUILTINS = {name: _builtin(entry) for name, entry in MODELS.items()}
induction_demo = HEAD_BUILTINS["induction-demo"]

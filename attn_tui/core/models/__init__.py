"""Every model the app runs, in NumPy: one registry, one tokenizer protocol, one forward.

- ``MODELS``: name -> ModelEntry (the built-ins `induction-demo` and `text-demo`), read by the heads'
  built-ins (core/heads/demo.py: HEAD_BUILTINS), the CLI and the explorer;
- ``ModelEntry.encode(text)`` -> Encoded (tokenizer.py: ids, labels, raw tokens), an InputError
  (one line about the text) when the model cannot read it;
- ``ModelEntry.run(text)`` -> (Encoded, Run) (run.py: every layer's Q, K, V, A, each head's
  output into the residual stream, the residual stream, the final LN's 1/σ, the logits; float64).

induction.py is the demo over the letters a..z, text.py the text model over a byte-level BPE
(`tokenizers` imported only when it is first used). A model loads on first use and is kept.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..labeltext import not_utf8
from .run import Run
from .tokenizer import Encoded, InputError, Tokenizer

if TYPE_CHECKING:
    from typing import Any

# A sentence in the style of the text the model learnt from (the Python docs), whose second half
# repeats a phrase of the first: an induction head attends from each repeated token to the token that
# followed its first occurrence, and the model predicts it.
TEXT_DEMO = (
    "The method returns a list of the keys in the dictionary. "
    "A second call returns a list of the keys in the dictionary."
)


@dataclass(frozen=True)
class ModelEntry:
    """A built-in model: what it is called, what it reads, where its weights come from, its loader."""

    name: str
    summary: str  # one line: what the open dialog and the CLI's help say of it
    field: str  # what its input is called: "tokens" (the demo's letters) or "text"
    default_text: str
    source: str  # where its weights come from
    load: Callable[..., Any]  # () -> the model (kept after the first call): .tokenizer, .n_ctx, .forward(ids)

    def model(self) -> Any:
        return self.load()

    @property
    def what(self) -> str:
        """What a text is to its tokenizer ("letters a..z separated by spaces")."""
        return self.model().tokenizer.what

    def encode(self, text: str) -> Encoded:
        """The tokens of ``text``; InputError (one line): nothing to read, an unknown token, too long."""
        where = not_utf8(text)
        if where:  # an argument that was not UTF-8 (the tokenizer raised a TypeError of its own)
            raise InputError(f"not UTF-8 text ({where})")
        model = self.model()
        widest = getattr(model.tokenizer, "max_token_bytes", None)
        size = len(text.encode("utf-8", errors="replace"))
        if widest and size > model.n_ctx * widest:  # too long for certain: not tokenized (a megabyte took 6 s)
            raise InputError(
                f"{size:,} bytes: more than {model.n_ctx:,} tokens (no token is over {widest} bytes); "
                f"the model has {model.n_ctx:,} positions"
            )
        enc = model.tokenizer.encode(text)
        if len(enc.ids) > model.n_ctx:
            raise InputError(f"{len(enc.ids):,} tokens; the model has {model.n_ctx:,} positions")
        return enc

    def trained_up_to(self) -> int | None:
        """The longest text the model was trained on, in tokens (its metadata's n_ctx_train), or None
        when its file does not say (the induction demo's 32 positions are all it was trained on)."""
        meta = getattr(self.model(), "meta", None) or {}
        value = str(meta.get("n_ctx_train", ""))
        return int(value) if value.isdigit() else None

    def beyond_training(self, T: int) -> str | None:
        """One line when a text of ``T`` tokens is longer than the model was ever trained on, else None."""
        most = self.trained_up_to()
        if most is None or T <= most:
            return None
        return (
            f"{T:,} tokens: {self.name} was never trained on a text longer than {most:,} tokens "
            f"(its longest training window); what it does past t{most} is outside its training"
        )

    def run(self, text: str) -> tuple[Encoded, Run]:
        """(the tokens of ``text``, the forward pass over them)."""
        enc = self.encode(text)
        return enc, self.model().forward(enc.ids)


def _induction() -> Any:
    from .induction import shipped_model

    return shipped_model()


def _text() -> Any:
    from .text import shipped_text_model

    return shipped_text_model()


MODELS = {
    "induction-demo": ModelEntry(
        name="induction-demo",
        summary="A small trained model (two layers of 4 heads over a..z): its previous-token and induction heads.",
        field="tokens",
        default_text="q w e r t y u i o p q w e r t y u i o p",  # ten letters, then the same ten again
        source="attn_tui/core/models/induction_demo.npz (scripts/train_induction_demo.py)",
        load=_induction,
    ),
    "text-demo": ModelEntry(
        name="text-demo",
        summary="A small model trained on English text (two attention-only layers): any sentence, its heads.",
        field="text",
        default_text=TEXT_DEMO,
        source="attn_tui/core/models/text_model.safetensors (scripts/train_text_model.py)",
        load=_text,
    ),
}

__all__ = ["MODELS", "ModelEntry", "Run", "Encoded", "InputError", "Tokenizer"]

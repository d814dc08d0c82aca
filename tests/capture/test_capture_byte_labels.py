"""A byte-level capture's token labels from the bytes its tokens stand for (capture/labels.py), the
rule the built-in text model's labels follow (core/token_bytes): a byte of a character split over
tokens reads <C3>, never the stand-in character ('Ã') its token is spelt with; the file says so
(provenance.byte_level) and the token view draws the text as typed. A WordPiece or SentencePiece
tokenizer keeps the plain rule (capture_check.token_label)."""

from __future__ import annotations

import numpy as np

from attn_tui.capture.labels import byte_level
from attn_tui.cli import main
from attn_tui.core.heads.door import open_heads
from attn_tui.core.labeltext import token_label
from attn_tui.core.token_bytes import BYTE_MARK
from attn_tui.tui.app import AttentionApp
from attn_tui.tui.heads_nav import open_ref
from tests.capture.tiny_models import CORPUS, byte_level_tokenizer, require_models, wordpiece_tokenizer
from tests.tui.app_fixtures import chart_interval  # noqa: F401 (autouse: the chart unthrottled, as in tests/tui)

TEXT = "the cat läuft über the mat"  # ä, ü: the tiny tokenizer (trained on ASCII) has no token of either whole
STAND_INS = "ÃÂĠĊ"  # how GPT-2's byte table spells the bytes C3, C2, a space, a newline


def _capture(folder, tmp_path, capsys, *extra) -> str:
    out = tmp_path / "split.safetensors"
    assert main(["capture", str(folder), TEXT, "--out", str(out), "--device", "cpu", *extra]) == 0
    capsys.readouterr()
    return str(out)


def _bytes_shown(text: str) -> bool:
    """Whether a token decoded alone to ``text`` is labelled by its bytes: a byte of a split character
    (decoded �) or a control character (its bytes, as the built-in model's labels show one)."""
    return any(c == "\ufffd" or not (c.isprintable() or c in " \n\t\r") for c in text)


def _split(label: str) -> bool:
    return BYTE_MARK.search(label) is not None and not any(c in label for c in STAND_INS)


def test_split_bytes_read_as_bytes_and_whole_tokens_as_decoded(tiny_folders, tmp_path, capsys):
    require_models()
    from transformers import AutoTokenizer

    folder = tiny_folders("gpt2", lm=True)
    src = open_heads(_capture(folder, tmp_path, capsys))
    tok = AutoTokenizer.from_pretrained(folder)
    assert src.provenance["byte_level"] is True
    decoded = [tok.decode([i]) for i in src.provenance["token_ids"]]
    assert sum("\ufffd" in d for d in decoded) >= 2  # the text does split characters
    for text, label in zip(decoded, src.tokens, strict=True):
        assert _split(label) if _bytes_shown(text) else label == token_label(text), (text, label)
    # the text as typed: each split character drawn once, on the token that completes it (◌ on the others)
    assert "".join(src.drawn).replace("◌", "").replace("␣", " ") == TEXT
    # the model's next tokens are labelled by the same rule (a random model ranks byte tokens too)
    vocab = src.provenance["prediction"]["vocab"]
    for v, label in zip(vocab, src.top.labels, strict=True):
        text = tok.decode([v])
        assert _split(label) if _bytes_shown(text) else label == token_label(text), (v, text, label)


async def test_the_token_view_draws_the_text_as_typed(tiny_folders, tmp_path, capsys, monkeypatch):
    require_models()
    monkeypatch.setenv("TERM", "xterm-256color")
    s, ref = open_ref(_capture(tiny_folders("gpt2"), tmp_path, capsys, "--keep-A"))
    app = AttentionApp(scenario=s, head=ref)
    app.first_screen = False
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("T")
        await pilot.app.workers.wait_for_complete()
        await pilot.app.screen.workers.wait_for_complete()
        await pilot.pause()
        text = app.screen.query_one("#token-text")
        assert text.joined and "".join(text.texts).replace("◌", "").replace("␣", " ") == TEXT
        assert not any(c in "".join(text.texts) for c in STAND_INS)
        assert np.isfinite(np.asarray(text.codes, dtype=np.float64)).all()


def test_a_wordpiece_capture_keeps_the_plain_labels(tiny_folders, tmp_path, capsys):
    require_models()
    src = open_heads(_capture(tiny_folders("bert"), tmp_path, capsys))
    assert src.provenance["byte_level"] is False and src.drawn == ()
    assert list(src.tokens) == [token_label(t) for t in src.raw_tokens]


def test_byte_level_is_shown_by_the_tokenizer_not_assumed():
    """True only where the tokens' bytes decode to what the tokenizer decodes: a WordPiece token 'é'
    is spelt with a character of GPT-2's table (byte E9), a SentencePiece one with ▁ (in no table)."""
    require_models()
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    meta = Tokenizer(models.BPE(unk_token="<unk>"))
    meta.pre_tokenizer = pre_tokenizers.Metaspace()
    meta.decoder = decoders.Metaspace()
    meta.train_from_iterator([*CORPUS, "café"], trainers.BpeTrainer(vocab_size=200, special_tokens=["<unk>"]))
    for tok, want in (
        (byte_level_tokenizer(), True),
        (wordpiece_tokenizer(), False),
        (PreTrainedTokenizerFast(tokenizer_object=meta, unk_token="<unk>"), False),
    ):
        for text in ("the cat sat", "the café"):
            ids = tok(text, add_special_tokens=False)["input_ids"]
            assert byte_level(tok, tok.convert_ids_to_tokens(ids), ids) is want, (type(tok.backend_tokenizer), text)

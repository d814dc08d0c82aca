"""MODEL as a local folder or a Hugging Face hub id, judged before torch and transformers are
imported: a path that does not exist says so (not a hub id's error), and a hub id with no network
fails in seconds, not after huggingface_hub's retries (~40 s measured: five, 1 + 2 + 4 + 8 + 8 s).

Imports neither torch nor transformers (capture_cli calls it first)."""

from __future__ import annotations

import os
import re
import socket
from urllib.parse import urlsplit

from ..core.limits import printable

PROBE_SECONDS = 3.0
DEFAULT_ENDPOINT = "https://huggingface.co"
_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*(/[A-Za-z0-9][A-Za-z0-9._-]*)?")
CACHE_ADVICE = (
    "give a local folder (a model's save_pretrained), or fetch the model once where the hub is reachable: "
    "it is then kept in the cache, and HF_HUB_OFFLINE=1 reads it from there without trying the network"
)


def _truthy(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() in ("1", "true", "yes", "on")


def locate(model: str) -> str:
    """ "folder" or "hub"; ValueError (one line) for a path that is not a model folder."""
    if os.path.isdir(model):
        return "folder"
    if os.path.exists(model):
        raise ValueError(f"{printable(model)}: is a file; MODEL is a model's folder or a hub id (such as gpt2)")
    if not _ID.fullmatch(model) or model.startswith("."):  # ./x, ../x, /x, ~/x, a/b/c: a path, not an id
        raise ValueError(f"{printable(model)}: no such folder")
    return "hub"


def offline() -> bool:
    return _truthy("HF_HUB_OFFLINE") or _truthy("TRANSFORMERS_OFFLINE")


def unreachable(timeout: float = PROBE_SECONDS) -> str | None:
    """Why the hub cannot be reached (its host's name unknown, no route, no answer in ``timeout``
    seconds), or None when a connection opens. Behind a proxy (HTTPS_PROXY) the library's own way
    is left alone: None."""
    if any(os.environ.get(k) for k in ("HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy")):
        return None
    url = urlsplit(os.environ.get("HF_ENDPOINT") or DEFAULT_ENDPOINT)
    host, port = url.hostname or "huggingface.co", url.port or (80 if url.scheme == "http" else 443)
    try:
        socket.create_connection((host, port), timeout=timeout).close()
    except socket.gaierror:
        return f"{host}: its name does not resolve"
    except TimeoutError:
        return f"{host}: no answer in {timeout:g} s"
    except OSError as exc:
        return f"{host}: {exc.strerror or exc}"
    return None


def settle(model: str, trust_remote_code: bool = False, revision: str | None = None) -> str | None:
    """Before torch and transformers are imported (seconds): a local folder is read without the network
    (HF_HUB_OFFLINE=1: nothing is looked up on the hub, however its config or tokenizer names one)
    unless its own code may fetch more (--trust-remote-code), and must hold a tokenizer; a hub id goes
    offline when the hub is unreachable, and is refused at once when the cache lacks it. Returns why
    the hub is unreachable, or None. ValueError (one line) for each refusal."""
    if locate(model) == "folder":
        if not trust_remote_code:
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
        missing = tokenizer_missing(model)
        if missing:
            raise ValueError(missing)
        return None
    chosen = offline()  # HF_HUB_OFFLINE set by the user: the cache only
    reason = go_offline_if_unreachable()
    if (chosen or reason is not None) and not _cached(model, revision):
        why = "HF_HUB_OFFLINE is set" if chosen else f"the hub cannot be reached ({reason})"
        raise ValueError(f"{model}: {why} and it is not in the cache; {CACHE_ADVICE}")
    return reason


def _cached(model: str, revision: str | None) -> bool:
    """Whether the hub cache holds ``model``'s config (huggingface_hub, imported after HF_HUB_OFFLINE is set)."""
    from huggingface_hub import try_to_load_from_cache

    try:
        return isinstance(try_to_load_from_cache(model, "config.json", revision=revision), str)
    except ValueError:  # not a repository id huggingface_hub accepts
        return False


TOKENIZER_FILES = (
    "tokenizer.json",
    "tokenizer_config.json",
    "vocab.json",
    "vocab.txt",
    "tokenizer.model",
    "spiece.model",
    "sentencepiece.bpe.model",
)


def tokenizer_missing(model: str) -> str | None:
    """For a local folder without any tokenizer file, the one line that says so; else None."""
    if not os.path.isdir(model) or any(os.path.isfile(os.path.join(model, f)) for f in TOKENIZER_FILES):
        return None
    return (
        f"{printable(model)}: has no tokenizer (none of tokenizer.json, tokenizer_config.json, vocab.json, "
        f"tokenizer.model); save the model's tokenizer beside it (tokenizer.save_pretrained(folder)). {NO_TOKENIZER}"
    )


# what a learner whose model was built offline, with no tokenizer of its own, can do (said with both refusals)
NO_TOKENIZER = (
    "A model you built yourself has none: save one whose vocabulary is its embedding's, e.g. "
    "AutoTokenizer.from_pretrained('gpt2').save_pretrained(folder) for a GPT-2-sized vocabulary (50257), "
    "or write its heads from Python with save_heads (docs/HEADS.md, Multi-head files)"
)


def go_offline_if_unreachable() -> str | None:
    """For a hub id: when the hub cannot be reached, HF_HUB_OFFLINE=1 for this process (the cache
    answers at once, or the load fails at once) and the reason is returned for the refusal."""
    if offline():
        return None
    reason = unreachable()
    if reason is not None:
        os.environ["HF_HUB_OFFLINE"] = "1"
    return reason

"""Issue 34 (hostile input, round 2): bombs judged from their headers (asserted on what is
allocated and on what is inflated, never on time), the safetensors header's duplicates, the
backstop that turns any unforeseen exception into one line naming the file, and JSON that is
valid UTF-8 whatever the file's name."""

from __future__ import annotations

import tracemalloc
import zipfile

import pytest

from attn_tui.cli import main
from attn_tui.core import arrays_io, limits, scenario_io
from attn_tui.core.scenario_io import ScenarioError, resolve
from tests.core.badarrays import ARRAYS, EYE, TOML, npy, npz, qk

CASES = {name: raw for name, _, _, raw, _ in ARRAYS}
QK = "Q = [[1.0, 0.0], [0.0, 1.0]]\nK = [[1.0, 0.0], [0.0, 1.0]]\n"


def refusal(path) -> str:
    with pytest.raises(ScenarioError) as err:
        resolve(path, large=True)
    msg = str(err.value)
    assert "\n" not in msg and msg.startswith(f"{path}: ")
    return msg.removeprefix(f"{path}: ")


def peak_of(fn) -> int:
    tracemalloc.start()
    try:
        fn()
    except ScenarioError:
        pass
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return peak


@pytest.mark.parametrize(
    "name", ["npz tokens inflate to 10**7", "npz title of 5 M characters", "npz padding of 10**6 ones"]
)
def test_an_npz_bomb_is_refused_without_inflating_its_member(tmp_path, name, monkeypatch):
    """40 MB of labels, 20 MB of title, 8 MB of padding, each deflated to a few KB: refused from
    the header, the member inflated no further than its first block (and nothing of its size
    allocated). The old reader inflated all of it, then refused or accepted it."""
    p = tmp_path / "bomb.npz"
    p.write_bytes(CASES[name])
    bomb = next(i for i in zipfile.ZipFile(p).infolist() if i.filename not in ("Q.npy", "K.npy"))
    assert bomb.file_size >= 8 * 10**6 and p.stat().st_size < 200_000
    inflated = []
    real_read = zipfile.ZipExtFile.read

    def counting_read(self, n=-1):
        data = real_read(self, n)
        inflated.append((self.name, len(data)))
        return data

    monkeypatch.setattr(zipfile.ZipExtFile, "read", counting_read)
    assert peak_of(lambda: resolve(p, large=True)) < 2 * 2**20
    assert sum(n for member, n in inflated if member == bomb.filename) < 10_000  # one header block, not the member
    assert refusal(p).startswith(bomb.filename.removesuffix(".npy") + ": ")


def test_the_npz_member_sizes_are_the_ones_numpy_writes(tmp_path):
    """A good .npz (stored and deflated) passes the member checks: each declared size is exactly
    header + data."""
    for method in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
        p = tmp_path / f"ok{method}.npz"
        p.write_bytes(npz({"Q.npy": npy(EYE), "K.npy": npy(EYE), "tokens.npy": npy(["a", "b"])}, method))
        assert resolve(p).T == 2


def test_a_zip_directory_of_50000_entries_is_refused_before_zipfile_builds_them(tmp_path):
    """zipfile builds a ZipInfo per central-directory entry (26 MB for these 50,000 empty ones,
    ~800 MB for a 128 MiB file) before the member count could be checked."""
    p = tmp_path / "dir.npz"
    p.write_bytes(npz({"Q.npy": npy(EYE), "K.npy": npy(EYE), **{f"{i}": b"" for i in range(50_000)}}))
    assert peak_of(lambda: resolve(p, large=True)) < 2 * p.stat().st_size + 2**20  # the bytes read, once joined
    assert refusal(p).startswith("its zip directory declares 50,002 entries in ")


def test_a_2_to_the_40_label_header_is_refused_and_allocates_nothing(tmp_path):
    p = tmp_path / "l.npz"
    p.write_bytes(CASES["npz 2**40 labels"])
    assert peak_of(lambda: resolve(p, large=True)) < 2 * 2**20
    assert refusal(p) == "tokens: 1,099,511,627,776 labels; this file's matrices have at most 2 rows/columns"


@pytest.mark.parametrize(
    ("text", "words"),
    ids=["one key", "many keys", "quoted table header"],
    argvalues=[
        (".".join(f"k{i}" for i in range(30_000)) + " = 1\n", "a dotted key of more than 16 parts (line 1); at most"),
        ("".join(f"x{j}.a.b.c.d.e.f.g.h.i = 1\n" for j in range(3000)), "more than 4,096 dotted key parts (line"),
        ("[" + ".".join(f'"k{i}"' for i in range(30_000)) + "]\n", "a dotted key of more than 16 parts (line 1)"),
    ],
)
def test_toml_dotted_keys_are_bounded_before_tomllib(tmp_path, text, words):
    """20,000 parts took 1.5 GiB (30,000: 3.5 GiB) before `k0: unknown key`: now refused with
    no more than a few copies of the text allocated."""
    p = tmp_path / "d.toml"
    p.write_text(text + QK)
    assert peak_of(lambda: resolve(p)) < 4 * len(text) + 2**20  # a copy or two of the text
    assert words in refusal(p)


def test_floats_strings_and_comments_with_dots_are_not_keys(tmp_path):
    p = tmp_path / "ok.toml"
    dots = "v1.2.3.4.5.6.7.8.9.10.11.12.13.14.15.16.17.18"
    p.write_text(f'title = "{dots}"\n# {dots}\ntokens = ["a.b.c", \'{dots[:20]}\']\n' + QK)
    s = resolve(p)
    assert s.title == dots and s.tokens[0] == "a.b.c"


def test_safetensors_json_duplicates_are_refused_not_kept_last(tmp_path):
    p = tmp_path / "t.safetensors"
    for name, words in [
        ("safetensors Q twice", "Q: given twice in the header (a JSON reader keeps only the last)"),
        ("safetensors metadata name twice", "c: given twice in the header"),
        ("safetensors Q tensor and metadata", "Q: both a tensor and a metadata entry; give it once"),
        ("safetensors dtype a list", "Q: dtype ['F64']; a matrix holds F16, F32, F64 or integers"),
    ]:
        p.write_bytes(CASES[name])
        assert refusal(p).startswith(words), name


def test_the_backstop_names_the_file_and_cuts_at_a_word(tmp_path, monkeypatch, capsys):
    """An exception no check foresaw: one line naming the file at every door, exit 2, never a
    traceback, never a cut mid-word (it said `(MemoryError: … data ty)`)."""
    p = tmp_path / "s.npz"
    p.write_bytes(qk())
    why = "Unable to allocate 4.00 TiB for an array with shape (1099511627776,) and data type <U1"

    def boom(*args, **kwargs):
        raise MemoryError(why)

    monkeypatch.setattr(arrays_io, "read", boom)
    msg = f"{p}: cannot be read (MemoryError: Unable to allocate 4.00 TiB for an array with shape (1099511627776,) and...)"  # noqa: E501
    for door in (scenario_io.load, resolve):
        with pytest.raises(ScenarioError) as err:
            door(p)
        assert str(err.value) == msg
    for argv in (["report", "--scenario", str(p)], ["report", "--json", "--scenario", str(p)]):
        assert main(argv) == 2
        assert capsys.readouterr().err == f"attn-tui: {msg}\n"  # the one refusal prefix (cli/errors)
    monkeypatch.setattr(arrays_io, "read", lambda *a, **k: (_ for _ in ()).throw(TypeError("unhashable type: 'list'")))
    assert refusal(p) == "cannot be read (TypeError: unhashable type: 'list')"


def test_the_cli_backstop_names_the_scenario(tmp_path, monkeypatch, capsys):
    from attn_tui.cli import report

    p = tmp_path / "s.npz"
    p.write_bytes(qk())
    monkeypatch.setattr(report, "render", lambda args: (_ for _ in ()).throw(MemoryError("x " * 40 + "data type")))
    assert main(["report", "--scenario", str(p)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"attn-tui: {p}: cannot compute this scenario (MemoryError: x x") and err.endswith("...)\n")


def test_cut_words_never_cuts_a_word():
    text = "Unable to allocate 4.00 TiB for an array with shape (1099511627776,) and data type <U1"
    assert limits.cut_words(text, 80) == "Unable to allocate 4.00 TiB for an array with shape (1099511627776,) and..."
    assert limits.cut_words(text, 60) == "Unable to allocate 4.00 TiB for an array with shape..."
    assert limits.cut_words("short", 80) == "short"
    assert limits.cut_words("x" * 100, 20) == "x" * 17 + "..."  # one word longer than the line: cut, marked
    assert limits.unexpected(MemoryError()) == "MemoryError"


def test_every_new_class_is_in_the_corpus():
    classes = {c for _, c, _, _, _ in ARRAYS} | {c for _, c, _, _ in TOML}
    assert classes == {"array headers", "zip entries", "safetensors header", "toml bombs", "format characters"}

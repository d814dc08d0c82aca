"""Every bad input of issue 2 is refused with one line naming the place."""

import numpy as np
import pytest

from attn_tui.core import attention, builtin, causal_mask, softmax
from attn_tui.core.attention import additive_mask, blocked_cells, fill_value
from attn_tui.core.scenario_io import ScenarioError, load, loads, resolve

EYE = np.eye(3)


# -- the core's ValueErrors name the matrix and the cell -----------------------------
@pytest.mark.parametrize("which", ["Q", "K", "V"])
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_entry_names_matrix_row_column(which, bad):
    mats = {"Q": EYE.copy(), "K": EYE.copy(), "V": EYE.copy()}
    mats[which][1, 2] = bad
    with pytest.raises(ValueError) as e:
        attention(mats["Q"], mats["K"], mats["V"])
    msg = str(e.value)
    assert msg.startswith(f"{which}:") and "row 2, column 3" in msg and "\n" not in msg


@pytest.mark.parametrize(
    "Q,K,V,where",
    [
        (np.ones((3, 4)), np.ones((3, 2)), np.ones((3, 2)), r"K: columns \(d_k\) must match Q's \(got 2, expected 4\)"),
        (np.ones((3, 4)), np.ones((3, 4)), np.ones((2, 2)), r"V: rows must match K's .*\(got 2, expected 3\)"),
        (np.ones((2, 2)), np.ones((3, 2)), np.ones((3, 2)), None),  # cross-attention is fine
    ],
)
def test_mismatched_shapes(Q, K, V, where):
    if where is None:
        assert attention(Q, K, V).A.shape == (2, 3)
        return
    with pytest.raises(ValueError, match=rf"^{where}"):
        attention(Q, K, V)


def test_mask_of_wrong_shape():
    with pytest.raises(ValueError, match=r"^mask: shape \(2, 2\) must be \(3, 3\)"):
        attention(EYE, EYE, EYE, mask=np.zeros((2, 2)))


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_mask_with_nan_or_plus_inf(bad):
    M = np.zeros((3, 3))
    M[2, 0] = bad
    with pytest.raises(ValueError, match=r"^mask: row 3, column 1"):
        attention(EYE, EYE, EYE, mask=M)


@pytest.mark.parametrize("a,name", [(np.zeros((0, 3)), "Q"), ([], "Q"), (np.zeros((3, 0)), "Q")])
def test_empty_matrix(a, name):
    with pytest.raises(ValueError, match=rf"^{name}: (is empty|must be a 2-D)"):
        attention(a, EYE, EYE)


@pytest.mark.parametrize("a", [[1.0, 2.0], [[[1.0]]], [[1.0, 2.0], [3.0]], [["a", "b"]]])
def test_not_a_matrix(a):
    with pytest.raises(ValueError, match=r"^Q: "):
        attention(a, EYE, EYE)


def test_unknown_mask_fill_dtype():
    with pytest.raises(ValueError, match=r"^mask: unknown mask 'diagonal'"):
        blocked_cells("diagonal", 3)
    with pytest.raises(ValueError, match=r"^fill: unknown fill '-big'"):
        causal_mask(3, fill="-big")
    with pytest.raises(ValueError, match=r"^fill: "):
        additive_mask(np.ones((2, 2), bool), "zero")
    for dt in ("float8", "int32", np.int64, "bogus"):
        with pytest.raises(ValueError, match=r"^dtype: unknown dtype"):
            attention(EYE, EYE, EYE, dtype=dt)
        with pytest.raises(ValueError, match=r"^dtype: unknown dtype"):
            causal_mask(3, dtype=dt)
    with pytest.raises(ValueError, match=r"^scale: must be finite"):
        attention(EYE, EYE, EYE, scale=float("inf"))
    with pytest.raises(ValueError, match=r"^padding: key position 5"):
        blocked_cells("causal", 3, padding=[5])


def test_fill_values():
    assert fill_value("-inf") == -np.inf
    assert fill_value("min", np.float16) == np.finfo(np.float16).min
    assert np.isneginf(fill_value("-1e9", np.float16))


def test_softmax_of_all_minus_inf_is_nan_not_an_error():
    assert np.isnan(softmax(np.full(3, -np.inf))).all()


def test_unknown_builtin():
    with pytest.raises(ValueError, match=r"^scenario: no built-in named 'nope'"):
        builtin("nope")


# -- scenario files: one line naming the file, the key, the row and column ----------
BASE = 'title = "t"\nQ = [[1.0, 0.0], [0.0, 1.0]]\nK = [[1.0, 0.0], [0.0, 1.0]]\n'
PIPE = "X = [[1.0, 0.0], [0.0, 1.0]]\nW_K = [[1.0], [0.0]]\nW_V = [[1.0], [0.0]]\n"
FILE_CASES = [
    ("unknown key", BASE + "colour = 3\n", ["colour", "unknown key"]),
    ("misspelt key", BASE + "W_q = [[1.0]]\n", ["W_q", "unknown key"]),
    ("ragged rows", "Q = [[1.0, 0.0], [0.0]]\nK = [[1.0, 0.0]]\n", ["Q", "row 2", "ragged"]),
    ("K wrong width", "Q = [[1.0, 0.0]]\nK = [[1.0, 0.0, 1.0]]\n", ["K", "3 columns", "d_k"]),
    ("V wrong rows", BASE + "V = [[1.0], [2.0], [3.0]]\n", ["V", "3 rows"]),
    ("W_Q wrong rows", PIPE + "W_Q = [[1.0]]\n", ["W_Q", "1 rows", "d_model"]),
    ("Y wrong width", PIPE + "W_Q = [[1.0], [0.0]]\nY = [[1.0, 2.0, 3.0]]\n", ["Y", "3 columns"]),
    ("nan", "Q = [[1.0, nan], [0.0, 1.0]]\nK = [[1.0, 0.0]]\n", ["Q", "row 1, column 2", "nan"]),
    ("inf", "Q = [[1.0, 0.0]]\nK = [[1.0, 0.0], [-inf, 1.0]]\n", ["K", "row 2, column 1", "inf"]),
    ("1e400", "Q = [[1.0, 0.0], [0.0, 1e400]]\nK = [[1.0, 0.0]]\n", ["Q", "row 2, column 2", "inf"]),
    ("string cell", 'Q = [[1.0, "a"]]\nK = [[1.0, 0.0]]\n', ["Q", "row 1, column 2", "not a number"]),
    ("bool cell", "Q = [[true, 1.0]]\nK = [[1.0, 0.0]]\n", ["Q", "row 1, column 1", "not a number"]),
    ("row not a list", "Q = [1.0, 2.0]\nK = [[1.0]]\n", ["Q", "row 1", "not a list"]),
    ("matrix a string", 'Q = "abc"\nK = [[1.0]]\n', ["Q", "list of rows"]),
    ("empty matrix", "Q = []\nK = [[1.0]]\n", ["Q", "non-empty"]),
    ("empty rows", "Q = [[]]\nK = [[1.0]]\n", ["Q", "empty"]),
    ("padding too big", BASE + "padding = [3]\n", ["padding", "3", "1..2"]),
    ("padding zero", BASE + "padding = [0]\n", ["padding", "0", "1..2"]),
    ("padding not int", BASE + "padding = [1, 1.5]\n", ["padding", "entry 2", "1.5"]),
    ("padding not list", BASE + "padding = 1\n", ["padding", "list"]),
    ("unknown mask", BASE + 'mask = "diagonal"\n', ["mask", "diagonal"]),
    ("unknown fill", BASE + "fill = -5\n", ["fill", "-5"]),
    ("unknown dtype", BASE + 'dtype = "float8"\n', ["dtype", "float8"]),
    ("dtype not a string", BASE + "dtype = 16\n", ["dtype", "string"]),
    ("c a string", BASE + 'c = "big"\n', ["c", "big"]),
    ("c nan", BASE + "c = nan\n", ["c", "nan"]),
    ("c negative", BASE + "c = -1.0\n", ["c", "positive"]),
    ("scaled a string", BASE + 'scaled = "yes"\n', ["scaled", "true or false"]),
    ("tokens count", BASE + 'tokens = ["a"]\n', ["tokens", "1 labels", "2"]),
    ("tokens a string", BASE + 'tokens = "ab"\n', ["tokens", "list of strings"]),
    ("title a number", BASE.replace('"t"', "3"), ["title", "string"]),
    ("no matrices", 'title = "x"\n', ["X", "missing"]),
    ("both X and Q", PIPE + "W_Q = [[1.0], [0.0]]\nQ = [[1.0]]\n", ["Q", "either"]),
    ("not TOML", "Q = [[1.0,\n", ["not valid TOML"]),
]


@pytest.mark.parametrize("label,text,words", FILE_CASES, ids=[c[0] for c in FILE_CASES])
def test_scenario_file_errors_name_file_key_row_column(tmp_path, label, text, words):
    f = tmp_path / "my scenario.toml"
    f.write_text(text, encoding="utf-8")
    with pytest.raises(ScenarioError) as e:
        load(f)
    msg = str(e.value)
    assert msg.startswith(f"{f}: "), msg
    assert "\n" not in msg
    for w in words:
        assert w in msg, (w, msg)
    with pytest.raises(ScenarioError, match="^in-memory: "):
        loads(text, "in-memory")


def test_binary_file(tmp_path):
    f = tmp_path / "weights.toml"
    f.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    with pytest.raises(ScenarioError, match=rf"^{f}: not a text"):
        load(f)
    g = tmp_path / "nul.toml"
    g.write_bytes(b'title = "a"\x00\n')
    with pytest.raises(ScenarioError, match=rf"^{g}: binary data"):
        load(g)


def test_missing_file_and_folder(tmp_path):
    with pytest.raises(ScenarioError, match=rf"^{tmp_path / 'gone.toml'}: no such file$"):
        load(tmp_path / "gone.toml")
    with pytest.raises(ScenarioError, match=rf"^{tmp_path}: is a folder"):
        load(tmp_path)
    with pytest.raises(ScenarioError, match=r"^no-such-builtin: no such file, and no built-in"):
        resolve("no-such-builtin")
    with pytest.raises(ScenarioError, match=r"no such file$"):
        resolve(str(tmp_path / "gone.toml"))


def test_scenario_error_is_a_value_error():
    assert issubclass(ScenarioError, ValueError)

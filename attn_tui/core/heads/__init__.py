"""Many heads: a small trained model's forward pass, multi-head scenario files, per-head readings.

A heads screen asks three things (all here, all pure NumPy):

- ``open_heads(NAME|FILE, tokens=None)`` -> a HeadSource (source.py): L layers x H heads, each
  head's Q, K, V computed or read only when asked for;
- ``head_scenario(src, layer, head)`` -> the Scenario of that head (every pane and the report
  work on it unchanged);
- ``layer_readings(src, layer)`` -> one Readings per head of that layer (readings.py; sorted by
  any column with ``sort_readings``), and ``combine(src, layer)`` the multi-head output
  concat(O_1..O_H) W_O = Σ_h O_h W_O^(h), checked.

Layers and heads are numbered from 0 (as transformers and BertViz number them); token positions
inside a head count from 1, as the lesson's t1..tT.
"""

from .combine import Combine, combine
from .door import open_heads
from .readings import FIELDS, READINGS, Readings, sort_readings
from .source import HeadSource, all_readings, head_readings_of, head_scenario, layer_readings

__all__ = [
    "open_heads",
    "HeadSource",
    "head_scenario",
    "layer_readings",
    "all_readings",
    "head_readings_of",
    "Readings",
    "FIELDS",
    "READINGS",
    "sort_readings",
    "combine",
    "Combine",
]

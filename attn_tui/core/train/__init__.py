"""Train one attention head in NumPy on a toy task whose right attention pattern is known.

task.py    associative recall: the batches, the probe sequence (seeded, documented)
head.py    the head: forward through the core's softmax, the backward written out by hand
optim.py   SGD with momentum and Adam
run.py     a seeded training run, one step at a time, with the logged figures
compare.py the lesson's experiment: the same run scaled and unscaled, side by side

Pure NumPy: no UI imports (import-linter checks it).
"""

"""`attn-tui capture`: a real model's heads, through transformers' public AttentionInterface.

The only part of attn-tui that imports torch and transformers (the ``models`` extra); the
command imports it when it runs (cli/capture.py), and an import-linter contract keeps the core,
the report and the UI from importing it.

    interface.py  the attention function registered as "attn_tui_capture": records what each
                  layer's attention received (Q, K, V, mask, scale) and delegates the
                  computation to the model's own eager function
    load.py       model and tokenizer from an id or a folder; every failure one line
    run.py        one forward pass, the multi-head file written, its heads checked by the core
    pipeline.py   the command's steps in order, and the file's provenance
"""

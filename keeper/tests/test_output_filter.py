"""Streaming is sanitised fail-closed and the Keeper's words pass the
operator's wordlist: whatever way a reply is cut into deltas, no
machinery block and no listed word ever reaches the table, and the streamed text
equals the final text."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from keeper.kp.censor import MachineryFilter, Wordlist
from loreweaver.testing.clients import WsClient
from loreweaver.testing.fake_llm import Text

REPLY = (
    'The fog parts. <tool_call>{"name": "skill_check"}</tool_call>A grue waits'
    " <think>they will die</think>by the door. <UpdateVariable>hp=3</UpdateVariable>Run!"
)
SHOWN = "The fog parts. A **** waits by the door. Run!"


def _run(chunks: list[str]) -> str:
    machinery, words = MachineryFilter(), Wordlist(("grue",))
    out = "".join(words.feed(machinery.feed(c)) for c in chunks)
    return out + words.feed(machinery.finish()) + words.finish()


def _cuts(text: str):
    return st.lists(st.integers(0, len(text)), max_size=12).map(
        lambda points: [
            text[a:b] for a, b in zip([0, *sorted(points)], [*sorted(points), len(text)], strict=True)
        ]
    )


@settings(max_examples=300, deadline=None)
@given(_cuts(REPLY))
def test_any_cut_of_a_reply_shows_the_same_clean_text(chunks):
    assert _run(chunks) == SHOWN


def test_an_unclosed_block_swallows_the_rest_and_a_special_token_seals_the_reply():
    assert _run(["Hello <function_call>{", '"x": 1} and more']) == "Hello "
    assert _run(["Quiet. <|tool_calls_begin|>", "anything"]) == "Quiet. "


def test_ordinary_angle_brackets_and_html_pass():
    assert _run(["3 < 4 and <b>bold</b> <", "br>"]) == "3 < 4 and <b>bold</b> <br>"


def test_a_listed_word_is_masked_in_any_case_even_split_across_deltas():
    assert _run(["a GR", "Ue and a g", "rue"]) == "a **** and a ****"


async def test_the_table_never_sees_machinery_or_listed_words(ai_server, llm, room):
    cut = [REPLY[i : i + 7] for i in range(0, len(REPLY), 7)]
    llm.script(*(Text(piece) for piece in cut))
    async with await WsClient.connect(ai_server.ws_url) as client:
        await client.join(ai_server.env.mint(room, "Ada"))
        await client.say("I listen")
        frames = await client.collect_until("turn_status")
        while frames[-1].get("status") != "idle":
            frames += await client.collect_until("turn_status", timeout=20)
    streamed = "".join(f["text"] for f in frames if f["type"] == "narrative_delta")
    final = next(f for f in frames if f["type"] == "narrative" and f["speaker"] == "kp")
    assert final["text"] == SHOWN == streamed.strip()
    for forbidden in ("tool_call", "skill_check", "grue", "they will die", "hp=3"):
        assert forbidden not in str(frames)


class RecordingSink:
    """The room side of a turn, as a list of what it was asked to send."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, str, str]] = []

    def new_id(self) -> str:
        return f"d{len(self.sent)}"

    async def delta(self, draft_id: str, text: str) -> None:
        self.sent.append(("delta", draft_id, text))

    async def close_draft(self, draft_id: str, text: str) -> None:
        self.sent.append(("close", draft_id, text))


async def test_a_draft_closed_for_a_tool_round_keeps_text_a_filter_held_back(settings, tmp_path):
    from keeper.kp.turn import _Draft

    words = tmp_path / "words.txt"
    words.write_text("grue\n", encoding="utf-8")
    settings.TRPG_OUTPUT_WORDLIST = str(words)
    sink = RecordingSink()
    draft = _Draft(sink)
    await draft.feed("Go")  # all of it may be the start of a listed word: held back
    assert sink.sent == []
    await draft.close()
    assert sink.sent == [("delta", "d0", "Go"), ("close", "d0", "Go")], "nothing is lost at a tool round"

    blank = _Draft(sink)
    sink.sent.clear()
    await blank.feed("  \n")
    await blank.close()
    assert sink.sent[-1] == ("close", sink.sent[0][1], ""), "a whitespace-only draft closes empty (discarded)"

"""With an embeddings model configured (`TRPG_LLM__EMBEDDING_MODEL`), lore is also
chosen by meaning: an entry no keyword or full-text search finds reaches the Keeper's
brief when the story comes close to it (docs/decisions.md, "Campaign memory"). The
vectors come from the provider's embeddings endpoint (the scripted server's stand-in
treats "doctor" as "physician")."""

from __future__ import annotations

import pytest

from loreweaver.testing.clients import WsClient, settle, until_idle
from loreweaver.testing.fake_llm import FakeLlm, Text
from loreweaver.testing.servers import create_env, destroy_env, hosted_profile, keeper_model, start_serve

PHYSICIAN = "The town physician."


@pytest.fixture(scope="module")
def meaning(tmp_path_factory):
    llm = FakeLlm(standing_reply=[Text("Footsteps on the stair.")], synonyms={"doctor": "physician"}).start()
    env = create_env(tmp_path_factory.mktemp("meaning"), hosted=hosted_profile())
    server = start_serve(env, **keeper_model(llm.url, TRPG_LLM__EMBEDDING_MODEL="scripted-embedder"))
    yield server, llm
    server.stop()
    destroy_env(env)
    llm.stop()


async def test_lore_close_in_meaning_reaches_the_brief(meaning, room):
    server, llm = meaning
    async with await WsClient.connect(server.ws_url) as kay:
        await kay.join(server.env.mint(room, "Kay", "keeper"))
        await kay.say(f".lore add Dr. Thorne | Thorne | {PHYSICIAN}")
        await kay.say(".lore add The tide | tide, tides | The tide turns at six.")
        await settle(kay)

        await kay.say("Someone fetch a doctor!")
        await until_idle(kay)
        brief = llm.chat_requests()[-1]["messages"][0]["content"]
        assert PHYSICIAN in brief
        assert "The tide turns at six." not in brief, "only what is close"

        embeddings = [r for r in llm.requests if "input" in r]
        assert {r["model"] for r in embeddings} == {"scripted-embedder"}
        assert sorted(len(r["input"]) for r in embeddings) == [1, 2], "each entry once, then the story"

        await kay.say("The doctor, please, quickly!")
        await until_idle(kay)
        again = [r for r in llm.requests if "input" in r][len(embeddings) :]
        assert [len(r["input"]) for r in again] == [1], "entries keep their vectors"
        assert PHYSICIAN in llm.chat_requests()[-1]["messages"][0]["content"]

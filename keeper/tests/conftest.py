"""Dice the tests control: a seeded roller, or faces chosen one by one."""

from __future__ import annotations

import random

import pytest

from keeper.dice.roller import Roller


class Scripted(random.Random):
    """Dice whose faces the test chooses: each randrange(n) returns the next value."""

    def __init__(self, values: list[int]) -> None:
        super().__init__()
        self.values = list(values)

    def randrange(self, n: int, *args: object) -> int:  # type: ignore[override]
        return self.values.pop(0)


@pytest.fixture
def dice():
    """Script the next faces: `dice(0, 4, 2)` makes the next three randrange calls 0, 4, 2."""

    def script(*values: int) -> None:
        roller = Roller(seed=0)
        roller.source = Scripted(list(values))
        roller.install()

    yield script
    Roller().install()


@pytest.fixture
def seeded():
    """A reproducible roller for the test, the CSPRNG one again after it."""
    Roller(seed=11).install()
    yield
    Roller().install()


@pytest.fixture(scope="module")
def llm():
    """A scripted OpenAI-compatible provider on loopback (see `fake_llm`)."""
    from loreweaver.testing.fake_llm import FakeLlm

    fake = FakeLlm().start()
    yield fake
    fake.stop()


@pytest.fixture(scope="module")
def ai_server(llm, tmp_path_factory: pytest.TempPathFactory):
    """A server whose Keeper is the scripted provider."""
    from loreweaver.testing.servers import create_env, destroy_env, hosted_profile, start_serve

    env = create_env(tmp_path_factory.mktemp("ai"), hosted=hosted_profile())
    wordlist = env.data_dir / "wordlist.txt"
    wordlist.write_text("# words the Keeper never says\ngrue\n", encoding="utf-8")
    process = start_serve(
        env,
        TRPG_OUTPUT_WORDLIST=str(wordlist),
        TRPG_LLM__PROVIDER="openai",
        TRPG_LLM__BASE_URL=llm.url,
        TRPG_LLM__API_KEY="sk-test-scripted-0000",
        TRPG_LLM__CHAT_MODEL="scripted-keeper",
        TRPG_LLM__RETRIES="0",
    )
    yield process
    process.stop()
    destroy_env(env)

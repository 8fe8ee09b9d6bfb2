"""The shared fixtures live in the test harness package (`loreweaver.testing`)."""

pytest_plugins = ["loreweaver.testing.fixtures"]

"""The LLM side of the AI Keeper: the provider catalog, the configuration in force,
and one shared OpenAI-compatible streaming client."""

"""The AI Keeper: the turn loop, its tools, NPC voices, and the offline and sample Keepers."""

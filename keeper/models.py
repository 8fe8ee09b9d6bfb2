"""Characters, NPCs and module state arrive with the game-core and Keeper issues."""

"""Rule systems: how a roll is graded. The rule packs (data) arrive with the rest of
the game-core issue; the grading ladders live here as code the packs name."""

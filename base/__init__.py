"""What every layer shares, at the bottom of the layering (docs/architecture.md,
"Layers"): outbound frames, texts in both languages, settings parsing, the protocol
version, failpoints, metrics and logs. It imports no other package of the project."""

"""Rule systems as data: the built-in packs (YAML files beside this module) and any
community pack dropped into the packs directory."""

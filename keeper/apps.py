from django.apps import AppConfig


class KeeperConfig(AppConfig):
    """The game: commands, the Keeper and the state snapshot each viewer sees."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "keeper"

    def ready(self) -> None:
        # Commands register themselves with the router when their module is imported;
        # they use the models, which exist only once every app is loaded (Django calls
        # ready() then), so they are imported here rather than at the top.
        from keeper import (  # noqa: F401
            audio_commands,
            dice_commands,
            image_commands,
            import_commands,
            inventory_commands,
            lore_commands,
            madness,
            module_commands,
            pack_commands,
            panel_commands,
            pregens,
            scene_commands,
            sheet_commands,
            table_commands,
            turn_order,
            variable_commands,
        )
        from keeper.backup import GamePart
        from keeper.kp import keeper_commands  # noqa: F401
        from rooms import backups

        backups.register(GamePart())

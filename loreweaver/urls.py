"""HTTP routes: the browser table at `/` (its WebSocket is at `/` too; its keeper
screens read lists under `table/`), the operator
console, metrics, and the SideQuest contract's REST endpoints
(its WebSocket is `/ws`). The health checks are answered before Django
(`loreweaver.ops.health.health_first`)."""

from django.contrib import admin
from django.urls import path

from loreweaver.ops.metrics import metrics_view
from loreweaver.table.keeper_api import room_backup_file, room_backup_link, room_backups, room_packs
from loreweaver.table.views import panel_frame, table_page
from loreweaver.wire.sidequest_lobby import game_view, games_view, genres_view, sessions_view
from loreweaver.wire.sidequest_table import media_view

urlpatterns = [
    path("", table_page, name="table"),
    path("panel-frame", panel_frame, name="panel-frame"),
    path("table/backups", room_backups, name="table-backups"),
    path("table/backups/<str:name>", room_backup_file, name="table-backup-file"),
    path("table/backups/<str:name>/link", room_backup_link, name="table-backup-link"),
    path("table/packs", room_packs, name="table-packs"),
    path("admin/", admin.site.urls),
    path("metrics", metrics_view, name="metrics"),
    path("api/genres", genres_view, name="sidequest-genres"),
    path("api/media/<str:token>", media_view, name="sidequest-media"),
    path("api/games", games_view, name="sidequest-games"),
    path("api/games/<str:slug>", game_view, name="sidequest-game"),
    path("api/sessions", sessions_view, name="sidequest-sessions"),
]

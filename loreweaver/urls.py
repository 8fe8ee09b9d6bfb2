"""HTTP routes: the operator console. The table itself speaks WebSocket at `/`."""

from django.contrib import admin
from django.urls import path

urlpatterns = [
    path("admin/", admin.site.urls),
]

"""HTTP routes: the browser table at `/` (its WebSocket is at `/` too) and the operator
console."""

from django.contrib import admin
from django.urls import path

from loreweaver.table.views import table_page

urlpatterns = [
    path("", table_page, name="table"),
    path("admin/", admin.site.urls),
]

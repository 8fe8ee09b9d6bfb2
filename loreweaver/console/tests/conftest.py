"""The console's tests keep their backups (and any file the server writes) in a data
directory of their own."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def data_dir(settings, tmp_path):
    settings.DATA_DIR = tmp_path
    return tmp_path

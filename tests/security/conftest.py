from __future__ import annotations

import pytest

from tests.security.site import seed_site


@pytest.fixture
def site(home, owner):
    return seed_site(home, user=owner)

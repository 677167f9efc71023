"""The settings of the panels that tests start as processes: the real settings, with a fast
password hasher. The real one costs about half a second of CPU per sign-in on two cores, and the
real-server tests sign in (or fail to) a few hundred times; how a password is hashed is not what
they test, and ``tests.settings`` makes the same choice for the in-process panel."""

from __future__ import annotations

from django.conf import global_settings

from admin_panel.settings import *  # noqa: F403

# First, so every password these panels set is hashed fast; Django's own hashers stay after it, so
# an account made under the real settings (a benchmark's) still signs in.
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher", *global_settings.PASSWORD_HASHERS]

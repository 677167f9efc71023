"""Sessions kept like Django's ``cached_db`` store, except that the database holds a digest of each
session key, never the key itself: a copy of ``django_session`` (a backup, a leaked file) lists no
cookie that signs anyone in. ``SESSION_ENGINE = "admin_panel.session_store"``.

The cookie still carries the random key; every database read or write goes through
``stored_key(cookie key)``. The process cache is keyed by the digest too, so a session found in
the table can be ended, cache included, with ``end_stored_session`` (services/accounts.py).
Sessions stored before this store existed hold plain keys, which no cookie reaches: they are
signed out once and expire on their own.
"""

from __future__ import annotations

import hashlib

from django.conf import settings
from django.contrib.sessions.backends import cached_db
from django.core.cache import caches
from django.utils import timezone

# django_session.session_key holds 40 characters: the first 160 bits of the SHA-256 digest, which
# for a random 32-character key (about 165 bits) cannot be turned back into the key.
STORED_KEY_LENGTH = 40


def stored_key(session_key: str) -> str:
    """What the database keeps for a session key (the cookie value)."""
    return hashlib.sha256(session_key.encode("utf-8")).hexdigest()[:STORED_KEY_LENGTH]


class SessionStore(cached_db.SessionStore):
    cache_key_prefix = "admin_panel.session."

    @property
    def cache_key(self) -> str:
        return self.cache_key_prefix + stored_key(self._get_or_create_session_key())

    async def acache_key(self) -> str:
        return self.cache_key_prefix + stored_key(await self._aget_or_create_session_key())

    def _get_session_from_db(self):  # type: ignore[no-untyped-def]
        if self.session_key is None:
            return None
        try:
            return self.model.objects.get(session_key=stored_key(self.session_key), expire_date__gt=timezone.now())
        except self.model.DoesNotExist:
            self._session_key = None
            return None

    async def _aget_session_from_db(self):  # type: ignore[no-untyped-def]
        if self.session_key is None:
            return None
        try:
            return await self.model.objects.aget(session_key=stored_key(self.session_key),
                                                 expire_date__gt=timezone.now())
        except self.model.DoesNotExist:
            self._session_key = None
            return None

    def exists(self, session_key: str) -> bool:
        if not session_key:
            return False
        stored = stored_key(session_key)
        return (self.cache_key_prefix + stored) in self._cache or self.model.objects.filter(
            session_key=stored).exists()

    async def aexists(self, session_key: str) -> bool:
        if not session_key:
            return False
        stored = stored_key(session_key)
        return await self._cache.ahas_key(self.cache_key_prefix + stored) or await self.model.objects.filter(
            session_key=stored).aexists()

    def create_model_instance(self, data):  # type: ignore[no-untyped-def]
        instance = super().create_model_instance(data)
        instance.session_key = stored_key(instance.session_key)
        return instance

    async def acreate_model_instance(self, data):  # type: ignore[no-untyped-def]
        instance = await super().acreate_model_instance(data)
        instance.session_key = stored_key(instance.session_key)
        return instance

    def delete(self, session_key: str | None = None) -> None:
        if session_key is None:
            if self.session_key is None:
                return
            session_key = self.session_key
        end_stored_session(stored_key(session_key))

    async def adelete(self, session_key: str | None = None) -> None:
        if session_key is None:
            if self.session_key is None:
                return
            session_key = self.session_key
        stored = stored_key(session_key)
        await self.get_model_class().objects.filter(session_key=stored).adelete()
        await caches[settings.SESSION_CACHE_ALIAS].adelete(self.cache_key_prefix + stored)


def end_stored_session(stored: str) -> None:
    """End a session known by what the database stores for it (a row of django_session)."""
    SessionStore.get_model_class().objects.filter(session_key=stored).delete()
    caches[settings.SESSION_CACHE_ALIAS].delete(SessionStore.cache_key_prefix + stored)

"""One way to show a moment on every page: ``{% when value %}``.

A ``<time datetime=…>`` element in the reader's language: relative for the last week ("3 minutes
ago"), the date after that; the exact time with its zone on hover (``title``) and for screen
readers (a visually hidden copy)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from django import template
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.html import format_html
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

register = template.Library()

RELATIVE_FOR = timedelta(days=7)


def relative(moment: datetime, now: datetime) -> str:
    past = now - moment
    if past < timedelta(0) or past >= RELATIVE_FOR:
        return date_format(moment, "DATE_FORMAT")
    seconds = int(past.total_seconds())
    if seconds < 60:
        return _("just now")
    if seconds < 3600:
        minutes = seconds // 60
        return ngettext("%(count)d minute ago", "%(count)d minutes ago", minutes) % {"count": minutes}
    if seconds < 86400:
        hours = seconds // 3600
        return ngettext("%(count)d hour ago", "%(count)d hours ago", hours) % {"count": hours}
    days = seconds // 86400
    return ngettext("%(count)d day ago", "%(count)d days ago", days) % {"count": days}


def exact(moment: datetime) -> str:
    return f"{date_format(moment, 'DATE_FORMAT')} {moment:%H:%M:%S} {moment.tzname() or 'UTC'}"


@register.simple_tag
def when(value: datetime | None, empty: str = "—") -> str:
    if not isinstance(value, datetime):
        return empty
    if timezone.is_naive(value):
        value = timezone.make_aware(value, timezone.get_current_timezone())
    moment = timezone.localtime(value)
    shown = relative(moment, timezone.localtime())
    full = exact(moment)
    spoken = full if shown == date_format(moment, "DATE_FORMAT") else _("%(shown)s, %(exact)s") % {
        "shown": shown, "exact": full}
    return format_html(
        '<time datetime="{}" title="{}"><span aria-hidden="true">{}</span>'
        '<span class="visually-hidden">{}</span></time>',
        moment.isoformat(timespec="seconds"), full, shown, spoken,
    )


@register.filter
def day(value: datetime | None) -> str:
    """The date alone, as ``{% when %}`` shows an older moment: for places that cannot hold a
    ``<time>`` element (an SVG axis label)."""
    if not isinstance(value, datetime):
        return ""
    return date_format(timezone.localtime(value), "DATE_FORMAT")


@register.filter
def exact_time(value: datetime | None) -> str:
    """The exact moment with its zone, as ``{% when %}`` puts it on hover."""
    if not isinstance(value, datetime):
        return ""
    return exact(timezone.localtime(value))


@register.filter
def moment(value: object) -> datetime | object:
    """A stamp kept as text or a number by another program (an ISO or SQLite date-time, seconds
    since the epoch) as an aware moment for ``{% when %}``; naive text is UTC. Anything else is
    returned unchanged, so it is shown as it is."""
    if isinstance(value, datetime):
        return value
    try:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return datetime.fromtimestamp(value, tz=UTC)
        if isinstance(value, str) and value.strip():
            parsed = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
            return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
    except (ValueError, OverflowError, OSError):
        pass
    return value


@register.simple_tag
def when_now() -> str:
    """``{% when %}`` of this moment (a page that says when it was loaded)."""
    return when(timezone.now())

"""The page's writes (POST): add or expire a silence, replay dead letters.

Each is refused with 403 unless the page may write (``--page-writes``) and the
request comes from the page itself (``guard.checked_form``). The work runs
off the event loop (it talks to the API server or a sink); the answer is a
redirect back to the view, which then says what happened, or why not (a
notice the page set: ``notices.py``).
"""

from __future__ import annotations

from collections.abc import Callable

from fastapi import FastAPI, Request, Response
from fastapi.responses import PlainTextResponse, RedirectResponse
from starlette.concurrency import run_in_threadpool

from notifier.api.page.guard import RefusedError, checked_form
from notifier.api.page.notices import remember_notice
from notifier.api.page.views import PageParts, Writes
from notifier.rules.config.durations import parse_duration
from notifier.silences.book import NewSilence, SilenceError, SilenceWriteError, parse_matchers

FORBIDDEN = 403
MAX_SILENCE_SECONDS = 30 * 86400


def add_forms(app: FastAPI, parts: PageParts) -> None:
    @app.post("/page/silences")
    async def add_silence(request: Request) -> Response:
        return await _write(request, parts, _adding)

    @app.post("/page/silences/expire")
    async def expire_silence(request: Request) -> Response:
        return await _write(request, parts, _expiring)

    @app.post("/page/delivery/replay")
    async def replay(request: Request) -> Response:
        return await _write(request, parts, _replaying)


Action = Callable[[Writes, dict[str, str]], tuple[str, str]]  # -> (view path, notice)


async def _write(request: Request, parts: PageParts, action: Action) -> Response:
    try:
        if parts.writes is None:
            raise RefusedError("the page is read-only (writes are off: --page-writes)")
        form = await checked_form(request)
    except RefusedError as why:
        return PlainTextResponse(f"refused: {why}\n", status_code=FORBIDDEN)
    path, notice = await run_in_threadpool(action, parts.writes, form)
    answer = RedirectResponse(path, status_code=303)
    remember_notice(answer, notice)
    return answer


def _adding(writes: Writes, form: dict[str, str]) -> tuple[str, str]:
    if writes.silences is None:
        return "/page/silences", "no silences ConfigMap is watched (--silences)"
    try:
        matchers = parse_matchers(form.get("match", ""))
        seconds = parse_duration(form.get("duration", "1h"))
        if not 0 < seconds <= MAX_SILENCE_SECONDS:
            raise ValueError(f"a silence lasts up to {MAX_SILENCE_SECONDS // 86400} days")
        author = form.get("author", "").strip()[:100] or "page"
        made = NewSilence(matchers, seconds, form.get("comment", "").strip()[:500], author)
        silence_id = writes.silences.add(made)
    except (SilenceError, SilenceWriteError, ValueError) as err:
        return "/page/silences", f"not added: {err}"
    return "/page/silences", f"silence {silence_id} added"


def _expiring(writes: Writes, form: dict[str, str]) -> tuple[str, str]:
    if writes.silences is None:
        return "/page/silences", "no silences ConfigMap is watched (--silences)"
    silence_id = form.get("id", "")[:64]
    try:
        writes.silences.expire(silence_id)
    except SilenceWriteError as err:
        return "/page/silences", f"not expired: {err}"
    return "/page/silences", f"silence {silence_id} expired"


def _replaying(writes: Writes, form: dict[str, str]) -> tuple[str, str]:
    if writes.replay is None:
        return "/page/delivery", "no state file: there are no dead letters to replay"
    sink = form.get("sink", "").strip()[:253] or None
    outcome = writes.replay(sink)
    said = f"replayed {sink or 'every sink'}: sent {outcome.sent}, left {outcome.left}"
    return "/page/delivery", "; ".join([said, *outcome.lines[-3:]])

"""The page says what is true of itself: its health, when it was read, what "told" came to,
what a silence mutes; notices only from the page; invisible characters shown; headers on
every answer."""

from __future__ import annotations

import re

from notifier.api.headers import HEADERS
from notifier.api.page.notices import COOKIE
from notifier.api.page.views import SendState
from notifier.rules.decisions import Decision
from notifier.silences.book import NewSilence
from tests.unit.api.test_page import FakeChecks, FakeSent, page_client
from tests.unit.rules.builders import crashloop

VIEWS = ("/page/now", "/page/why", "/page/silences", "/page/delivery")
WATCH_FAILING = {"watch-open-Pod": "the watch keeps failing or closing at once"}


def test_every_view_says_when_it_was_read_and_has_no_banner_while_ready() -> None:
    client, _ = page_client(writes=False)
    for path in VIEWS:
        text = client.get(path).text
        assert re.search(r'id="as-of">as of <time>\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ</time>', text)
        assert 'id="health"' not in text and 'id="auto-refresh"' in text


def test_a_failing_watch_puts_a_banner_with_since_when_on_every_view() -> None:
    checks = FakeChecks()
    client, _ = page_client(writes=False, checks=checks)
    checks.failing.update(WATCH_FAILING)
    for path in VIEWS:
        banner = client.get(path).text.split('id="health"')[1].split("</div>")[0]
        assert "Not ready since 2023-11-14 22:13:20Z" in banner, path
        assert "<code>watch-open-Pod</code>: the watch keeps failing or closing at once" in banner
    readyz = client.get("/readyz").json()
    assert readyz["verdict"] == "not ready: watch-open-Pod since 2023-11-14T22:13:20Z"
    checks.failing.clear()
    assert 'id="health"' not in client.get("/page/now").text
    assert client.get("/readyz").json()["verdict"] == "ready"


def test_told_shows_what_each_sink_made_of_it() -> None:
    dead = SendState("hook", "dead-lettered", "http_400: invalid payload", 1)
    client, _ = page_client(writes=False, sent=FakeSent({"hook": dead}))
    firing = client.get("/page/now").text.split('id="firing"')[1].split("</table>")[0]
    assert "hook: dead-lettered after 1 attempt: http_400: invalid payload" in firing
    assert "delivered" not in firing
    why = client.get("/page/why").text.split('id="decisions"')[1]
    assert 'class="outcome">dead-lettered<' in why and ">sent<" not in why
    retrying = SendState("hook", "retrying", "http_500: oops", 3)
    firing = page_client(writes=False, sent=FakeSent({"hook": retrying}))[0].get("/page/now").text
    assert "hook: retrying after attempt 3 failed: http_500: oops" in firing


def test_told_says_a_replay_delivered_it_or_failed_again_and_when() -> None:
    replayed = SendState("hook", "delivered", "http_400: invalid payload", 1, 1.7e9,
                         replayed_at=1.7e9)  # fmt: skip
    client, _ = page_client(writes=False, sent=FakeSent({"hook": replayed}))
    said = ("hook: delivered by a replay at 2023-11-14 22:13:20Z"
            " (dead-lettered after 1 attempt: http_400: invalid payload)")  # fmt: skip
    assert said in client.get("/page/now").text.split('id="firing"')[1]
    why = client.get("/page/why").text.split('id="decisions"')[1]
    assert 'class="outcome">sent<' in why and said.replace("hook:", "to hook:") in why
    again = SendState("hook", "dead-lettered", "http_400: invalid payload", 1, 1.7e9,
                      replayed_at=1.7e9, replay_error="http_400: still invalid")  # fmt: skip
    firing = page_client(writes=False, sent=FakeSent({"hook": again}))[0].get("/page/now").text
    assert (
        "hook: dead-lettered after 1 attempt: http_400: invalid payload; a replay at"
        " 2023-11-14 22:13:20Z failed again: http_400: still invalid"
    ) in firing


def test_a_silenced_firing_object_is_listed_as_muted_with_its_silence() -> None:
    client, silences = page_client(writes=True)
    silences.add(NewSilence({"name": "api-*"}, 3600, "deploying api", "ana"))
    parts_board = silences.board
    api = crashloop(metadata={"name": "api-1"})
    parts_board.record(api, Decision(matched=("pod-crash",),
                                     suppressed=[("pod-crash", "silenced by s1")]))  # fmt: skip
    firing = client.get("/page/now").text.split('id="firing"')[1].split("</table>")[0]
    row = next(r for r in firing.split("<tr>") if "api-1" in r)
    assert "muted by silence" in row and "s1" in row and "ana: deploying api" in row
    assert "before a restart" not in row


def test_a_notice_comes_only_from_the_page() -> None:
    client, _ = page_client(writes=True)
    for path in ("/page/silences?notice=call+0800+now", "/page/delivery?notice=x"):
        assert "0800" not in client.get(path).text and 'id="notice"' not in client.get(path).text
    client.cookies.set(COOKIE, "Y2FsbCAwODAw.forged", path="/page")
    assert 'id="notice"' not in client.get("/page/silences").text


def test_invisible_format_characters_are_shown_escaped() -> None:
    client, _ = page_client(writes=False)
    text = client.get("/page/why", params={"q": "web\u202e1-gpj.exe\u2066x\u200f"}).text
    assert "\u202e" not in text and "\u2066" not in text and "\u200f" not in text
    assert "web[U+202E]1-gpj.exe[U+2066]x[U+200F]" in text
    preview = client.get("/page/silences/preview", params={"match": "name=\u202eweb"}).json()
    assert "\u202e" not in str(preview)


def test_json_errors_static_files_and_the_redirect_carry_the_headers() -> None:
    client, _ = page_client(writes=False)
    answers = [
        client.get("/page/now", params={"page": "-1<script>"}),  # FastAPI's JSON 422
        client.get("/page/static/page.js"),
        client.get("/", follow_redirects=False),
        client.get("/page/nowhere"),
        client.get("/page/silences/preview"),
        *(client.get(path) for path in VIEWS),
    ]
    assert [a.status_code for a in answers[:4]] == [422, 200, 303, 404]
    for answer in answers:
        assert {name: answer.headers.get(name) for name in HEADERS} == HEADERS, answer.url

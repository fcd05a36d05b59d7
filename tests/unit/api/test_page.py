"""The page over real views (board, decision ring): escaping, headers, the write gate, CSRF."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from fastapi.testclient import TestClient

from notifier.api.app import create_app
from notifier.api.board import FiringBoard
from notifier.api.checks import Check, flag
from notifier.api.decision_log import DecisionLog
from notifier.api.page.views import (
    DeadLetterItem,
    FiringItem,
    PageParts,
    SendFailure,
    SendState,
    SinkQueue,
    Told,
    Writes,
)
from notifier.api.paged import Paged
from notifier.api.readiness import Readiness
from notifier.api.waiting import WaitingList
from notifier.rules.decisions import Decision
from notifier.rules.engine import RulesEngine
from notifier.silences.book import NewSilence, Silence, SilenceWrites
from notifier.transitions.model import Change
from tests.unit.rules.builders import NOW, crashloop, ruleset
from tests.unit.sinks.factories import notification

HOSTILE = '<img src=x onerror="alert(1)">'


@dataclass
class _Silences:
    board: FiringBoard
    kept: list[Silence] = field(default_factory=list)

    def silences(self) -> list[Silence]:
        return self.kept

    def preview(self, matchers: dict[str, str], limit: int) -> Paged[FiringItem]:
        return self.board.preview(matchers, limit)

    def add(self, made: NewSilence) -> str:
        self.kept.append(Silence(id="s1", matchers=made.matchers, starts_at=0, ends_at=2e9,
                                 comment=made.comment, created_by=made.author))  # fmt: skip
        return "s1"

    def expire(self, silence_id: str) -> None:
        self.kept.clear()


class _Delivery:
    def queues(self) -> list[SinkQueue]:
        return [SinkQueue("hook", "webhook", 2, 31.0)]

    def failures(self, limit: int) -> list[SendFailure]:
        return [SendFailure(1.7e9, "hook", "http_500", HOSTILE, "Pod/shop/web-1", 1)]

    def dead_letters(self, limit: int) -> Paged[DeadLetterItem]:
        return Paged([DeadLetterItem(7, 1.7e9, "hook", "http_400", 1, "Pod/shop/web-1", "no")],
                     1, 0, limit)  # fmt: skip


@dataclass
class FakeSent:
    """Delivery's records as the page reads them: what each sink made of a notification."""

    states: dict[str, SendState] = field(default_factory=dict)

    def state(self, told: Told) -> SendState:
        return self.states.get(told.sink, SendState(told.sink, "delivered", attempts=1))


@dataclass
class FakeChecks:
    failing: dict[str, str] = field(default_factory=dict)  # name: detail

    def __call__(self) -> list[Check]:
        return [flag(name, lambda: False, detail) for name, detail in self.failing.items()]


def page_client(
    *, writes: bool, checks: FakeChecks | None = None, sent: FakeSent | None = None
) -> tuple[TestClient, _Silences]:
    board, log = FiringBoard(), DecisionLog()
    hostile = crashloop(metadata={"name": "web-1"})
    hostile = replace(hostile, changes=(Change("status.reason", "", HOSTILE),))
    told = Decision(matched=("pod-crash",), notifications=[notification("hook")])
    board.record(hostile, told)
    log.record(hostile, told)
    silences = _Silences(board)
    checks = checks or FakeChecks()
    readiness = Readiness(checks, clock=lambda: 1.7e9)
    parts = PageParts(
        now=board, waiting=_waiting(), decisions=log, silences=silences, delivery=_Delivery(),
        health=readiness, sent=sent or FakeSent(),
        writes=Writes(SilenceWrites(silences.add, silences.expire), None) if writes else None,
        silences_map="ops/kube-notifier-silences",
    )  # fmt: skip
    app = create_app(liveness=list, readiness=readiness, page=parts)
    return TestClient(app, base_url="http://page.test"), silences


def _waiting() -> WaitingList:
    """A pod with a hostile name a ``for:`` rule times, in a group of a grouping rule."""
    rules = ruleset([
        {"name": "stays", "match": {"to": ["CrashLoopBackOff"], "for": "60s"}, "sinks": ["console"],
         "continue": True},
        {"name": "digest", "match": {"to": ["CrashLoopBackOff"]}, "sinks": ["console"],
         "group_by": ["namespace", "label:app"]},
    ])  # fmt: skip
    engine = RulesEngine(lambda: rules, clock=lambda: NOW)
    engine.decide(crashloop(metadata={"name": HOSTILE, "labels": {"app": HOSTILE}}), NOW)
    return WaitingList(engine.pending, engine.open_groups)


def test_now_shows_pending_timers_and_open_groups_as_text() -> None:
    client, _ = page_client(writes=False)
    text = client.get("/page/now").text
    assert HOSTILE not in text
    name = "&lt;img src=x onerror=&#34;alert(1)&#34;&gt;"
    pending = text.split('id="pending"')[1].split("</table>")[0]
    assert "stays" in pending and name in pending and "2024-05-01 10:07:40Z" in pending
    groups = text.split('id="groups"')[1].split("</table>")[0]
    assert f"namespace=shop, label:app={name}" in groups and "2024-05-01 10:07:10Z" in groups
    assert "No <code>for:</code> timer" in client.get("/page/now", params={"rule": "x"}).text


def test_every_view_answers_with_its_headers_and_escapes_object_text() -> None:
    client, _ = page_client(writes=False)
    for path in ("/page/now", "/page/why", "/page/silences", "/page/delivery"):
        answer = client.get(path)
        assert answer.status_code == 200, path
        assert "script-src 'self'" in answer.headers["content-security-policy"]
        assert answer.headers["x-frame-options"] == "DENY"
        assert HOSTILE not in answer.text, path
    assert "&lt;img src=x onerror=&#34;alert(1)&#34;&gt;" in client.get("/page/why").text
    assert "web-1" in client.get("/page/now").text
    assert client.get("/", follow_redirects=False).headers["location"] == "/page/now"


def test_a_search_is_reflected_as_text() -> None:
    client, _ = page_client(writes=False)
    text = client.get("/page/why", params={"q": "<script>alert(1)</script>"}).text
    assert "<script>alert(1)" not in text and "&lt;script&gt;alert(1)" in text


def test_read_only_has_no_form_and_refuses_a_post() -> None:
    client, silences = page_client(writes=False)
    assert 'id="add-silence"' not in client.get("/page/silences").text
    client.get("/page/silences")
    token = client.cookies["kn_csrf"]
    answer = client.post("/page/silences", data={"match": "name=web-1", "csrf": token,
                         "author": "me"}, headers={"Origin": "http://page.test"})  # fmt: skip
    assert answer.status_code == 403 and "read-only" in answer.text
    assert silences.kept == []


def test_with_writes_a_same_origin_post_with_its_token_adds_a_silence() -> None:
    client, silences = page_client(writes=True)
    assert 'id="add-silence"' in client.get("/page/silences").text
    token = client.cookies["kn_csrf"]
    form = {"match": "name=web-*", "duration": "2h", "author": "ana", "comment": "deploy"}
    forged = client.post("/page/silences", data={**form, "csrf": token},
                         headers={"Origin": "http://evil.test"})  # fmt: skip
    no_token = client.post("/page/silences", data=form, headers={"Origin": "http://page.test"})
    no_origin = client.post("/page/silences", data={**form, "csrf": token})
    assert [forged.status_code, no_token.status_code, no_origin.status_code] == [403] * 3
    assert silences.kept == []
    done = client.post("/page/silences", data={**form, "csrf": token},
                       headers={"Origin": "http://page.test"}, follow_redirects=False)  # fmt: skip
    assert done.status_code == 303 and done.headers["location"] == "/page/silences"
    assert silences.kept[0].matchers == {"name": "web-*"} and silences.kept[0].created_by == "ana"
    assert 'id="notice">silence s1 added' in client.get("/page/silences").text
    assert 'id="notice"' not in client.get("/page/silences").text  # said once


def test_a_bad_silence_is_said_not_written() -> None:
    client, silences = page_client(writes=True)
    client.get("/page/silences")
    form = {"match": "colour=red", "csrf": client.cookies["kn_csrf"]}
    answer = client.post("/page/silences", data=form, headers={"Origin": "http://page.test"})
    assert answer.status_code == 200 and "unknown matcher" in answer.text and not silences.kept


def test_the_preview_names_what_would_be_muted() -> None:
    client, _ = page_client(writes=False)
    body = client.get("/page/silences/preview", params={"match": "name=web-*"}).json()
    assert body["total"] == 1 and body["items"][0]["name"] == "web-1"
    assert (
        "unknown matcher"
        in client.get("/page/silences/preview", params={"match": "x=y"}).json()["error"]
    )
    assert "It would mute 1" in client.get("/page/silences", params={"match": "name=web-1"}).text


def test_the_author_defaults_to_the_auth_proxys_user_and_same_origin_fetch_is_enough() -> None:
    client, silences = page_client(writes=True)
    page = client.get("/page/silences", headers={"X-Forwarded-User": "<b>ana</b>"}).text
    assert 'name="author" value="&lt;b&gt;ana&lt;/b&gt;"' in page
    form = {"match": "name=web-1", "author": "ana", "csrf": client.cookies["kn_csrf"]}
    done = client.post("/page/silences", data=form, headers={"Sec-Fetch-Site": "same-origin"},
                       follow_redirects=False)  # fmt: skip
    assert done.status_code == 303 and silences.kept
    cross = client.post("/page/silences", data=form, headers={"Sec-Fetch-Site": "cross-site"})
    assert cross.status_code == 403


def test_a_long_error_comes_back_whole_enough_not_as_a_422() -> None:
    client, silences = page_client(writes=True)
    client.get("/page/silences")
    form = {"match": "name=~(" + "r" * 2000, "csrf": client.cookies["kn_csrf"]}  # a bad regex
    answer = client.post("/page/silences", data=form, headers={"Origin": "http://page.test"})
    assert answer.status_code == 200 and "not added: silence -: name=" in answer.text
    assert not silences.kept

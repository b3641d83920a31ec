"""Read replicas on a real streaming replica (issue 30): a throwaway primary made with
Debian's PostgreSQL binaries, a hot standby cloned from it with ``pg_basebackup -R``, and
gunicorn serving the site with ``DATABASE_REPLICA_URLS`` naming the standby.

Whether a page was read from the replica or the primary shows in what it says: with the
standby's replay paused (``pg_wal_replay_pause()``), a title changed on the primary is new
on the primary and old on the replica.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import psycopg
import pytest

from tests import celery_helpers
from tests.conftest import FIXTURES
from tests.servers import ThrowawayCluster, gunicorn

HARVEST = FIXTURES / "arxiv/oai/hepcrawl_arxiv-physics-hep-th.xml"
PAPER = "1412.8323"  # in HARVEST
PAPER_URL = f"/papers/{PAPER}"
EMAIL, PASSWORD = "reader@example.org", "a long replica password"


def debian_bindir() -> Path:
    """The newest Debian PostgreSQL server binaries holding ``pg_basebackup``, else skip."""
    found = sorted(
        (p for p in Path("/usr/lib/postgresql").glob("*/bin") if (p / "pg_basebackup").exists()),
        key=lambda p: int(p.parent.name) if p.parent.name.isdigit() else 0,
    )
    if not found:
        pytest.skip(
            "no Debian PostgreSQL binaries (/usr/lib/postgresql/*/bin/pg_basebackup); .ci/run installs them"
        )
    return found[-1]


def manage(database_url: str, *argv: str) -> str:
    """``manage.py`` against ``database_url``; its stdout."""
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": "/tmp",
        "DATABASE_URL": database_url,
        "SECRET_KEY": "replica-test-" + "x" * 40,
        "WOVE_TESTING": "1",
        "CELERY_BROKER_URL": "memory://",
    }
    return subprocess.run(  # noqa: S603 - fixed argv
        [sys.executable, "manage.py", *argv],
        cwd=celery_helpers.ROOT,
        env=env,
        check=True,
        capture_output=True,
        text=True,
        timeout=300,
    ).stdout


class Pair:
    """The primary and its streaming standby, with SQL helpers on each."""

    def __init__(self, primary: ThrowawayCluster, standby: ThrowawayCluster):
        self.primary, self.standby = primary, standby

    def sql(self, cluster: ThrowawayCluster, statement: str, params: tuple = ()) -> list[tuple]:
        with psycopg.connect(cluster.url("wove"), autocommit=True) as conn:
            cursor = conn.execute(statement, params)
            return cursor.fetchall() if cursor.description else []

    def title(self, cluster: ThrowawayCluster) -> str:
        return self.sql(cluster, "SELECT title FROM papers_paper WHERE arxiv_id = %s", (PAPER,))[0][0]

    def set_title(self, title: str) -> None:
        self.sql(self.primary, "UPDATE papers_paper SET title = %s WHERE arxiv_id = %s", (title, PAPER))

    def pause(self) -> None:
        self.sql(self.standby, "SELECT pg_wal_replay_pause()")

    def resume_and_catch_up(self) -> None:
        """Resume replay and wait until the standby holds the primary's title."""
        self.sql(self.standby, "SELECT pg_wal_replay_resume()")
        want = self.title(self.primary)
        deadline = time.monotonic() + 30
        while self.title(self.standby) != want:
            assert time.monotonic() < deadline, "the standby did not catch up in 30 s"
            time.sleep(0.1)


@pytest.fixture(scope="module")
def pair() -> Iterator[Pair]:
    bindir = debian_bindir()
    with tempfile.TemporaryDirectory(prefix="wove-replica-") as tmp:
        root = Path(tmp)
        root.chmod(0o755)  # the clusters run as the postgres user, inside it
        (root / "primary").mkdir()
        (root / "standby").mkdir()
        primary = ThrowawayCluster(bindir, root / "primary")
        standby = ThrowawayCluster(bindir, root / "standby")
        primary.init()
        primary.start()
        try:
            primary.createdb("wove")
            url = primary.url("wove")
            manage(url, "migrate", "-v0")
            manage(
                url,
                "harvest_arxiv",
                "--no-progress",
                "--file",
                str(FIXTURES / "arxiv/oai/hepcrawl_arxiv-physics-hep-th.xml"),
            )
            manage(
                url,
                "shell",
                "-c",
                "from django.contrib.auth import get_user_model; "
                "from allauth.account.models import EmailAddress; "
                f"u = get_user_model().objects.create_user('reader', {EMAIL!r}, {PASSWORD!r}); "
                "u.is_staff = u.is_superuser = True; u.save(); "
                f"EmailAddress.objects.create(user=u, email={EMAIL!r}, verified=True, primary=True)",
            )
            standby.clone_standby_of(primary)
            standby.start()
            pair = Pair(primary, standby)
            pair.resume_and_catch_up()
            yield pair
        finally:
            for cluster in (standby, primary):
                cluster.kill()


def served(pair: Pair, *, max_lag: float, replica_url: str = ""):
    """gunicorn on the primary with the standby (or ``replica_url``) as its one replica, each
    replica checked every 0.3 s, ``max_lag`` seconds of lag allowed, a replica query cut
    after 1 s."""
    return gunicorn(
        pair.primary.url("wove"),
        threads=4,
        extra_env={
            "DATABASE_REPLICA_URLS": replica_url or pair.standby.url("wove"),
            "DATABASE_REPLICA_QUERY_TIMEOUT": "1",
            "DATABASE_REPLICA_MAX_LAG": str(max_lag),
            "DATABASE_REPLICA_CHECK_INTERVAL": "0.3",
            "DATABASE_READ_YOUR_WRITES": "60",
        },
    )


def title_shown(client: httpx.Client) -> str:
    response = client.get(PAPER_URL, follow_redirects=True)
    assert response.status_code == 200, response.text[:500]
    return re.search(r"<h1[^>]*>(.*?)</h1>", response.text, re.S).group(1).strip()


def sign_in(client: httpx.Client) -> None:
    form = client.get("/accounts/login/").text
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', form).group(1)
    response = client.post(
        "/accounts/login/", data={"login": EMAIL, "password": PASSWORD, "csrfmiddlewaretoken": token}
    )
    assert response.status_code == 302, response.text[:500]


def test_page_reads_go_to_the_replica_and_a_writer_reads_its_own_writes(pair):
    pair.resume_and_catch_up()
    pair.set_title("Routed title, version one")
    pair.resume_and_catch_up()
    with served(pair, max_lag=3600) as base, httpx.Client(base_url=base, timeout=20) as visitor:
        assert title_shown(visitor) == "Routed title, version one"
        pair.pause()
        try:
            pair.set_title("Routed title, version two")
            # The visitor reads the paused replica; the API too.
            assert title_shown(visitor) == "Routed title, version one"
            assert visitor.get(f"/api/v1/papers/{PAPER}").json()["title"] == "Routed title, version one"
            with httpx.Client(base_url=base, timeout=20) as reader:
                sign_in(reader)
                assert "wove_primary" in reader.cookies  # the sign-in was a write
                # Reads after the write come from the primary: the new title, and a follow
                # made now is on the reader's Following page at once (not yet on the replica).
                assert title_shown(reader) == "Routed title, version two"
                token = reader.cookies["csrftoken"]
                follow = reader.post(
                    "/accounts/follow/category/hep-th",
                    data={"csrfmiddlewaretoken": token, "next": "/accounts/following"},
                )
                assert follow.status_code == 303, follow.text[:500]
                following = reader.get("/accounts/following")
                assert following.status_code == 200
                assert "Categories (1)</h2>" in following.text, following.text[-3000:]
                assert '<a href="/papers/?category=hep-th"><span class="mono">hep-th</span>' in following.text
                assert pair.sql(pair.standby, "SELECT count(*) FROM accounts_follow")[0][0] == 0
            # The visitor, who wrote nothing, still reads the replica.
            assert title_shown(visitor) == "Routed title, version one"
        finally:
            pair.resume_and_catch_up()
        assert title_shown(visitor) == "Routed title, version two"


def test_a_replica_lagging_past_the_limit_is_skipped(pair):
    pair.resume_and_catch_up()
    with served(pair, max_lag=1) as base, httpx.Client(base_url=base, timeout=20) as visitor:
        pair.pause()
        try:
            pair.set_title("Lagging title, new on the primary")
            time.sleep(1.5)  # past DATABASE_REPLICA_MAX_LAG, and several checks
            assert title_shown(visitor) == "Lagging title, new on the primary"
            with httpx.Client(base_url=base, timeout=20) as editor:
                sign_in(editor)
                admin = editor.get("/admin/wove/stagerun/")
            assert admin.status_code == 200, admin.text[:500]
            row = re.search(r'<table id="read-replicas">.*?</table>', admin.text, re.S).group(0)
            assert re.search(
                r'<th scope="row">replica_1</th><td>127\.0\.0\.1:\d+</td>\s*<td>\d+\.\d s</td>', row
            ), row
            assert "not serving reads: " in row and "(DATABASE_REPLICA_MAX_LAG 1 s)" in row
            status = manage_status(pair, max_lag=1)
            assert re.search(
                r"read replica replica_1 \(127\.0\.0\.1:\d+\): lag \d+\.\d s, not serving reads: ", status
            )
        finally:
            pair.resume_and_catch_up()
        status = manage_status(pair, max_lag=1)
        assert re.search(
            r"read replica replica_1 \(127\.0\.0\.1:\d+\): lag 0\.0 s, serving reads$", status, re.M
        )


def manage_status(pair: Pair, *, max_lag: float, replica_url: str = "") -> str:
    env_url = pair.primary.url("wove")
    out = subprocess.run(  # noqa: S603
        [sys.executable, "manage.py", "pipeline_status"],
        cwd=celery_helpers.ROOT,
        env={
            "PATH": "/usr/bin:/bin",
            "HOME": "/tmp",
            "DATABASE_URL": env_url,
            "DATABASE_REPLICA_URLS": replica_url or pair.standby.url("wove"),
            "DATABASE_REPLICA_MAX_LAG": str(max_lag),
            "SECRET_KEY": "replica-test-" + "x" * 40,
            "WOVE_TESTING": "1",
            "CELERY_BROKER_URL": "memory://",
        },
        capture_output=True,
        text=True,
        timeout=120,
    )
    return out.stdout


URLS = [
    PAPER_URL,
    "/search?q=string",
    f"/api/v1/papers/{PAPER}",
    "/api/v1/papers?size=5",
    "/papers?category=hep-th",
]


def test_a_replica_stopped_under_load_fails_no_request_and_is_used_again_once_back(pair):
    pair.resume_and_catch_up()
    with served(pair, max_lag=3600) as base:
        statuses: list = []
        stop = threading.Event()

        def visitor() -> None:
            with httpx.Client(base_url=base, timeout=30, follow_redirects=True) as client:
                while not stop.is_set():
                    for url in URLS:
                        try:
                            response = client.get(url)
                            statuses.append(
                                response.status_code
                                if response.status_code == 200
                                else (url, response.status_code)
                            )
                        except httpx.HTTPError as exc:
                            statuses.append(repr(exc))

        threads = [threading.Thread(target=visitor) for _ in range(4)]
        for thread in threads:
            thread.start()
        time.sleep(2)
        before = len(statuses)
        pair.standby.stop()
        time.sleep(3)
        stop.set()
        for thread in threads:
            thread.join(60)
        assert before > 0 and len(statuses) > before
        assert set(statuses) == {200}, [s for s in statuses if s != 200][:10]

        with httpx.Client(base_url=base, timeout=20) as visitor:
            # The replica is down: reads are on the primary.
            pair.set_title("Served by the primary while the replica is down")
            assert title_shown(visitor) == "Served by the primary while the replica is down"
            # The replica back: once caught up, pages read from it again.
            pair.standby.start()
            pair.resume_and_catch_up()
            time.sleep(1)  # a check interval or three
            pair.pause()
            try:
                pair.set_title("Written while the replica is paused")
                assert title_shown(visitor) == "Served by the primary while the replica is down"
            finally:
                pair.resume_and_catch_up()


def standby_processes(pair: Pair) -> list[int]:
    """The standby's postmaster and all its children."""
    import psutil

    postmaster = int((pair.standby.data / "postmaster.pid").read_text().split()[0])
    root = psutil.Process(postmaster)
    return [root.pid, *(child.pid for child in root.children(recursive=True))]


def test_a_replica_that_stops_answering_costs_seconds_not_the_site(pair):
    """The standby's processes stopped (SIGSTOP): its host still accepts TCP, nothing
    answers. The first request finds out (its replica query cut after
    DATABASE_REPLICA_QUERY_TIMEOUT, 1 s) and is answered from the primary; the next ones read
    the primary at once, while a thread checks the replica again every 0.3 s (each check
    waiting out the connect timeout, 2 s). Before that thread, every request made the check
    itself and took 2 s."""
    import os
    import signal

    pair.resume_and_catch_up()
    with served(pair, max_lag=3600) as base, httpx.Client(base_url=base, timeout=30) as visitor:
        assert visitor.get(f"/api/v1/papers/{PAPER}").status_code == 200  # connections open
        stopped = standby_processes(pair)
        for pid in stopped:
            os.kill(pid, signal.SIGSTOP)
        try:
            pair.set_title("Answered while the replica hangs")
            started, results = time.monotonic(), []
            for url in [*URLS, *URLS]:
                time.sleep(0.4)  # visitors spread out: each request comes after a check interval
                begin = time.monotonic()
                response = visitor.get(url, follow_redirects=True)
                results.append((url, response.status_code, time.monotonic() - begin))
            assert title_shown(visitor) == "Answered while the replica hangs"
            elapsed = time.monotonic() - started
        finally:
            for pid in stopped:
                os.kill(pid, signal.SIGCONT)
    assert {status for _, status, _ in results} == {200}, results
    assert max(seconds for *_, seconds in results) < 5, results
    # The first request waits for the query timeout; one spare for a loaded machine.
    slow = [result for result in results if result[2] >= 1.0]
    assert len(slow) <= 2, results
    assert elapsed < 25, results  # ten requests 0.4 s apart


def test_a_replica_url_that_is_not_a_standby_of_the_primary_is_never_read(pair):
    """The replica URL names another database of the primary's own server: never read, and
    said so by pipeline_status; the pages are right and the log holds no error."""
    pair.resume_and_catch_up()
    other = pair.primary.url("postgres")
    with (
        served(pair, max_lag=3600, replica_url=other) as base,
        httpx.Client(base_url=base, timeout=20) as visitor,
    ):
        statuses = {url: visitor.get(url, follow_redirects=True).status_code for url in URLS}
        log = Path(base.log_path).read_text()
    assert set(statuses.values()) == {200}, statuses
    assert "failed under" not in log and "Traceback" not in log, log[-3000:]
    status = manage_status(pair, max_lag=10, replica_url=other)
    assert "not serving reads: not a standby of this primary (another cluster or database)" in status, status


def test_editors_tools_read_from_the_primary(pair):
    pair.resume_and_catch_up()
    with served(pair, max_lag=3600) as base, httpx.Client(base_url=base, timeout=20) as editor:
        sign_in(editor)
        editor.cookies.delete("wove_primary")  # no recent write: only the path decides
        pair.pause()
        try:
            pair.set_title("Seen by editors at once")
            assert title_shown(editor) != "Seen by editors at once"  # a public page: the replica
            admin = editor.get("/admin/papers/paper/", params={"q": PAPER})
            assert admin.status_code == 200
            assert "Seen by editors at once" in admin.text
        finally:
            pair.resume_and_catch_up()


def test_an_emailed_confirmation_link_opened_elsewhere_finds_the_new_account(pair):
    """Sign-up in one browser; the link from the mail (the console backend: gunicorn's log)
    opened at once in another, without the first one's cookies, while the replica lags."""
    pair.resume_and_catch_up()
    with served(pair, max_lag=3600) as base:
        pair.pause()
        try:
            with httpx.Client(base_url=base, timeout=20) as signing_up:
                form = signing_up.get("/accounts/signup/").text
                token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', form).group(1)
                response = signing_up.post(
                    "/accounts/signup/",
                    data={
                        "email": "newcomer@example.org",
                        "password1": PASSWORD,
                        "password2": PASSWORD,
                        "csrfmiddlewaretoken": token,
                    },
                )
                assert response.status_code == 302, response.text[:500]
            deadline = time.monotonic() + 10
            while not (
                link := re.search(r"https?://[^/\s]+(/accounts/confirm-email/[^/\s]+/)", read_log(base))
            ):
                assert time.monotonic() < deadline, read_log(base)[-2000:]
                time.sleep(0.1)
            with httpx.Client(base_url=base, timeout=20) as elsewhere:
                page = elsewhere.get(link.group(1))
            assert page.status_code == 200
            assert "newcomer@example.org" in page.text, page.text[-2000:]
            assert "expired or is invalid" not in page.text
        finally:
            pair.resume_and_catch_up()


def read_log(base) -> str:
    return Path(base.log_path).read_text(errors="replace")

"""The digest beat job in a real Celery worker over Redis, mailing through Django's SMTP
backend to a local SMTP sink: a redelivered task sends nothing twice."""

from __future__ import annotations

import email
import re
import socketserver
import threading
from pathlib import Path

import pytest

from accounts import services
from accounts.models import Digest
from tests.accounts.conftest import backdate_follows
from tests.celery_helpers import app_on_broker, celery_worker, redis_server, wait_for

pytestmark = [pytest.mark.celery, pytest.mark.django_db(transaction=True)]


class SmtpSink(socketserver.StreamRequestHandler):
    """Just enough SMTP (RFC 5321: EHLO, MAIL, RCPT, DATA, RSET, NOOP, QUIT) to take mail."""

    received: list[bytes] = []

    def reply(self, line: str) -> None:
        self.wfile.write(line.encode() + b"\r\n")

    def handle(self) -> None:
        self.reply("220 sink ESMTP")
        while line := self.rfile.readline():
            verb = line.split(b" ", 1)[0].strip().upper()
            if verb in (b"EHLO", b"HELO"):
                self.reply("250 sink")
            elif verb == b"DATA":
                self.reply("354 end with <CRLF>.<CRLF>")
                body = []
                while (chunk := self.rfile.readline()) not in (b".\r\n", b""):
                    body.append(chunk[1:] if chunk.startswith(b"..") else chunk)
                SmtpSink.received.append(b"".join(body))
                self.reply("250 queued")
            elif verb == b"QUIT":
                self.reply("221 bye")
                return
            else:  # MAIL, RCPT, RSET, NOOP
                self.reply("250 ok")


@pytest.fixture
def smtp_sink():
    SmtpSink.received = []
    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), SmtpSink)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


def test_digest_job_in_a_real_worker_sends_each_paper_once(archive, reader, smtp_sink):
    from accounts import tasks
    from wove.celery import app

    services.follow_create(user_id=reader.pk, target=archive["aickelin"])
    backdate_follows(reader)
    env = {
        "EMAIL_HOST": "127.0.0.1",
        "EMAIL_PORT": str(smtp_sink),
        "EMAIL_USE_TLS": "0",
        "DEFAULT_FROM_EMAIL": "wovepaper <digest@example.org>",
    }
    with redis_server() as broker, celery_worker(broker, env) as worker, app_on_broker(app, broker):
        log = Path(worker.log_path)
        tasks.send_digests.delay()  # the beat job: one accounts.send_digest per due user
        assert wait_for(lambda: len(SmtpSink.received) == 1, timeout=90), log.read_text()[-3000:]
        # The broker redelivers the user's task (a lost ack), twice, and the beat runs again.
        tasks.send_digest.delay(user_id=reader.pk)
        tasks.send_digest.delay(user_id=reader.pk)
        tasks.send_digests.delay()
        # 2 beat runs + 3 digest tasks (the second beat finds nobody due).
        done = wait_for(lambda: log.read_text().count(" succeeded in ") >= 5, timeout=90)
        assert done, log.read_text()[-3000:]
        text = log.read_text()
    # Each task's return value, from the worker's log: papers sent, users queued.
    sent = re.findall(r"accounts\.send_digest\[[^\]]+\] succeeded in [0-9.]+s: (\d+)", text)
    queued = re.findall(r"accounts\.send_digests\[[^\]]+\] succeeded in [0-9.]+s: (\d+)", text)
    assert sent == ["6", "0", "0"]
    assert queued == ["1", "0"]
    assert len(SmtpSink.received) == 1
    message = email.message_from_bytes(SmtpSink.received[0])
    assert message["To"] == "ada@example.org"
    assert message["Subject"] == "wovepaper: 6 new papers from what you follow"
    html = next(part for part in message.walk() if part.get_content_type() == "text/html")
    ids = re.findall(r'data-arxiv-id="([^"]+)"', html.get_payload(decode=True).decode())
    assert ids == ["0801.4119", "0801.4314", "0801.4312", "0801.4307", "0801.4287", "0801.3971"]
    assert Digest.objects.get(user=reader).sent_at is not None

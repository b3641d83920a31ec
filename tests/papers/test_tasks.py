"""The daily harvest task run by a real Celery worker over Redis, against a local
OAI-PMH server replaying the recorded pages."""

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest

from papers.models import HarvestRun, Paper
from tests.celery_helpers import celery_worker, redis_server, wait_for
from tests.conftest import FIXTURES

pytestmark = [pytest.mark.celery, pytest.mark.django_db(transaction=True)]

OAI = FIXTURES / "arxiv" / "oai"


class OaiReplay(BaseHTTPRequestHandler):
    """Answers ListRecords from the two recorded pages, by resumptionToken."""

    seen: list[dict] = []

    def do_GET(self):  # noqa: N802 - http.server's naming
        params = {k: v[0] for k, v in parse_qs(urlparse(self.path).query).items()}
        OaiReplay.seen.append(params)
        name = (
            "edited_arXivRaw_ListRecords_page2.xml"
            if params.get("resumptionToken")
            else "edited_arXivRaw_ListRecords_page1.xml"
        )
        body = (OAI / name).read_bytes()
        self.send_response(200)
        self.send_header("Content-Type", "text/xml")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def oai_server():
    OaiReplay.seen = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), OaiReplay)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/oai"
    server.shutdown()


def test_harvest_task_in_a_real_worker(oai_server):
    from wove.celery import app

    with redis_server() as broker:
        env = {"ARXIV_OAI_ENDPOINT": oai_server, "ARXIV_OAI_MIN_INTERVAL": "0"}
        with celery_worker(broker, env) as worker:
            # An explicit connection: the app's pooled one may point at an earlier test's broker.
            with app.connection_for_write(broker) as connection:
                app.send_task("papers.harvest_arxiv", connection=connection)
            run = wait_for(lambda: HarvestRun.objects.filter(status="complete").first(), timeout=90)
            assert run is not None, Path(worker.log_path).read_text()[-3000:]
    assert (run.records_seen, run.records_written, run.pages) == (5, 5, 2)
    assert Paper.objects.count() == 5
    assert OaiReplay.seen[0] == {"verb": "ListRecords", "metadataPrefix": "arXivRaw"}
    assert OaiReplay.seen[1] == {"verb": "ListRecords", "resumptionToken": "496549|3"}

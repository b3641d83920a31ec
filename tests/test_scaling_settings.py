"""Settings for more than one machine (issue 30): replica URLs as aliases, HTTP_CACHE_POLICIES."""

import pytest
from django.core.exceptions import ImproperlyConfigured

from wove.replicas import read_alias, reads_from_replicas, replica_databases


def test_each_replica_url_is_an_alias_mirroring_the_primary_in_tests():
    databases = replica_databases(
        [
            "postgres://reader@10.0.0.2:5433/wove",
            "postgresql://reader@replica-2.internal/wove?connect_timeout=9",
        ]
    )
    assert list(databases) == ["replica_1", "replica_2"]
    first, second = databases["replica_1"], databases["replica_2"]
    assert (first["HOST"], first["PORT"], first["NAME"], first["USER"]) == (
        "10.0.0.2",
        5433,
        "wove",
        "reader",
    )
    assert first["OPTIONS"] == {"connect_timeout": 2}
    assert second["OPTIONS"] == {"connect_timeout": 9}  # the URL's own wins
    assert first["TEST"] == {"MIRROR": "default"}
    assert first["CONN_MAX_AGE"] == 60 and first["CONN_HEALTH_CHECKS"] is True


def test_a_replica_on_a_unix_socket_names_its_directory_as_host():
    databases = replica_databases(["postgresql://postgres@/wove?host=/srv/replica/socket"])
    assert databases["replica_1"]["HOST"] == "/srv/replica/socket"
    assert databases["replica_1"]["OPTIONS"] == {"connect_timeout": 2}


def test_a_replica_url_that_is_not_postgresql_is_refused():
    with pytest.raises(ImproperlyConfigured, match="replica 2 is not a postgres:// URL"):
        replica_databases(["postgres://a@b/c", "mysql://a@b/c"])


def test_without_replicas_every_read_goes_to_the_primary():
    assert read_alias() == "default"
    with reads_from_replicas():
        assert read_alias() == "default"


def test_http_cache_policies_replace_a_kinds_seconds():
    from wove.http_cache import CachePolicy, policies_from_text

    assert policies_from_text("") == {}
    assert policies_from_text("paper=1/2/0, search = 30/60/120") == {
        "paper": CachePolicy(max_age=1, s_maxage=2, stale_while_revalidate=0),
        "search": CachePolicy(max_age=30, s_maxage=60, stale_while_revalidate=120),
    }
    assert policies_from_text("paper=1/2/0")["paper"].header() == (
        "public, max-age=1, s-maxage=2, stale-while-revalidate=0"
    )


@pytest.mark.parametrize("text", ["papers=1/2/3", "paper=1/2", "paper=1/2/x", "paper"])
def test_http_cache_policies_that_do_not_parse_are_refused(text):
    from wove.http_cache import policies_from_text

    with pytest.raises(
        ImproperlyConfigured, match="is not <kind>=<max-age>/<s-maxage>/<stale-while-revalidate>"
    ):
        policies_from_text(text)


@pytest.mark.parametrize("text", ["abc", "nan", "inf", "-5", ""])
def test_seconds_settings_that_do_not_parse_are_refused_by_name(text):
    from wove.replicas import seconds_setting

    with pytest.raises(
        ImproperlyConfigured, match=r"^DATABASE_REPLICA_MAX_LAG=.*: expected a number of seconds"
    ):
        seconds_setting("DATABASE_REPLICA_MAX_LAG", text)
    assert seconds_setting("DATABASE_REPLICA_MAX_LAG", "0.5") == 0.5


def test_lag_is_read_from_the_primarys_positions_not_from_commit_times():
    from wove import replica_health

    positions = replica_health._positions
    saved = list(positions)
    positions.clear()
    try:
        # The primary at 1,000 bytes at t=100 s and at 3,000 bytes at t=110 s (WAL written
        # steadily, committed or not).
        positions.extend([(100.0, 1000), (110.0, 3000)])
        assert replica_health.lag_behind(3000, now=110.0) == 0.0  # replayed the newest
        assert replica_health.lag_behind(5000, now=111.0) == 0.0
        assert replica_health.lag_behind(2000, now=110.0) == 5.0  # where the primary stood at 105 s
        assert replica_health.lag_behind(1000, now=112.0) == 12.0
        assert replica_health.lag_behind(999, now=112.0) is None  # older than anything seen
        # An idle primary: the same position seen again; a replica there is not behind.
        positions.append((130.0, 3000))
        assert replica_health.lag_behind(3000, now=131.0) == 0.0
        assert replica_health.lag_behind(1000, now=131.0) == 31.0
    finally:
        positions.clear()
        positions.extend(saved)


def test_lsn_text_as_bytes():
    from wove.replica_health import lsn

    assert lsn("0/0") == 0
    assert lsn("16/B374D848") == (0x16 << 32) + 0xB374D848


@pytest.mark.django_db
def test_the_sites_sessions_run_without_jit_compilation():
    from django.db import connection

    from wove.settings import without_jit

    with connection.cursor() as cursor:
        cursor.execute("SHOW jit")
        assert cursor.fetchone() == ("off",)
    config = {"OPTIONS": {"connect_timeout": 5}}
    without_jit(config)
    assert config["OPTIONS"] == {"connect_timeout": 5, "options": "-c jit=off"}
    kept = {"OPTIONS": {"options": "-c jit=on -c statement_timeout=5s"}}
    without_jit(kept)
    assert kept["OPTIONS"]["options"] == "-c jit=on -c statement_timeout=5s"  # the URL's own wins
    other = {"OPTIONS": {"options": "-c statement_timeout=5s"}}
    without_jit(other)
    assert other["OPTIONS"]["options"] == "-c statement_timeout=5s -c jit=off"

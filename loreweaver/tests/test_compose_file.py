"""docker-compose.yml gives a working hosted table (it cannot run here: read it instead)."""

from __future__ import annotations

import ipaddress
import re
from pathlib import Path

import yaml
from django.core.management import get_commands

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
SERVICES = COMPOSE["services"]
TABLE = ("web", "iroh")


def _command(service: str) -> str:
    command = SERVICES[service].get("command", "")
    return " ".join(command) if isinstance(command, list) else command


def test_the_hosted_stack_has_its_five_services_and_a_bucket_job():
    assert {"web", "iroh", "postgres", "redis", "minio", "createbuckets"} <= set(SERVICES)


def test_web_runs_migrations_then_daphne_without_iroh_and_the_sidecar_runs_iroh():
    assert re.search(r"manage\.py migrate .*&& exec python manage\.py serve .*--no-iroh", _command("web"))
    assert "--host 0.0.0.0" in _command("web")
    assert _command("iroh") == "python manage.py iroh_serve"
    commands = get_commands()
    for name in ("serve", "iroh_serve", "mint_key"):
        assert name in commands, f"manage.py has no {name} command"


def test_both_table_processes_share_postgres_redis_and_s3():
    bucket_job = SERVICES["createbuckets"]["entrypoint"]
    for service in TABLE:
        env = SERVICES[service]["environment"]
        assert env["DATABASE_URL"].startswith("postgres://") and "@postgres:5432/" in env["DATABASE_URL"]
        assert env["REDIS_URL"] == "redis://redis:6379/0"
        assert env["MEDIA_STORAGE"] == "s3"
        assert env["AWS_S3_ENDPOINT_URL"] == "http://minio:9000"
        assert env["AWS_STORAGE_BUCKET_NAME"] in bucket_job, "the bucket the app uses is the one created"
        assert env["DJANGO_SECRET_KEY"], "web replicas and the sidecar sign alike"
        assert env["TRPG_DATA_DIR"] == "/data"
    assert SERVICES["web"]["environment"]["DATABASE_URL"] == SERVICES["iroh"]["environment"]["DATABASE_URL"]


def test_database_credentials_match_between_postgres_and_the_table():
    postgres = SERVICES["postgres"]["environment"]
    url = SERVICES["web"]["environment"]["DATABASE_URL"]
    assert f"//{postgres['POSTGRES_USER']}:" in url and url.endswith("/" + postgres["POSTGRES_DB"])
    assert postgres["POSTGRES_PASSWORD"] in url


def test_every_service_has_a_healthcheck_or_is_a_one_shot_job_and_data_lives_in_volumes():
    for name, service in SERVICES.items():
        if name != "createbuckets":
            assert "healthcheck" in service, name
    for name in ("web", "iroh", "postgres", "redis", "minio"):
        for volume in SERVICES[name]["volumes"]:
            assert volume.split(":")[0] in COMPOSE["volumes"], (name, volume)


def test_start_order_waits_for_healthy_dependencies():
    web = SERVICES["web"]["depends_on"]
    assert web["postgres"]["condition"] == web["redis"]["condition"] == "service_healthy"
    assert web["createbuckets"]["condition"] == "service_completed_successfully"
    assert SERVICES["iroh"]["depends_on"]["web"]["condition"] == "service_healthy"  # migrations ran
    assert SERVICES["createbuckets"]["depends_on"]["minio"]["condition"] == "service_healthy"


def test_the_ports_players_reach_are_published():
    assert "8765:8765" in SERVICES["web"]["ports"]
    assert "4433:4433/udp" in SERVICES["iroh"]["ports"]
    assert SERVICES["iroh"]["environment"]["TRPG_IROH__BIND"] == "0.0.0.0:4433"


def test_the_image_installs_the_locked_requirements():
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert "pip install --no-cache-dir --require-hashes -r requirements.lock" in dockerfile
    assert "TRPG_DATA_DIR=/data" in dockerfile
    for service in TABLE:
        assert SERVICES[service]["build"] == "."


def test_a_stop_gives_the_table_time_to_finish_its_turns():
    # The server itself must receive SIGTERM (not a shell that ignores it), and compose
    # must wait longer than the server's own grace for turns in flight.
    grace = float(COMPOSE["x-table-env"]["TRPG_SHUTDOWN_GRACE"].strip("${}").split(":-")[1])
    for service in TABLE:
        assert int(SERVICES[service]["stop_grace_period"].rstrip("s")) > grace
    assert not _command("iroh").startswith("sh ")


def test_web_and_the_sidecar_are_healthy_when_their_readyz_says_so():
    assert "8765/readyz" in " ".join(SERVICES["web"]["healthcheck"]["test"])
    port = SERVICES["iroh"]["environment"]["TRPG_IROH__HEALTH_BIND"].rsplit(":", 1)[1]
    assert f"{port}/readyz" in " ".join(SERVICES["iroh"]["healthcheck"]["test"])


def test_metrics_are_for_the_stacks_containers_and_never_for_the_hosts_users():
    # Whatever reaches a table process from the host (a local user, a published port
    # reached from this host) comes from the network's gateway; the proxy forwards
    # strangers. Neither may be inside what TRPG_METRICS_ALLOWED lists.
    (network,) = COMPOSE["networks"]["default"]["ipam"]["config"]
    allowed = COMPOSE["x-table-env"]["TRPG_METRICS_ALLOWED"].strip("${}").split(":-")[1]
    listed = [ipaddress.ip_network(value.strip()) for value in allowed.split(",")]
    assert listed == [ipaddress.ip_network(network["ip_range"])], "the containers' addresses"
    proxy = SERVICES["proxy"]["networks"]["default"]["ipv4_address"]
    for outsider in (network["gateway"], proxy):
        assert ipaddress.ip_address(outsider) in ipaddress.ip_network(network["subnet"])
        assert not any(ipaddress.ip_address(outsider) in net for net in listed), outsider
    for service in TABLE:
        assert SERVICES[service]["environment"]["TRPG_METRICS_TOKEN"] == "${TRPG_METRICS_TOKEN:-}"


def _references(value: str) -> list[tuple[str, str, str]]:
    """Each `${NAME<op>rest}` in a compose value: (name, operator, rest)."""
    return re.findall(r"\$\{(\w+)(:?[-?]|)([^}]*)\}", value)


def _strings(node: object) -> list[str]:
    if isinstance(node, dict):
        return [s for value in node.values() for s in _strings(value)]
    if isinstance(node, list):
        return [s for value in node for s in _strings(value)]
    return [node] if isinstance(node, str) else []


def test_no_password_or_key_has_a_default_and_a_missing_one_says_where_to_set_it():
    secret = re.compile(r"PASSWORD|SECRET|_KEY$|ROOT_USER|TOKEN")
    seen = set()
    for value in _strings(COMPOSE):
        for name, operator, rest in _references(value):
            # The metrics token is optional: left empty, no token opens /metrics.
            if secret.search(name) and not name.startswith("TRPG_LLM__") and name != "TRPG_METRICS_TOKEN":
                seen.add(name)
                assert operator == ":?", f"${{{name}}} must be required (:?), not {operator or 'optional'}"
                assert ".env" in rest, f"${{{name}}}'s message should say where to set it"
    assert {"POSTGRES_PASSWORD", "MINIO_ROOT_USER", "MINIO_ROOT_PASSWORD", "DJANGO_SECRET_KEY"} <= seen
    example = (ROOT / ".env.example").read_text()
    for name in seen:
        assert re.search(rf"^{name}=$", example, re.MULTILINE), f".env.example leaves {name} for the operator"


def test_the_table_trusts_the_forwarded_addresses_of_the_bundled_proxy_only():
    trusted = COMPOSE["x-table-env"]["TRPG_TRUSTED_PROXIES"].strip("${}").split(":-")[1]
    proxy = SERVICES["proxy"]["networks"]["default"]["ipv4_address"]
    assert trusted == proxy, "the proxy's own address, not a network other containers share"
    subnet = COMPOSE["networks"]["default"]["ipam"]["config"][0]
    assert ipaddress.ip_address(proxy) in ipaddress.ip_network(subnet["subnet"])
    assert ipaddress.ip_address(proxy) not in ipaddress.ip_network(subnet["ip_range"]), "never another's"
    assert re.search(rf"^TRPG_TRUSTED_PROXIES={re.escape(proxy)}$", (ROOT / ".env.example").read_text(), re.M)


def test_the_media_store_console_is_not_published():
    for name, service in SERVICES.items():
        for port in service.get("ports", []):
            assert "9001" not in str(port), f"{name} publishes the MinIO console"


def test_every_image_is_pinned_to_a_release():
    images = {name: service["image"] for name, service in SERVICES.items() if "image" in service}
    assert images, "the stack pulls images"
    for name, image in images.items():
        tag = image.rsplit(":", 1)[1] if ":" in image else "latest"
        assert re.fullmatch(r"\d+\.\d+(\.\d+)?(-[\w.]+)?|RELEASE\.[\w.-]+", tag), f"{name}: {image} floats"
    base = re.search(r"^FROM (\S+)", (ROOT / "Dockerfile").read_text(), re.MULTILINE).group(1)
    assert re.search(r":\d+\.\d+\.\d+", base), f"the Dockerfile's base image {base} floats"


def test_postgres_accepts_every_connection_the_table_processes_may_pool():
    pool = int(COMPOSE["x-table-env"]["TRPG_DB__POOL_SIZE"].strip("${}").split(":-")[1])
    pooling = [name for name, service in SERVICES.items() if "DATABASE_URL" in service.get("environment", {})]
    assert sorted(pooling) == ["backup", "iroh", "web"]
    accepted = re.search(r"max_connections=\$\{POSTGRES_MAX_CONNECTIONS:-(\d+)\}", _command("postgres"))
    assert accepted, "compose sets Postgres's max_connections"
    assert len(pooling) * pool < int(accepted.group(1))

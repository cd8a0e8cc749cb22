"""The deployment files in ``deploy/`` agree with the code they deploy.

No Docker engine or Kubernetes cluster runs here, so these tests check what can be
checked without one: the compose file and every manifest parse; the probes, ports and
environment variables they name are the ones the service really has; the Dockerfile's
``CMD`` is the package's console script with arguments its real parser accepts; the edge
(the Ingress and ingress-nginx's ConfigMap) holds clients to the service's own HTTP
limits, each compared with the service's default and with the Deployment's value.
"""

from __future__ import annotations

import argparse
import inspect
import json
import re
import tomllib
from dataclasses import fields
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import yaml

import cardproof.cli
import cardproof_service.plumbing.keys
import cardproof_service.plumbing.settings
from cardproof.cli import build_parser
from cardproof_service.door.connections import Connections, trusted_networks
from cardproof_service.lockstep.calls import KEEPALIVE, MAX_WAIT
from cardproof_service.plumbing.settings import DoorSettings, Settings
from cardproof_service.store.redis import parse_sentinel_url

ROOT = Path(__file__).resolve().parent.parent
DEPLOY = ROOT / "deploy"
K8S = DEPLOY / "k8s"

Doc = dict[str, Any]
ENV_NAME = re.compile(r"\b(?:CARDPROOF_[A-Z0-9_]*[A-Z0-9]|REDIS_URL|FORWARDED_ALLOW_IPS)\b")


# --- what the code really provides -----------------------------------------------------


def _env_names_read() -> set[str]:
    """Every environment variable the service's settings, keys and CLI name in their source."""
    names: set[str] = set()
    for module in (cardproof_service.plumbing.settings, cardproof_service.plumbing.keys):
        names |= set(ENV_NAME.findall(inspect.getsource(module)))
    for path in Path(cardproof.cli.__file__).parent.glob("*.py"):  # each subcommand's module
        names |= set(ENV_NAME.findall(path.read_text()))
    # keys.py reads each secret from NAME or from the file named by its NAME_FILE twin.
    keys_source = inspect.getsource(cardproof_service.plumbing.keys._read)
    assert '_FILE"' in keys_source
    secrets = {"CARDPROOF_MASTER_KEY", "CARDPROOF_SIGNING_KEY", "CARDPROOF_RETIRED_KEYS"}
    assert secrets <= names
    return names | {f"{name}_FILE" for name in secrets}


ENV_NAMES = _env_names_read()


def _serve_args(command: list[str]) -> argparse.Namespace:
    """``command`` parsed by the real CLI parser; it must be the package's ``serve``."""
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    scripts: dict[str, str] = pyproject["project"]["scripts"]
    assert command[0] in scripts, f"{command[0]!r} is not a console script of the package"
    assert scripts[command[0]] == "cardproof.cli:main"
    args = build_parser().parse_args(command[1:])
    assert args.command == "serve"
    return args


def test_env_names_are_read_by_the_service() -> None:
    # a sanity check of the collection the other tests rely on
    assert {"REDIS_URL", "CARDPROOF_ENV", "CARDPROOF_MASTER_KEY_FILE", "CARDPROOF_DEAL_TTL"} <= (
        ENV_NAMES
    )
    assert "CARDPROOF_NOT_A_SETTING" not in ENV_NAMES


def test_every_setting_is_in_the_readme_table() -> None:
    readme = (ROOT / "README.md").read_text()
    table = readme.split("### Settings", 1)[1].split("\n## ", 1)[0]
    rows = {
        m for line in table.splitlines() if line.startswith("|") for m in ENV_NAME.findall(line)
    }
    twins = {f"{name}_FILE" for name in rows}  # "`NAME`, `_FILE`" rows name both
    # read by the command line, not the service (README: Command line, Tournaments)
    client_side = {"CARDPROOF_INVITE_CODE", "CARDPROOF_ORGANIZER_KEY", "CARDPROOF_URL"}
    assert all(f"`{name}`" in readme or name in readme for name in client_side)
    assert ENV_NAMES - client_side <= rows | twins, ENV_NAMES - client_side - rows - twins
    assert rows <= ENV_NAMES, rows - ENV_NAMES  # nothing documented that nothing reads


# --- the Dockerfile --------------------------------------------------------------------


def _dockerfile() -> list[tuple[str, str]]:
    """The Dockerfile's instructions as (INSTRUCTION, arguments), continuations joined."""
    instructions: list[tuple[str, str]] = []
    pending = ""
    for raw in (DEPLOY / "Dockerfile").read_text().splitlines():
        line = raw.strip()
        if not pending and (not line or line.startswith("#")):
            continue
        if line.startswith("#"):  # a comment inside a continued instruction
            continue
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        pending += line
        keyword, _, rest = pending.partition(" ")
        instructions.append((keyword.upper(), rest.strip()))
        pending = ""
    assert not pending, "the Dockerfile ends inside a continued line"
    return instructions


def _exec_form(text: str) -> list[str]:
    value = json.loads(text)
    assert isinstance(value, list)
    assert all(isinstance(item, str) for item in value)
    return value


def _dockerfile_cmd() -> list[str]:
    commands = [rest for keyword, rest in _dockerfile() if keyword == "CMD"]
    assert len(commands) == 1
    return _exec_form(commands[0])


def _healthz_port(code: str) -> int:
    """The port of the ``/healthz`` URL a ``python -c`` health check fetches."""
    compile(code, "<healthcheck>", "exec")  # valid Python
    match = re.search(r"http://(?:127\.0\.0\.1|localhost):(\d+)/healthz\b", code)
    assert match, f"the health check does not GET /healthz: {code!r}"
    return int(match[1])


def test_dockerfile_is_multi_stage_on_slim_python() -> None:
    stages = [rest for keyword, rest in _dockerfile() if keyword == "FROM"]
    assert len(stages) >= 2
    assert all(stage.startswith("python:3.11-slim") for stage in stages)
    builder = stages[0].split()[-1]
    copies = [rest for keyword, rest in _dockerfile() if keyword == "COPY"]
    assert any(rest.startswith(f"--from={builder} ") for rest in copies)


def test_dockerfile_copies_what_the_wheel_is_built_from() -> None:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    packages: list[str] = pyproject["tool"]["hatch"]["build"]["targets"]["wheel"]["packages"]
    sources: set[str] = set()
    for rest in (rest for keyword, rest in _dockerfile() if keyword == "COPY"):
        if not rest.startswith("--from="):
            sources.update(rest.split()[:-1])
    for source in sources:
        assert (ROOT / source).exists(), f"COPY {source}: not in the build context"
    assert {"pyproject.toml", pyproject["project"]["readme"], *packages} <= sources
    # ... and the build context keeps them (BuildKit reads Dockerfile.dockerignore).
    ignore = (DEPLOY / "Dockerfile.dockerignore").read_text().splitlines()
    for source in sources:
        assert f"!{source}" in ignore or f"!{source}/**" in ignore


def test_dockerfile_runs_as_a_non_root_user() -> None:
    users = [rest for keyword, rest in _dockerfile() if keyword == "USER"]
    assert users
    final = users[-1].split(":")[0]
    assert final not in {"root", "0"}
    # the user is made in the image (by name or by id)
    runs = " ".join(rest for keyword, rest in _dockerfile() if keyword == "RUN")
    assert f"--uid {final}" in runs or f" {final}" in runs


def test_dockerfile_health_check_gets_healthz_on_the_served_port() -> None:
    checks = [rest for keyword, rest in _dockerfile() if keyword == "HEALTHCHECK"]
    assert len(checks) == 1
    options, _, command = checks[0].partition("CMD ")
    assert "--interval=" in options
    check = _exec_form(command)
    assert check[:2] == ["python", "-c"]  # no curl in the slim image
    args = _serve_args(_dockerfile_cmd())
    assert _healthz_port(check[2]) == args.port


def test_dockerfile_cmd_is_the_packages_serve_command() -> None:
    args = _serve_args(_dockerfile_cmd())
    assert args.host == "0.0.0.0"
    exposed = [rest for keyword, rest in _dockerfile() if keyword == "EXPOSE"]
    assert exposed == [str(args.port)]
    # every ENV the image sets is a variable the service reads (or a standard one)
    env = " ".join(rest for keyword, rest in _dockerfile() if keyword == "ENV")
    for name in re.findall(r"\b([A-Z][A-Z0-9_]*)=", env):
        assert name in ENV_NAMES or not name.startswith(("CARDPROOF_", "REDIS"))
    assert "CARDPROOF_ENV=production" in env


# --- the compose file ------------------------------------------------------------------


def _compose() -> Doc:
    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    assert isinstance(compose, dict)
    return compose


def test_compose_redis_persists_with_aof() -> None:
    compose = _compose()
    redis = compose["services"]["redis"]
    command = redis["command"]
    assert command[0] == "redis-server"
    assert command[command.index("--appendonly") + 1] == "yes"
    assert command[command.index("--appendfsync") + 1] == "always"  # as bench/reliability.py
    volume, _, mount = redis["volumes"][0].partition(":")
    assert mount == "/data"
    assert volume in compose["volumes"]
    assert "redis-cli" in redis["healthcheck"]["test"]


def test_compose_service_uses_redis_and_the_image_port() -> None:
    compose = _compose()
    service = compose["services"]["cardproof"]
    assert service["build"] == {"context": "..", "dockerfile": "deploy/Dockerfile"}
    assert (DEPLOY / service["build"]["context"] / service["build"]["dockerfile"]).is_file()
    assert "command" not in service  # the image's CMD
    args = _serve_args(_dockerfile_cmd())

    environment: dict[str, str] = service["environment"]
    assert set(environment) <= ENV_NAMES
    redis = urlsplit(environment["REDIS_URL"])
    assert (redis.scheme, redis.hostname, redis.port) == ("redis", "redis", 6379)
    assert service["depends_on"]["redis"]["condition"] == "service_healthy"
    assert args.workers == 1 or environment["REDIS_URL"]
    # production: the keys must come from the environment (deploy/.env), never defaults
    assert environment["CARDPROOF_ENV"] == "production"
    for name in ("CARDPROOF_MASTER_KEY", "CARDPROOF_SIGNING_KEY"):
        assert environment[name].startswith("${" + name + ":?")

    published = [str(port).rsplit(":", 1) for port in service["ports"]]
    assert [int(container) for _, container in published] == [args.port]

    test = service["healthcheck"]["test"]
    assert test[:3] == ["CMD", "python", "-c"]
    assert _healthz_port(test[3]) == args.port


# --- the Kubernetes manifests ----------------------------------------------------------


def _manifests() -> list[Doc]:
    docs: list[Doc] = []
    files = sorted(K8S.glob("*.yaml"))
    assert files
    for path in files:
        for doc in yaml.safe_load_all(path.read_text()):
            if doc is None:
                continue
            assert isinstance(doc, dict), path
            assert doc.get("apiVersion"), path
            assert doc.get("kind"), path
            assert doc["metadata"]["name"], path
            docs.append(doc)
    return docs


def _one(kind: str, name: str | None = None) -> Doc:
    found = [d for d in _manifests() if d["kind"] == kind and name in (None, d["metadata"]["name"])]
    assert len(found) == 1, f"{len(found)} {kind} {name or ''}"
    return found[0]


def _container(workload: Doc) -> Doc:
    containers: list[Doc] = workload["spec"]["template"]["spec"]["containers"]
    assert len(containers) == 1
    return containers[0]


def _port_number(container: Doc, port: int | str) -> int:
    """A probe's or Service's port, by number or by the container port's name."""
    if isinstance(port, int):
        return port
    named = [p["containerPort"] for p in container["ports"] if p.get("name") == port]
    assert named, f"no container port named {port!r}"
    return int(named[0])


_UNITS = {"m": 1e-3, "": 1, "Ki": 2**10, "Mi": 2**20, "Gi": 2**30}


def _quantity(text: str | int) -> float:
    match = re.fullmatch(r"(\d+(?:\.\d+)?)(m|Ki|Mi|Gi|)", str(text))
    assert match, f"unexpected quantity {text!r}"
    return float(match[1]) * _UNITS[match[2]]


def test_manifests_hold_every_object() -> None:
    kinds = {doc["kind"] for doc in _manifests()}
    assert {
        "Deployment",
        "Service",
        "HorizontalPodAutoscaler",
        "Secret",
        "StatefulSet",
        "Ingress",
        "NetworkPolicy",
    } <= kinds


def test_deployment_serves_the_port_the_probes_and_service_use() -> None:
    deployment = _one("Deployment", "cardproof")
    container = _container(deployment)
    args = _serve_args(container["command"])
    assert args.host == "0.0.0.0"
    assert _serve_args(_dockerfile_cmd()).port == args.port  # the image agrees
    assert [p["containerPort"] for p in container["ports"]] == [args.port]

    probes = {
        "readinessProbe": "/readyz",
        "livenessProbe": "/healthz",
    }
    for probe, path in probes.items():
        get = container[probe]["httpGet"]
        assert get["path"] == path
        assert _port_number(container, get["port"]) == args.port
    if "startupProbe" in container:
        assert container["startupProbe"]["httpGet"]["path"] == "/healthz"

    service = _one("Service", "cardproof")
    labels = deployment["spec"]["template"]["metadata"]["labels"]
    assert service["spec"]["selector"].items() <= labels.items()
    assert deployment["spec"]["selector"]["matchLabels"].items() <= labels.items()
    targets = [_port_number(container, p["targetPort"]) for p in service["spec"]["ports"]]
    assert targets == [args.port]


def test_deployment_is_scraped_on_the_metrics_route() -> None:
    from cardproof.cli.serve import openapi_document

    deployment = _one("Deployment", "cardproof")
    annotations = deployment["spec"]["template"]["metadata"]["annotations"]
    args = _serve_args(_container(deployment)["command"])
    assert annotations["prometheus.io/scrape"] == "true"
    assert int(annotations["prometheus.io/port"]) == args.port
    paths: dict[str, Any] = openapi_document()["paths"]  # type: ignore[assignment]
    assert "get" in paths[annotations["prometheus.io/path"]]


def test_deployment_sets_resources_and_runs_unprivileged() -> None:
    deployment = _one("Deployment", "cardproof")
    container = _container(deployment)
    resources = container["resources"]
    for what in ("cpu", "memory"):
        assert _quantity(resources["requests"][what]) <= _quantity(resources["limits"][what])
    assert deployment["spec"]["template"]["spec"]["securityContext"]["runAsNonRoot"] is True
    assert container["securityContext"]["allowPrivilegeEscalation"] is False


def test_deployment_env_is_what_the_service_reads() -> None:
    deployment = _one("Deployment", "cardproof")
    container = _container(deployment)
    env = {item["name"]: item for item in container["env"]}
    assert set(env) <= ENV_NAMES, set(env) - ENV_NAMES
    assert env["CARDPROOF_ENV"]["value"] == "production"

    # --workers above 1 needs REDIS_URL, and it names the Redis the manifests run
    args = _serve_args(container["command"])
    assert args.workers == 1 or env["REDIS_URL"]["value"]
    redis_url = urlsplit(env["REDIS_URL"]["value"])
    assert redis_url.scheme == "redis"
    statefulset = _one("StatefulSet", "redis")
    headless = _one("Service", statefulset["spec"]["serviceName"])
    assert headless["spec"]["clusterIP"] == "None"
    assert redis_url.hostname in {
        headless["metadata"]["name"],
        f"{statefulset['metadata']['name']}-0.{headless['metadata']['name']}",
    }
    assert redis_url.port in [p["port"] for p in headless["spec"]["ports"]]

    # the keys come from the Secret, and the Secret holds exactly the keys referenced
    secret = _one("Secret")
    refs = {
        item["valueFrom"]["secretKeyRef"]["key"]
        for item in env.values()
        if "secretKeyRef" in item.get("valueFrom", {})
    }
    assert all(
        item["valueFrom"]["secretKeyRef"]["name"] == secret["metadata"]["name"]
        for item in env.values()
        if "secretKeyRef" in item.get("valueFrom", {})
    )
    assert {"CARDPROOF_MASTER_KEY", "CARDPROOF_SIGNING_KEY"} <= refs
    assert set(secret.get("stringData") or secret.get("data") or {}) == refs
    assert refs <= ENV_NAMES


def test_secret_placeholders_are_not_usable_keys() -> None:
    # applied unedited, the service must refuse to start rather than run on known keys
    secret = _one("Secret")
    with pytest.raises(cardproof_service.plumbing.keys.KeyConfigError):
        cardproof_service.plumbing.keys.load_keys(
            {**secret["stringData"], "CARDPROOF_ENV": "production"}
        )


def test_hpa_scales_the_deployment() -> None:
    hpa = _one("HorizontalPodAutoscaler")
    deployment = _one("Deployment", "cardproof")
    target = hpa["spec"]["scaleTargetRef"]
    assert (target["kind"], target["name"]) == ("Deployment", deployment["metadata"]["name"])
    assert 1 <= hpa["spec"]["minReplicas"] <= hpa["spec"]["maxReplicas"]
    assert hpa["spec"]["metrics"]


def test_redis_statefulset_persists_with_aof() -> None:
    statefulset = _one("StatefulSet", "redis")
    container = _container(statefulset)
    command = container["command"] + container.get("args", [])
    assert command[0] == "redis-server"
    assert command[command.index("--appendonly") + 1] == "yes"
    assert command[command.index("--appendfsync") + 1] == "always"
    claims = {t["metadata"]["name"] for t in statefulset["spec"]["volumeClaimTemplates"]}
    assert claims
    mounts = {m["name"]: m["mountPath"] for m in container["volumeMounts"]}
    assert mounts.keys() & claims
    if "--dir" in command:
        assert command[command.index("--dir") + 1] in mounts.values()
    labels = statefulset["spec"]["template"]["metadata"]["labels"]
    assert statefulset["spec"]["selector"]["matchLabels"].items() <= labels.items()
    assert _one("Service", "redis")["spec"]["selector"].items() <= labels.items()


# --- the edge: ingress-nginx in front of the Service ------------------------------------

NGINX = "nginx.ingress.kubernetes.io/"
EDGE_VALUES = DEPLOY / "ingress-nginx" / "values.yaml"
NGINX_BURST = 5
"""ingress-nginx's burst multiplier when an Ingress names none."""


def _controller() -> Doc:
    """The ingress-nginx chart's ``controller`` values."""
    values = yaml.safe_load(EDGE_VALUES.read_text())
    assert isinstance(values, dict)
    controller: Doc = values["controller"]
    return controller


def _edge() -> tuple[dict[str, str], dict[str, str]]:
    """The Ingress's ingress-nginx annotations (prefix dropped) and the controller's ConfigMap."""
    metadata = _one("Ingress", "cardproof")["metadata"]
    annotations = {
        key.removeprefix(NGINX): value
        for key, value in metadata["annotations"].items()
        if key.startswith(NGINX)
    }
    config: dict[str, str] = _controller()["config"]
    # annotations and ConfigMap data are strings: an unquoted 256 fails to apply
    for key, value in {**annotations, **config}.items():
        assert isinstance(value, str), f"{key}: {value!r} is not a string"
    return annotations, config


def _deployment_env() -> dict[str, str]:
    container = _container(_one("Deployment", "cardproof"))
    return {item["name"]: item["value"] for item in container["env"] if "value" in item}


def _fronted() -> list[Settings]:
    """What the edge must hold clients to: the service's defaults, and the Deployment's values.

    A default changed without the edge fails the tests below, and so does a value the
    Deployment sets.
    """
    return [Settings(door=DoorSettings()), Settings.from_env(_deployment_env())]


_SIZE_UNITS = {"": 1, "k": 2**10, "m": 2**20, "g": 2**30}


def _nginx_size(text: str) -> int:
    """An nginx size (``512k``, ``8k``, ``1m``, ``100``) in bytes."""
    match = re.fullmatch(r"(\d+)([kmg]?)", text.strip().lower())
    assert match, f"not an nginx size: {text!r}"
    return int(match[1]) * _SIZE_UNITS[match[2]]


def _seconds(text: str) -> int:
    """ingress-nginx's timeouts: whole seconds, no unit."""
    assert re.fullmatch(r"\d+", text), f"not a number of seconds: {text!r}"
    return int(text)


def test_the_ingress_routes_every_route_to_the_service_port() -> None:
    from cardproof.cli.serve import openapi_document

    ingress = _one("Ingress", "cardproof")
    service = _one("Service", "cardproof")
    assert ingress["spec"]["ingressClassName"] == _controller()["ingressClassResource"]["name"]

    # the host players reach is the public URL's (the receipts' issuer), over TLS
    public = urlsplit(_deployment_env()["CARDPROOF_PUBLIC_URL"])
    assert public.scheme == "https"
    (rule,) = ingress["spec"]["rules"]
    assert rule["host"] == public.hostname
    assert any(
        public.hostname in tls["hosts"] and tls["secretName"] for tls in ingress["spec"]["tls"]
    )

    prefixes = []
    for path in rule["http"]["paths"]:
        assert path["pathType"] == "Prefix"
        prefixes.append(path["path"])
        backend = path["backend"]["service"]
        assert backend["name"] == service["metadata"]["name"]
        port = backend["port"]
        ports = [
            p
            for p in service["spec"]["ports"]
            if port in ({"name": p.get("name")}, {"number": p["port"]})
        ]
        assert len(ports) == 1, f"the Service has no port {port}"
    # every route of the API, the lockstep calls' event streams among them, is routed
    paths = openapi_document()["paths"]
    assert isinstance(paths, dict)
    routes = list(paths)
    assert any(route.endswith("/rounds/{round_number}/calls") for route in routes)
    for route in [*routes, "/", "/play", "/static/app.js"]:
        assert any(route.startswith(prefix) for prefix in prefixes), route


def test_the_edge_caps_heads_and_bodies_as_the_service_does() -> None:
    annotations, config = _edge()
    count, size = config["large-client-header-buffers"].split()
    buffer = _nginx_size(size)
    for settings in _fronted():
        door = settings.door
        # 413 at the same size, before the body is read
        assert _nginx_size(annotations["proxy-body-size"]) == settings.max_body_bytes
        # the request line (method and version too) must fit one buffer: 414 past it
        assert buffer == door.max_request_line
        # the whole head must fit them all, each header line one
        assert int(count) * buffer == door.max_header_bytes
        assert _nginx_size(config["client-header-buffer-size"]) <= buffer
        assert int(config["http2-max-concurrent-streams"]) == door.h2_max_streams


def test_the_edge_times_out_as_the_service_does() -> None:
    annotations, config = _edge()
    snippet = re.fullmatch(r"send_timeout (\d+)s;", config["http-snippet"].strip())
    assert snippet, "send_timeout must be the http-snippet's one directive"
    for settings in _fronted():
        door = settings.door
        assert _seconds(config["client-header-timeout"]) == door.header_timeout
        assert _seconds(config["client-body-timeout"]) == door.body_timeout
        assert _seconds(config["keep-alive"]) == door.keepalive_timeout
        assert int(snippet[1]) == door.send_timeout
        # nginx drops its idle connections to the service before the service does (a
        # request sent on one the service is closing would be a 502)
        assert 0 < _seconds(config["upstream-keepalive-timeout"]) < door.keepalive_timeout
    # a body is read whole at the edge (client-body-timeout bounds a slow one), so a slow
    # client holds nginx, not the service
    assert annotations["proxy-request-buffering"] == "on"


def test_the_edge_holds_each_client_to_the_services_caps() -> None:
    annotations, config = _edge()
    assert "limit-rpm" not in annotations  # one bucket, the one reckoned here
    rps = int(annotations["limit-rps"])
    burst = rps * int(annotations.get("limit-burst-multiplier", NGINX_BURST))
    for settings in _fronted():
        assert int(annotations["limit-connections"]) == settings.door.connections_per_address
        # nginx's bucket (burst=N nodelay) takes burst + 1 at once, then rps a second: in
        # any window, never more than the service's limit, nor much less (a limit raised
        # without the edge would leave the edge refusing what the service allows)
        most = burst + 1 + rps * settings.rate_window
        assert 0.9 * settings.rate_limit <= most <= settings.rate_limit, most
    # refused as the service refuses: 429
    assert config["limit-req-status-code"] == config["limit-conn-status-code"] == "429"


def test_event_streams_pass_the_edge_unbuffered_and_uncut() -> None:
    annotations, _ = _edge()
    assert annotations["proxy-buffering"] == "off"  # each call reaches the player as it comes
    read = _seconds(annotations["proxy-read-timeout"])
    for settings in _fronted():
        assert read > KEEPALIVE  # an idle event stream's comment comes sooner
        assert read > MAX_WAIT + settings.store_timeout  # and a long poll's answer


def test_the_service_sees_clients_through_the_edge_and_trusts_only_it() -> None:
    _, config = _edge()
    controller = _controller()
    # nginx sees each client's address (every limit is per address) and sends it alone:
    # a client's own X-Forwarded-For is dropped
    assert controller["service"]["externalTrafficPolicy"] == "Local"
    assert config["use-forwarded-headers"] == "false"
    assert config["compute-full-forwarded-for"] == "false"
    assert config["use-proxy-protocol"] == "false"
    assert controller["allowSnippetAnnotations"] is False

    # the service takes the client from X-Forwarded-For from the pod network only
    trusted = _deployment_env()["FORWARDED_ALLOW_IPS"]
    networks = trusted_networks(trusted)
    assert networks, "FORWARDED_ALLOW_IPS trusts everyone (*) or no address"
    for network in networks:
        assert network.is_private, network
        assert network.prefixlen >= 8, network
    # ... whose connections the door exempts from the per-address cap (the edge caps them)
    door = Connections(DoorSettings(), trusted)
    assert door.exempt(str(next(networks[0].hosts())))
    assert not door.exempt("203.0.113.7")


def _selects(selector: Doc, workload: Doc) -> bool:
    """Whether a label selector picks ``workload``'s pods."""
    labels: dict[str, str] = workload["spec"]["template"]["metadata"]["labels"]
    wanted: dict[str, str] = selector["matchLabels"]
    return wanted.items() <= labels.items()


def test_only_the_edge_and_prometheus_reach_the_service_and_only_it_reaches_redis() -> None:
    """The service trusts X-Forwarded-For from the pod network: no other pod may reach it."""
    deployment, redis_set = _one("Deployment", "cardproof"), _one("StatefulSet", "redis")
    api, store = _one("NetworkPolicy", "cardproof"), _one("NetworkPolicy", "redis")
    assert _selects(api["spec"]["podSelector"], deployment)
    assert not _selects(api["spec"]["podSelector"], redis_set)
    assert api["spec"]["policyTypes"] == ["Ingress"]
    (rule,) = api["spec"]["ingress"]
    assert [_port_number(_container(deployment), p["port"]) for p in rule["ports"]] == [
        _serve_args(_container(deployment)["command"]).port
    ]
    edge, monitoring = rule["from"]
    namespace = "kubernetes.io/metadata.name"
    # the controller of deploy/ingress-nginx/values.yaml, in the namespace it is installed in
    install = (DEPLOY / "ingress-nginx" / "values.yaml").read_text()
    assert f"--namespace {edge['namespaceSelector']['matchLabels'][namespace]} " in install
    assert edge["podSelector"]["matchLabels"] == {"app.kubernetes.io/name": "ingress-nginx"}
    assert set(monitoring) == {"namespaceSelector"}  # Prometheus, scraping /metrics
    assert _selects(store["spec"]["podSelector"], redis_set)
    (rule,) = store["spec"]["ingress"]
    (source,) = rule["from"]
    assert set(source) == {"podSelector"}
    assert _selects(source["podSelector"], deployment)
    assert [_port_number(_container(redis_set), p["port"]) for p in rule["ports"]] == [6379]


def test_the_edge_table_names_every_limit_its_default_and_its_edge_value() -> None:
    table = (DEPLOY / "README.md").read_text().split("\n## The edge\n", 1)[1].split("\n## ", 1)[0]
    door_fields = {f.name for f in fields(DoorSettings)}
    source = inspect.getsource(DoorSettings)
    door_names = {name for name in ENV_NAME.findall(source) if name.startswith("CARDPROOF_")}
    assert {f"CARDPROOF_{name.upper()}" for name in door_fields} == door_names
    others = {"CARDPROOF_MAX_BODY_BYTES", "CARDPROOF_RATE_LIMIT", "CARDPROOF_RATE_WINDOW"}
    rows = [line.split("|")[1:-1] for line in table.splitlines() if line.startswith("| ")]
    named = {name for row in rows for name in ENV_NAME.findall(row[0])}
    assert door_names | others | {"FORWARDED_ALLOW_IPS"} <= named, (door_names | others) - named

    # the defaults the table gives are the service's
    defaults = Settings(door=DoorSettings())
    checked = 0
    for row in rows:
        names = ENV_NAME.findall(row[0])
        numbers = re.findall(r"`(\d+)`", row[1])
        for name, number in zip(names, numbers, strict=False):
            field = name.removeprefix("CARDPROOF_").lower()
            owner = defaults.door if field in door_fields else defaults
            assert float(number) == getattr(owner, field), name
            checked += 1
    assert checked >= len(door_names | others) - 1  # all but the file descriptors' default

    # ... and every edge key it names, with the value the manifests give it
    annotations, config = _edge()
    for key, value in {**annotations, **config}.items():
        assert f'`{key}: "{value}"`' in table, key
    assert f"`externalTrafficPolicy: {_controller()['service']['externalTrafficPolicy']}`" in table


# --- the README ------------------------------------------------------------------------


def test_deploy_readme_names_every_file() -> None:
    readme = (DEPLOY / "README.md").read_text()
    files = [p for p in DEPLOY.rglob("*") if p.is_file() and p.name not in {"README.md", ".env"}]
    for path in files:
        assert str(path.relative_to(DEPLOY)) in readme, path
    for needed in ("cardproof keys generate", "keys organizer create", "Sentinel", "Redis Cluster"):
        assert needed in readme


def test_the_sentinel_set_up_names_settings_the_service_reads() -> None:
    values = yaml.safe_load((DEPLOY / "sentinel" / "redis-values.yaml").read_text())
    assert values["sentinel"]["enabled"] is True
    service = values["sentinel"]["masterSet"]
    patch = yaml.safe_load((DEPLOY / "sentinel" / "deployment-patch.yaml").read_text())
    (container,) = patch["spec"]["template"]["spec"]["containers"]
    env = {item["name"]: item.get("value", "") for item in container["env"]}
    password = "pw"
    url = env["REDIS_URL"].replace("$(REDIS_PASSWORD)", password)
    settings = Settings.from_env({**env, "REDIS_URL": url})
    assert (settings.redis_mode, settings.redis_min_replicas) == ("sentinel", 1)
    hosts, name, db, secret = parse_sentinel_url(url)
    assert (name, db, secret, len(hosts)) == (service, 0, password, 3)
    assert container["name"] == _container(_one("Deployment"))["name"]  # it patches ours


def test_the_cluster_set_up_names_settings_the_service_reads() -> None:
    values = yaml.safe_load((DEPLOY / "cluster" / "redis-values.yaml").read_text())
    assert (values["cluster"]["nodes"], values["cluster"]["replicas"]) == (6, 1)  # 3 masters
    assert values["redis"]["useAOFPersistence"] == "yes"
    assert "maxmemory-policy noeviction" in values["redis"]["configmap"]
    patch = yaml.safe_load((DEPLOY / "cluster" / "deployment-patch.yaml").read_text())
    (container,) = patch["spec"]["template"]["spec"]["containers"]
    env = {item["name"]: item.get("value", "") for item in container["env"]}
    secret = next(item for item in container["env"] if item["name"] == "REDIS_PASSWORD")
    assert secret["valueFrom"]["secretKeyRef"] == {
        "name": values["existingSecret"],
        "key": values["existingSecretPasswordKey"],
    }
    url = env["REDIS_URL"].replace("$(REDIS_PASSWORD)", "pw")
    settings = Settings.from_env({**env, "REDIS_URL": url})
    assert (settings.redis_mode, settings.redis_min_replicas) == ("cluster", 1)
    assert container["name"] == _container(_one("Deployment"))["name"]  # it patches ours


def test_the_image_builds_the_par_kernel_and_the_sdk_stays_pure_python() -> None:
    # the exact par's C kernel is the service's: the image compiles it in the builder
    # stage (gcc there only); the cardproof wheel (the SDK) holds no C at all
    runs = [rest for keyword, rest in _dockerfile() if keyword == "RUN"]
    assert any("gcc" in run for run in runs)
    assert any("./service/par" in run and "pip install" in run for run in runs)
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    packages: list[str] = pyproject["tool"]["hatch"]["build"]["targets"]["wheel"]["packages"]
    assert not [p for p in packages if p.startswith("service/par")]
    assert "cardproof-par" not in json.dumps(pyproject["project"])
    for package in packages:
        assert not list((ROOT / package).rglob("*.c")), package

#!/usr/bin/env bash
# Checks courier's Kubernetes objects as the Helm chart renders them (tests/docker/check_helm.sh
# runs it on `helm template` output; no kubectl or cluster). The objects parse (python3 + PyYAML,
# Debian's python3-yaml), and
#   - the liveness/readiness probes are GET /healthz and /readyz on the port of the
#     ConfigMap's admin.listen, which must listen on all interfaces (0.0.0.0);
#   - terminationGracePeriodSeconds exceeds courier's SIGTERM drain timeout (10 s);
#   - the container args are `run --config P`, P a file of the ConfigMap courier-config's mount;
#   - courier.json in the ConfigMap passes `courier config check` (the binary's own reader,
#     validation and start-up checks; no list of keys kept here) and holds no plaintext secret;
#   - HMAC_SECRET_FILE names a file of a mounted Secret volume; no Secret object is rendered;
#   - the Service courier-metrics selects the pod template's labels on port 9464;
#   - the PodDisruptionBudget courier selects the pod labels and lets one pod go at a time;
#   - with K8S_EXPECT_OPTIONAL=1: the ServiceMonitor scrapes the Service's admin port on
#     /metrics, the PrometheusRule holds RULES_FILE's groups as they are, and the ScaledObject
#     scales the Deployment on courier_scalable_lag of a route of the config, one pod a minute
#     at most each way, scale-down stabilised 5 minutes; without it, none of the three.
# Usage: K8S_FILE=<rendered manifests> check_k8s.sh <repository root> <courier binary>
set -uo pipefail

root=${1:?usage: K8S_FILE=<rendered> check_k8s.sh <repository root> <courier binary>}
courier_bin=${2:?usage: K8S_FILE=<rendered> check_k8s.sh <repository root> <courier binary>}
file=${K8S_FILE:?K8S_FILE must name the rendered manifests (helm template output)}
fail() { echo "check_k8s: FAIL: $*" >&2; exit 1; }

[[ -x $courier_bin ]] || fail "$courier_bin is not an executable"
[[ -f $file ]] || fail "$file does not exist"
command -v python3 >/dev/null 2>&1 || fail "python3 is missing (scripts/install-deps.sh installs python3-yaml)"
python3 -c 'import yaml' 2>/dev/null ||
  fail "PyYAML is missing: install Debian's python3-yaml (scripts/install-deps.sh lists it)"

exec python3 - "$file" "$courier_bin" "${K8S_EXPECT_OPTIONAL:-0}" "${RULES_FILE:-}" <<'PY'
import json, os, re, subprocess, sys, tempfile
import yaml

DRAIN_TIMEOUT_S = 10  # docs/operations.md, "Stopping": SIGTERM drains in-flight deliveries for up to 10 s
ADMIN_PORT = 9464

rendered, courier_bin, expect_optional, rules_file = sys.argv[1], sys.argv[2], sys.argv[3] == "1", sys.argv[4]
errors = []
def err(msg): errors.append(msg)
def die():
    for e in errors:
        print("check_k8s: FAIL: " + e, file=sys.stderr)
    sys.exit(1)

objs = []  # (source template, object)
try:
    with open(rendered) as fh:
        text = fh.read()
    docs = list(yaml.safe_load_all(text))
except yaml.YAMLError as e:
    err(f"{rendered} is not valid YAML: {e}"); die()
for o in docs:
    if o is None:
        continue
    if not isinstance(o, dict) or "kind" not in o or "apiVersion" not in o:
        err(f"{rendered}: a document without apiVersion/kind"); continue
    objs.append((f"{o['kind']} {o.get('metadata', {}).get('name')}", o))
if not objs:
    err(f"no objects in {rendered}")
if errors: die()

def find(kind, name):
    hits = [(f, o) for f, o in objs if o["kind"] == kind and o.get("metadata", {}).get("name") == name]
    if len(hits) != 1:
        err(f"expected exactly one {kind} '{name}', found {len(hits)}")
        return None, None
    return hits[0]

_, cm = find("ConfigMap", "courier-config")
_, dep = find("Deployment", "courier")
_, svc = find("Service", "courier-metrics")
if errors: die()

# --- the config in the ConfigMap -------------------------------------------------------------
cm_data = cm.get("data") or {}
if "courier.json" not in cm_data:
    err("ConfigMap courier-config has no data key courier.json"); die()
try:
    cfg = json.loads(cm_data["courier.json"])
except json.JSONDecodeError as e:
    err(f"ConfigMap courier-config: courier.json is not valid JSON: {e}"); die()

# The config as courier itself reads it: `courier config check` (the reader's keys, the
# validation, the start-up checks), with a placeholder for the secret the Secret volume holds.
with tempfile.TemporaryDirectory() as tmp:
    cfg_path = os.path.join(tmp, "courier.json")
    with open(cfg_path, "w") as fh:
        fh.write(cm_data["courier.json"])
    check = subprocess.run([courier_bin, "config", "check", "--config", cfg_path],
                           env={"PATH": os.environ.get("PATH", ""), "HMAC_SECRET": "placeholder"},
                           capture_output=True, text=True, timeout=30)
    if check.returncode != 0:
        err(f"ConfigMap courier-config: `courier config check` exits {check.returncode}: "
            f"{(check.stderr or check.stdout).strip()}")
if not isinstance(cfg, dict):
    err("courier.json is not a JSON object"); die()
routes = cfg.get("routes") if isinstance(cfg.get("routes"), list) else []
for i, r in enumerate(routes):
    w = f"routes[{i}]."
    if not isinstance(r, dict):
        continue
    if "hmac_secret" in r:
        err(f"courier.json: {w}hmac_secret is a plaintext secret; use HMAC_SECRET_FILE from a Secret")
    if isinstance(r.get("signing"), dict) and "secrets" in r["signing"]:
        err(f"courier.json: {w}signing.secrets is a plaintext secret; use STANDARD_WEBHOOKS_SECRETS_FILE")
admin = cfg.get("admin")
listen = admin.get("listen") if isinstance(admin, dict) else None
m = re.match(r"^(\[[0-9a-fA-F:.]+\]|[^:\[\]]+):(\d+)$", listen or "")
if not m:
    err(f"courier.json: admin.listen must be HOST:PORT for the probes (the default 127.0.0.1:9464 "
        f"is unreachable from the kubelet), got {listen!r}"); die()
listen_host, listen_port = m.group(1), int(m.group(2))
if listen_host not in ("0.0.0.0", "[::]"):
    err(f"courier.json: admin.listen host is {listen_host}; the probes and Prometheus need 0.0.0.0")
if listen_port != ADMIN_PORT:
    err(f"courier.json: admin.listen port is {listen_port}, expected {ADMIN_PORT} (the Service and README)")

# --- the Deployment --------------------------------------------------------------------------
spec = dep.get("spec") or {}
tmpl = spec.get("template") or {}
pod = tmpl.get("spec") or {}
pod_labels = (tmpl.get("metadata") or {}).get("labels") or {}
sel = (spec.get("selector") or {}).get("matchLabels") or {}
if not sel or any(pod_labels.get(k) != v for k, v in sel.items()):
    err(f"Deployment courier: selector.matchLabels {sel} does not match the pod template labels {pod_labels}")
grace = pod.get("terminationGracePeriodSeconds")
if not isinstance(grace, int) or grace <= DRAIN_TIMEOUT_S:
    err(f"Deployment courier: terminationGracePeriodSeconds is {grace!r}; it must exceed the "
        f"{DRAIN_TIMEOUT_S} s drain timeout, or the SIGKILL comes before the commit")
conts = [c for c in pod.get("containers") or [] if c.get("name") == "courier"]
if len(conts) != 1:
    err("Deployment courier: expected one container named courier"); die()
c = conts[0]
if c.get("image") != "courier:latest":
    err(f"Deployment courier: image is {c.get('image')!r}, expected courier:latest (docker/Dockerfile)")
ports = {p.get("name"): p.get("containerPort") for p in c.get("ports") or []}
def resolve(port):
    return ports.get(port) if isinstance(port, str) else port
for probe, path in (("livenessProbe", "/healthz"), ("readinessProbe", "/readyz")):
    hg = (c.get(probe) or {}).get("httpGet")
    if not hg:
        err(f"Deployment courier: {probe} must be an httpGet on {path}"); continue
    if hg.get("path") != path:
        err(f"Deployment courier: {probe} path is {hg.get('path')!r}, expected {path}")
    p = resolve(hg.get("port"))
    if p != listen_port:
        err(f"Deployment courier: {probe} port is {hg.get('port')!r} (= {p!r}) but admin.listen in "
            f"the ConfigMap listens on {listen_port}")
if listen_port not in ports.values():
    err(f"Deployment courier: no containerPort {listen_port} (admin.listen)")

# args: run --config P, P in the mount of courier-config
args = c.get("args") or []
mounts = {vm.get("name"): vm.get("mountPath") for vm in c.get("volumeMounts") or []}
vols = {v.get("name"): v for v in pod.get("volumes") or []}
cfg_vols = [n for n, v in vols.items() if (v.get("configMap") or {}).get("name") == "courier-config"]
if args[:2] != ["run", "--config"] or len(args) < 3:
    err(f"Deployment courier: args must be run --config <file>, got {args}")
elif not cfg_vols or cfg_vols[0] not in mounts:
    err("Deployment courier: the ConfigMap courier-config is not mounted into the container")
else:
    v = vols[cfg_vols[0]]["configMap"]
    mp = mounts[cfg_vols[0]].rstrip("/")
    files_in = {it["path"]: it["key"] for it in v.get("items") or []} or {k: k for k in cm_data}
    cpath = args[2]
    if os.path.dirname(cpath) != mp or files_in.get(os.path.basename(cpath)) != "courier.json":
        err(f"Deployment courier: --config {cpath} is not courier.json in the ConfigMap's mount "
            f"path {mp} (files there: {sorted(files_in)})")

# HMAC_SECRET_FILE -> a mounted Secret volume's file
env = {e.get("name"): e for e in c.get("env") or []}
for name in ("HMAC_SECRET", "STANDARD_WEBHOOKS_SECRETS"):
    if "value" in env.get(name, {}):
        err(f"Deployment courier: env {name} has a plaintext value; use {name}_FILE from a Secret")
hf = env.get("HMAC_SECRET_FILE", {}).get("value")
if not hf and "HMAC_SECRET" not in env:
    err("Deployment courier: neither HMAC_SECRET_FILE nor HMAC_SECRET (secretKeyRef) is set; "
        "courier run requires the secret")
if hf:
    ok = False
    for n, v in vols.items():
        s = v.get("secret")
        if not s or n not in mounts:
            continue
        mp = mounts[n].rstrip("/")
        names_in = [it["path"] for it in s.get("items") or []]
        if os.path.dirname(hf) == mp and (not names_in or os.path.basename(hf) in names_in):
            ok = True
    if not ok:
        err(f"Deployment courier: HMAC_SECRET_FILE {hf} is not a file of a mounted Secret volume")

sc = c.get("securityContext") or {}
psc = pod.get("securityContext") or {}
if sc.get("readOnlyRootFilesystem") is not True:
    err("Deployment courier: the container must set securityContext.readOnlyRootFilesystem: true")
if not (sc.get("runAsNonRoot") or psc.get("runAsNonRoot")):
    err("Deployment courier: securityContext.runAsNonRoot must be true")
res = c.get("resources") or {}
if not (res.get("requests") and res.get("limits")):
    err("Deployment courier: resources.requests and resources.limits must both be set")

# --- the Service -----------------------------------------------------------------------------
sspec = svc.get("spec") or {}
ssel = sspec.get("selector") or {}
if not ssel or any(pod_labels.get(k) != v for k, v in ssel.items()):
    err(f"Service courier-metrics: selector {ssel} does not select the Deployment's pod labels {pod_labels}")
if sspec.get("type", "ClusterIP") != "ClusterIP":
    err(f"Service courier-metrics: type {sspec.get('type')}; the admin endpoints have no auth, keep it ClusterIP")
sp = [p for p in sspec.get("ports") or [] if p.get("port") == ADMIN_PORT]
if not sp:
    err(f"Service courier-metrics: no port {ADMIN_PORT}")
elif resolve(sp[0].get("targetPort", sp[0].get("port"))) != listen_port:
    err(f"Service courier-metrics: targetPort {sp[0].get('targetPort')!r} is not the admin port {listen_port}")
ann = (svc.get("metadata") or {}).get("annotations") or {}
if ann.get("prometheus.io/scrape") != "true" or str(ann.get("prometheus.io/port")) != str(ADMIN_PORT):
    err(f"Service courier-metrics: needs annotations prometheus.io/scrape \"true\" and prometheus.io/port \"{ADMIN_PORT}\"")

# --- no plaintext secret ---------------------------------------------------------------------
SECRETISH = re.compile(r"(secret|password|passwd|token|api[_-]?key|private[_-]?key)", re.I)
def walk(x, path, f):
    if isinstance(x, dict):
        for k, v in x.items():
            p = f"{path}.{k}" if path else str(k)
            if isinstance(v, str) and SECRETISH.search(str(k)) and not str(k).lower().endswith(("_file", "name", "ref")) \
               and not v.startswith("/") and p.split(".")[-2:-1] != ["items"]:
                err(f"{f}: {p} looks like a plaintext secret")
            walk(v, p, f)
    elif isinstance(x, list):
        for i, v in enumerate(x):
            walk(v, f"{path}[{i}]", f)
    elif isinstance(x, str) and re.search(r"whsec_[A-Za-z0-9+/=]{8,}", x):
        err(f"{f}: {path} holds a whsec_ secret")
for f, o in objs:
    if o["kind"] == "Secret":
        err(f"{f}: the chart renders a Secret; secrets are created with kubectl, never from values")
        continue
    if o["kind"] == "ConfigMap":
        for k, v in (o.get("data") or {}).items():
            try:
                walk(json.loads(v), f"data[{k}]", f)
            except (json.JSONDecodeError, TypeError):
                pass
    walk(o, "", f)

# --- the PodDisruptionBudget ----------------------------------------------------------------
_, pdb = find("PodDisruptionBudget", "courier")
if pdb is not None:
    psel = ((pdb.get("spec") or {}).get("selector") or {}).get("matchLabels") or {}
    if not psel or any(pod_labels.get(k) != v for k, v in psel.items()):
        err(f"PodDisruptionBudget courier: selector {psel} does not select the pod labels {pod_labels}")
    if (pdb.get("spec") or {}).get("maxUnavailable") != 1:
        err("PodDisruptionBudget courier: maxUnavailable must be 1 (each pod that leaves is a rebalance)")

# --- the optional objects: ServiceMonitor, PrometheusRule, KEDA ScaledObject ----------------
optional = {k: [o for _, o in objs if o["kind"] == k] for k in ("ServiceMonitor", "PrometheusRule", "ScaledObject")}
if not expect_optional:
    for k, found in optional.items():
        if found:
            err(f"a {k} is rendered with the chart's defaults; it must be off unless enabled")
else:
    for k, found in optional.items():
        if len(found) != 1:
            err(f"expected exactly one {k} with every optional object on, found {len(found)}")
    if errors: die()
    sm = optional["ServiceMonitor"][0]
    smsel = ((sm.get("spec") or {}).get("selector") or {}).get("matchLabels") or {}
    svc_labels = (svc.get("metadata") or {}).get("labels") or {}
    if not smsel or any(svc_labels.get(k) != v for k, v in smsel.items()):
        err(f"ServiceMonitor: selector {smsel} does not select the Service courier-metrics' labels {svc_labels}")
    port_names = {p.get("name") for p in sspec.get("ports") or []}
    for e in (sm.get("spec") or {}).get("endpoints") or []:
        if e.get("port") not in port_names or e.get("path") != "/metrics":
            err(f"ServiceMonitor: endpoint {e} must scrape a port of the Service ({sorted(port_names)}) on /metrics")
    pr = optional["PrometheusRule"][0]
    if rules_file:
        with open(rules_file) as fh:
            want = yaml.safe_load(fh)
        if (pr.get("spec") or {}) != want:
            err(f"PrometheusRule: spec is not {rules_file} as it is (the file the promtool tests check)")
    so = optional["ScaledObject"][0]
    spec = so.get("spec") or {}
    if not str(so.get("apiVersion", "")).startswith("keda.sh/"):
        err("ScaledObject: not a keda.sh ScaledObject")
    if (spec.get("scaleTargetRef") or {}).get("name") != dep["metadata"]["name"]:
        err("ScaledObject: scaleTargetRef.name must be the Deployment courier")
    lo, hi = spec.get("minReplicaCount", 0), spec.get("maxReplicaCount")
    if not isinstance(hi, int) or lo < 1 or hi < lo:
        err(f"ScaledObject: replicas {lo}..{hi}: at least one pod, max set (the partitions)")
    triggers = spec.get("triggers") or []
    names = {r.get("name") for r in routes}
    queries = [str((t.get("metadata") or {}).get("query", "")) for t in triggers if t.get("type") == "prometheus"]
    if not queries or not all("courier_scalable_lag" in q for q in queries):
        err("ScaledObject: its prometheus trigger must scale on courier_scalable_lag")
    for q in queries:
        for name in re.findall(r'route="([^"]+)"', q):
            if name not in names:
                err(f"ScaledObject: the query names route {name!r}, not one of the config's {sorted(names)}")
    behavior = ((spec.get("advanced") or {}).get("horizontalPodAutoscalerConfig") or {}).get("behavior") or {}
    for way in ("scaleUp", "scaleDown"):
        b = behavior.get(way) or {}
        pols = b.get("policies") or []
        if not pols or any(p.get("type") != "Pods" or p.get("value") != 1 or p.get("periodSeconds", 0) < 60 for p in pols):
            err(f"ScaledObject: {way} must move one pod per 60 s at most")
    if ((behavior.get("scaleDown") or {}).get("stabilizationWindowSeconds") or 0) < 300:
        err("ScaledObject: scaleDown.stabilizationWindowSeconds must be at least 300")
    if "replicas" in (dep.get("spec") or {}):
        err("Deployment courier: sets replicas while KEDA scales it (each apply would undo KEDA's count)")

if errors: die()
print(f"check_k8s: OK: {len(objs)} objects of {rendered}; probes on {listen_port} "
      f"= admin.listen, grace {grace} s > drain {DRAIN_TIMEOUT_S} s, config {args[2]}, "
      f"{len(routes)} route(s)")
PY

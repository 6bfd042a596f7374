#!/usr/bin/env bash
# Checks the Helm chart docker/helm/courier (ctest docker.helm_chart), without a cluster:
#   - `helm lint --strict` passes;
#   - `helm template` renders it with its defaults and with every optional object on
#     (ServiceMonitor, PrometheusRule, KEDA ScaledObject); both renders are valid against the
#     Kubernetes API types, the Prometheus Operator's and KEDA's (kube_schemas: strict decoding,
#     unknown fields and wrong types fail) and pass check_k8s.sh (the probes on admin.listen's
#     port, the grace period beyond the drain, the config through `courier config check`, no
#     plaintext secret, the PodDisruptionBudget, the ScaledObject's query and pace);
#   - the PrometheusRule holds exactly docker/prometheus/alerts.yml's groups;
#   - a config whose admin.listen the probes cannot reach, and an autoscaling route the config
#     does not have, fail the render with a message naming them.
# Usage: check_helm.sh <repository root> <courier binary> <dir with helm and kube_schemas>
set -euo pipefail
root=${1:?usage: check_helm.sh <root> <courier binary> <tools dir>}
courier_bin=${2:?usage: check_helm.sh <root> <courier binary> <tools dir>}
tools=${3:?usage: check_helm.sh <root> <courier binary> <tools dir>}
chart=$root/docker/helm/courier
helm=$tools/helm
fail() { echo "check_helm: FAIL: $*" >&2; exit 1; }
[[ -x $helm && -x $tools/kube_schemas ]] || fail "no helm or kube_schemas in $tools (ctest docker.helm_tools builds them)"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export HELM_CACHE_HOME=$work/cache HELM_CONFIG_HOME=$work/config HELM_DATA_HOME=$work/data

# helm logs an INFO line for files/alerts.yml, a link to docker/prometheus/alerts.yml.
quiet() { grep -v 'found symbolic link in path' || true; }

"$helm" lint --strict "$chart" >"$work/lint.log" 2>&1 || { quiet <"$work/lint.log"; fail "helm lint --strict"; }
quiet <"$work/lint.log"

optional=(--set autoscaling.enabled=true --set serviceMonitor.enabled=true --set prometheusRule.enabled=true)
"$helm" template courier "$chart" >"$work/default.yaml" 2> >(quiet >&2) || fail "helm template (defaults)"
"$helm" template courier "$chart" "${optional[@]}" >"$work/optional.yaml" 2> >(quiet >&2) ||
  fail "helm template (optional objects on)"

"$tools/kube_schemas" "$work/default.yaml" "$work/optional.yaml" || fail "kube_schemas"

K8S_FILE=$work/default.yaml bash "$root/tests/docker/check_k8s.sh" "$root" "$courier_bin" ||
  fail "check_k8s on the default render"
K8S_FILE=$work/optional.yaml K8S_EXPECT_OPTIONAL=1 RULES_FILE=$root/docker/prometheus/alerts.yml \
  bash "$root/tests/docker/check_k8s.sh" "$root" "$courier_bin" || fail "check_k8s on the render with every optional object"

expect_refused() {  # expect_refused MESSAGE_PART ARGS...: the render fails naming MESSAGE_PART
  local part=$1 out
  shift
  if out=$("$helm" template courier "$chart" "$@" 2>&1); then
    fail "helm template $* rendered; expected a refusal naming '$part'"
  fi
  grep -qF -- "$part" <<<"$out" || fail "helm template $* failed without naming '$part': $out"
  echo "check_helm: refused as it should be: $* ($part)"
}
expect_refused 'config.admin.listen is "127.0.0.1:9464"' --set config.admin.listen=127.0.0.1:9464
expect_refused 'autoscaling.route "returns" is not a route' --set autoscaling.enabled=true --set autoscaling.route=returns
echo "check_helm: OK"

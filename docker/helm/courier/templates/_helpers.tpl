{{/* The objects' name: the release's (a release "courier" gives Deployment courier). */}}
{{- define "courier.fullname" -}}
{{- .Release.Name | trunc 53 | trimSuffix "-" -}}
{{- end -}}

{{- define "courier.selectorLabels" -}}
app.kubernetes.io/name: courier
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "courier.labels" -}}
{{ include "courier.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{/* The config's admin.listen must be 0.0.0.0:<adminPort>: the probes and the scrape reach the
pod on that port, on the pod's address. */}}
{{- define "courier.checkedConfig" -}}
{{- $want := printf "0.0.0.0:%v" .Values.adminPort -}}
{{- $admin := .Values.config.admin | default dict -}}
{{- if ne (toString $admin.listen) $want -}}
{{- fail (printf "config.admin.listen is %q: it must be %q (adminPort), so the probes and Prometheus reach it" (toString $admin.listen) $want) -}}
{{- end -}}
{{- if not .Values.config.routes -}}
{{- fail "config.routes is empty: courier needs at least one route" -}}
{{- end -}}
{{- toPrettyJson .Values.config -}}
{{- end -}}

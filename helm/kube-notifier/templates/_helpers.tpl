{{/*
Names, labels and the derived settings every template shares.
Selectors use only app.kubernetes.io/name and app.kubernetes.io/instance: they
never change over the release's life (a Deployment's selector is immutable).
*/}}

{{/* The chart name, a valid label value. */}}
{{- define "kube-notifier.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The prefix of every resource name: RELEASE-kube-notifier, or RELEASE if it contains the chart name. */}}
{{- define "kube-notifier.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{/*
Cluster-scoped objects (ClusterRole, ClusterRoleBinding) carry the namespace in
their name: two releases of the same name in two namespaces must not collide.
*/}}
{{- define "kube-notifier.clusterName" -}}
{{- printf "%s-%s" (include "kube-notifier.fullname" .) (include "kube-notifier.namespace" .) | trunc 253 | trimSuffix "-" }}
{{- end }}

{{- define "kube-notifier.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The labels that select this release's pods. */}}
{{- define "kube-notifier.selectorLabels" -}}
app.kubernetes.io/name: {{ include "kube-notifier.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/* Labels of every object. */}}
{{- define "kube-notifier.labels" -}}
helm.sh/chart: {{ include "kube-notifier.chart" . }}
{{ include "kube-notifier.selectorLabels" . }}
app.kubernetes.io/version: {{ include "kube-notifier.imageTag" . | trunc 63 | trimSuffix "-" | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: kube-notifier
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/*
Labels of the pod template: no helm.sh/chart, so that a new chart version alone
does not restart the pods; the version label follows the image, which does.
*/}}
{{- define "kube-notifier.podLabels" -}}
{{ include "kube-notifier.selectorLabels" . }}
app.kubernetes.io/version: {{ include "kube-notifier.imageTag" . | trunc 63 | trimSuffix "-" | quote }}
app.kubernetes.io/part-of: kube-notifier
{{- with .Values.podLabels }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{- define "kube-notifier.imageTag" -}}
{{- default .Chart.AppVersion .Values.image.tag }}
{{- end }}

{{/* [registry/]repository, the registry from global.imageRegistry or image.registry. */}}
{{- define "kube-notifier.imageName" -}}
{{- $registry := (.Values.global).imageRegistry | default .Values.image.registry }}
{{- if $registry }}
{{- printf "%s/%s" (trimSuffix "/" $registry) .Values.image.repository }}
{{- else }}
{{- .Values.image.repository }}
{{- end }}
{{- end }}

{{- define "kube-notifier.image" -}}
{{- if .Values.image.digest }}
{{- printf "%s@%s" (include "kube-notifier.imageName" .) .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" (include "kube-notifier.imageName" .) (include "kube-notifier.imageTag" .) }}
{{- end }}
{{- end }}

{{- define "kube-notifier.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "kube-notifier.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- required "serviceAccount.name is required when serviceAccount.create is false" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* The rules ConfigMap: the chart's, or existingConfigMap. */}}
{{- define "kube-notifier.configMapName" -}}
{{- default (printf "%s-rules" (include "kube-notifier.fullname" .)) .Values.existingConfigMap }}
{{- end }}

{{/* The Secret the pods read, or "" for none. */}}
{{- define "kube-notifier.secretName" -}}
{{- if .Values.secret.existingSecret }}
{{- .Values.secret.existingSecret }}
{{- else if .Values.secret.create }}
{{- include "kube-notifier.fullname" . }}
{{- end }}
{{- end }}

{{/* "true" when leader election is on: more than one replica, or asked for. */}}
{{- define "kube-notifier.leaderElection" -}}
{{- if or (gt (int .Values.replicaCount) 1) .Values.leaderElection.enabled }}true{{ end }}
{{- end }}

{{- define "kube-notifier.leaseName" -}}
{{- default (include "kube-notifier.fullname" .) .Values.leaderElection.leaseName }}
{{- end }}

{{/*
The rules config as a dict (render with `include ... | fromYaml`): configFile
parsed, or `config` with watch.namespaces set from watchNamespaces; either with
the alertmanager.urls sink added. RBAC and the checks below read it; the
ConfigMap holds kube-notifier.configText.
*/}}
{{- define "kube-notifier.config" -}}
{{- $config := dict }}
{{- if .Values.configFile }}
{{- $config = .Values.configFile | fromYaml }}
{{- else }}
{{- $config = deepCopy .Values.config }}
{{- if .Values.watchNamespaces }}
{{- $watch := deepCopy (default dict $config.watch) }}
{{- $_ := set $watch "namespaces" .Values.watchNamespaces }}
{{- $_ := set $config "watch" $watch }}
{{- end }}
{{- end }}
{{- if and .Values.alertmanager.urls (not (hasKey $config "Error")) }}
{{- include "kube-notifier.addAlertmanager" (dict "config" $config "alertmanager" .Values.alertmanager) }}
{{- end }}
{{- toYaml $config }}
{{- end }}

{{/*
config.yaml as stored in the ConfigMap: configFile verbatim (quotes kept), or
`config` as YAML. configFile with alertmanager.urls is written back out as JSON
(which is YAML): every string stays quoted, so "${VAR:-}" stays a string.
*/}}
{{- define "kube-notifier.configText" -}}
{{- if and .Values.configFile (not .Values.alertmanager.urls) }}
{{- .Values.configFile }}
{{- else if .Values.configFile }}
{{- include "kube-notifier.config" . | fromYaml | toPrettyJson }}
{{- else }}
{{- include "kube-notifier.configYaml" (include "kube-notifier.config" . | fromYaml) }}
{{- end }}
{{- end }}

{{/*
A config dict as YAML that reads like docs/rules.md: top-level keys in the
documented order (toYaml alone sorts them), and each sink and rule starting
with its name. Keys kube-notifier does not know are kept, so that it reports them.
*/}}
{{- define "kube-notifier.configYaml" -}}
{{- $config := . }}
{{- $order := list "cluster_name" "watch" "state" "sinks" "defaults" "templates" "mute_windows" "rules" }}
{{- range $key := $order }}
{{- if hasKey $config $key }}
{{- $value := get $config $key }}
{{- if and (has $key (list "sinks" "rules")) (kindIs "slice" $value) $value }}
{{ $key }}:
{{- range $item := $value }}
{{- if and (kindIs "map" $item) (hasKey $item "name") }}
  - name: {{ toYaml $item.name }}
    {{- with omit $item "name" }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
{{- else }}
  {{- toYaml (list $item) | nindent 2 }}
{{- end }}
{{- end }}
{{- else }}
{{ dict $key $value | toYaml }}
{{- end }}
{{- end }}
{{- end }}
{{- $rest := dict }}
{{- range $key, $value := $config }}
{{- if not (has $key $order) }}
{{- $_ := set $rest $key $value }}
{{- end }}
{{- end }}
{{- with $rest }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/* kinds:begin (python -m scripts.kinds_reference) */}}
{{/* Where each kind is served: RBAC grants list/watch on exactly these. */}}
{{- define "kube-notifier.kindResources" -}}
{"Pod":{"group":"","resource":"pods","namespaced":true},"Deployment":{"group":"apps","resource":"deployments","namespaced":true},"Service":{"group":"","resource":"services","namespaced":true},"Job":{"group":"batch","resource":"jobs","namespaced":true},"CronJob":{"group":"batch","resource":"cronjobs","namespaced":true},"StatefulSet":{"group":"apps","resource":"statefulsets","namespaced":true},"DaemonSet":{"group":"apps","resource":"daemonsets","namespaced":true},"Node":{"group":"","resource":"nodes","namespaced":false},"PersistentVolumeClaim":{"group":"","resource":"persistentvolumeclaims","namespaced":true},"HorizontalPodAutoscaler":{"group":"autoscaling","resource":"horizontalpodautoscalers","namespaced":true},"PodDisruptionBudget":{"group":"policy","resource":"poddisruptionbudgets","namespaced":true},"Event":{"group":"","resource":"events","namespaced":true}}
{{- end }}
{{/* What an owner chain may read (enrich: [owners]): RBAC grants get on these. */}}
{{- define "kube-notifier.ownerResources" -}}
{"apps":["deployments","statefulsets","daemonsets","replicasets"],"batch":["jobs","cronjobs"],"":["replicationcontrollers"]}
{{- end }}
{{/* kinds:end */}}

{{/* The kinds watched, as a list: RBAC grants list/watch on these only. */}}
{{- define "kube-notifier.watchKinds" -}}
{{- $config := include "kube-notifier.config" . | fromYaml }}
{{- $watch := default dict $config.watch }}
{{- toJson (default (list "Pod" "Deployment" "Service") $watch.kinds) }}
{{- end }}

{{/*
What needs a restart to take effect, hashed into the pod template: the Secret
the chart creates (environment variables are read at start), and the parts of
the config kube-notifier cannot apply while running (watch, state, a sink's
delivery.concurrency). Not the rules or the rest of the sinks: they hot-reload.
*/}}
{{- define "kube-notifier.restartChecksum" -}}
{{- $inputs := dict }}
{{- if and .Values.secret.create (not .Values.secret.existingSecret) }}
{{- $_ := set $inputs "secret" .Values.secret.data }}
{{- end }}
{{- $config := include "kube-notifier.config" . | fromYaml }}
{{- $_ := set $inputs "watch" (default dict $config.watch) }}
{{- $_ := set $inputs "state" (default dict $config.state) }}
{{- $threads := list }}
{{- range (default list $config.sinks) }}
{{- if and .delivery .delivery.concurrency }}
{{- $threads = append $threads (list .name .delivery.concurrency) }}
{{- end }}
{{- end }}
{{- $_ := set $inputs "threads" $threads }}
{{- toJson $inputs | sha256sum }}
{{- end }}

{{/* Settings that cannot work together fail the render with a reason. */}}
{{- define "kube-notifier.validate" -}}
{{- $config := include "kube-notifier.config" . | fromYaml }}
{{- if hasKey $config "Error" }}
{{- fail (printf "configFile is not valid YAML: %s" $config.Error) }}
{{- end }}
{{- if and (not .Values.configFile) .Values.config.watch }}
{{- if hasKey .Values.config.watch "namespaces" }}
{{- fail "set watchNamespaces, not config.watch.namespaces: the chart makes RBAC from it and writes it into the config" }}
{{- end }}
{{- end }}
{{- if and .Values.configFile .Values.watchNamespaces }}
{{- $watch := default dict $config.watch }}
{{- if ne (toJson (sortAlpha (default list $watch.namespaces))) (toJson (sortAlpha .Values.watchNamespaces)) }}
{{- fail "configFile's watch.namespaces must list the same namespaces as watchNamespaces (RBAC is made from watchNamespaces)" }}
{{- end }}
{{- end }}
{{- include "kube-notifier.validateAlertmanager" (dict "config" $config "Values" .Values) }}
{{- if and .Values.persistence.enabled (gt (int .Values.replicaCount) 1) }}
{{- fail "persistence.enabled needs replicaCount 1: one SQLite file on a ReadWriteOnce volume cannot be shared by replicas" }}
{{- end }}
{{- if and .Values.secret.create .Values.secret.existingSecret }}
{{- fail "set secret.existingSecret or secret.create, not both" }}
{{- end }}
{{- if and .Values.secret.create (not .Values.secret.data) }}
{{- fail "secret.create needs secret.data (KEY: value pairs)" }}
{{- end }}
{{- if not .Values.rbac.namespaceLabels }}
{{- range $rule := (default list $config.rules) }}
{{- if and (kindIs "map" $rule) (kindIs "map" $rule.match) }}
{{- if hasKey $rule.match "namespace_selector" }}
{{- fail (printf "rule %v uses namespace_selector: set rbac.namespaceLabels=true so kube-notifier may read namespace labels" $rule.name) }}
{{- end }}
{{- end }}
{{- end }}
{{- end }}
{{- end }}

{{/* The context parts the rules ask for (`enrich:`), as a JSON list: RBAC follows them. */}}
{{- define "kube-notifier.enrichParts" -}}
{{- $parts := list }}
{{- range $rule := (default list (include "kube-notifier.config" . | fromYaml).rules) }}
{{- range $part := (default list $rule.enrich) }}
{{- $parts = append $parts $part }}
{{- end }}
{{- end }}
{{- $parts | uniq | toJson }}
{{- end }}

{{/* The namespace of every namespaced object: namespaceOverride, else the release's. */}}
{{- define "kube-notifier.namespace" -}}
{{- default .Release.Namespace .Values.namespaceOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* imagePullSecrets and global.imagePullSecrets, each as {name: ...}, once each. */}}
{{- define "kube-notifier.imagePullSecrets" -}}
{{- $names := list }}
{{- range (concat (default list .Values.global.imagePullSecrets) .Values.imagePullSecrets) }}
{{- if kindIs "string" . }}
{{- $names = append $names . }}
{{- else }}
{{- $names = append $names (get . "name") }}
{{- end }}
{{- end }}
{{- range ($names | uniq) }}
- name: {{ . }}
{{- end }}
{{- end }}

{{/*
Alertmanager as the hub of a fleet (docs/fleet.md): the sink alertmanager.urls
adds to the config, whichever way the config is given, and the checks that keep
a fleet's alerts apart.
*/}}

{{/*
Adds the `alertmanager` sink of alertmanager.urls to a config dict, in place:
every rule that names sinks names it too, and so does a non-empty
defaults.sinks (the default route, and the sinks of rules that name none).
*/}}
{{- define "kube-notifier.addAlertmanager" -}}
{{- $config := .config }}
{{- $sink := dict "name" "alertmanager" "type" "alertmanager" "urls" .alertmanager.urls }}
{{- if .alertmanager.labels }}
{{- $_ := set $sink "labels" .alertmanager.labels }}
{{- end }}
{{- $_ := set $config "sinks" (append (default list $config.sinks) $sink) }}
{{- $rules := list }}
{{- range $rule := (default list $config.rules) }}
{{- if and (kindIs "map" $rule) $rule.sinks }}
{{- $rule = merge (dict "sinks" (append $rule.sinks "alertmanager")) $rule }}
{{- end }}
{{- $rules = append $rules $rule }}
{{- end }}
{{- if hasKey $config "rules" }}
{{- $_ := set $config "rules" $rules }}
{{- end }}
{{- if and (kindIs "map" $config.defaults) $config.defaults.sinks }}
{{- $defaults := deepCopy $config.defaults }}
{{- $_ := set $defaults "sinks" (append $defaults.sinks "alertmanager") }}
{{- $_ := set $config "defaults" $defaults }}
{{- end }}
{{- end }}

{{/*
alertmanager.urls and the config's Alertmanager sinks fail the render with a
reason where they cannot do what they say. Called with the config dict
(kube-notifier.config, the sink already added) and .Values.
*/}}
{{- define "kube-notifier.validateAlertmanager" -}}
{{- $config := .config }}
{{- if and .Values.alertmanager.urls .Values.existingConfigMap }}
{{- fail "alertmanager.urls cannot reach existingConfigMap (the chart does not write it): add a sink of type alertmanager to its config.yaml, or give the rules as config or configFile" }}
{{- end }}
{{- $named := 0 }}
{{- $hub := false }}
{{- range $sink := (default list $config.sinks) }}
{{- if kindIs "map" $sink }}
{{- if eq (toString $sink.name) "alertmanager" }}{{ $named = add1 $named }}{{ end }}
{{- if eq (toString $sink.type) "alertmanager" }}{{ $hub = true }}{{ end }}
{{- end }}
{{- end }}
{{- if and .Values.alertmanager.urls (gt $named 1) }}
{{- fail "alertmanager.urls adds a sink named alertmanager, and the config has one already: remove one of them" }}
{{- end }}
{{- $cluster := toString (default "" $config.cluster_name) }}
{{- if and $hub (has $cluster (list "" "my-cluster")) }}
{{- fail (printf "an Alertmanager sink needs this cluster's own cluster_name (it is %q): every cluster of a fleet would send the same cluster label; set config.cluster_name, or cluster_name in configFile" $cluster) }}
{{- end }}
{{- end }}

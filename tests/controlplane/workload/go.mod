module kube-notifier.test/workload

go 1.22

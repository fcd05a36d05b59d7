"""A real local Kubernetes control plane for tests, the demo and benchmarks.

``assets`` builds etcd, kube-apiserver and friends from Go modules into a
cache keyed by version; ``cluster`` starts them on 127.0.0.1.
"""

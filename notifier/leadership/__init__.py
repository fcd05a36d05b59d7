"""Leader election on a coordination.k8s.io/v1 Lease, and the gate that lets only the leader send.

Every replica watches, computes transitions and runs the rules, so a
standby is warm and ready. Only the leader hands notifications to
delivery; a standby keeps the last ``window`` seconds of them and sends
those when it takes over, which covers the gap between the old leader's
last renewal and the takeover. A notification the old leader had already
sent is sent again under the same idempotency key (at-least-once), so a
receiver can drop the repeat.
"""

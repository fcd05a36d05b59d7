"""Exit codes of every ``kube-notifier`` command, one meaning each (docs/cli.md lists them).

argparse owns 2 (a usage error: unknown flag, missing argument), so no
other failure uses it. A config that does not load is 5 whichever command
read it, so a script can tell "fix the file" from "fix the cluster access".
"""

from __future__ import annotations

from enum import IntEnum


class Exit(IntEnum):
    OK = 0
    FAILED = 1  # the command ran and found or left a problem (missing RBAC, letters not sent)
    USAGE = 2  # argparse: the command line itself is wrong
    CLUSTER = 3  # no credentials, credentials refused (401), not allowed (403), unreachable
    STATE = 4  # the state database cannot be used
    CONFIG = 5  # the config file is missing, unreadable or invalid
    LISTEN = 6  # the HTTP address cannot be listened on (port in use, no permission)

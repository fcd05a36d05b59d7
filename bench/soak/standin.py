"""The scale bench's stand-in with the soak's controls: ``python -m bench.soak.standin``.

- ``POST /control/soak?rate=R&seconds=S``: starts the soak's churn
  (``churn.SoakChurn``) at R changes a second for S seconds, in the
  background, and answers at once;
- ``POST /control/soak-status``: whether it runs, the changes made by sort,
  the seqs the seq rule must tell and how many Pods were made Failed.

Everything else is ``bench.scale.standin``'s (list, watch, ``/control/gone``).
"""

from __future__ import annotations

import argparse
import asyncio

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from bench.scale.standin import TICK, Churn, StandIn
from bench.scale.standin import main as standin_main
from bench.scale.store import Cluster
from bench.soak.churn import SoakChurn


class SoakStandIn(StandIn):
    def __init__(self, soak: SoakChurn, bookmark_seconds: float) -> None:
        super().__init__(soak.cluster, Churn(soak.cluster, 0), bookmark_seconds)
        self.soak = soak
        self.task: asyncio.Task[None] | None = None

    async def run_soak(self, rate: float, seconds: float) -> None:
        loop = asyncio.get_running_loop()
        started, made, total = loop.time(), 0, round(rate * seconds)
        while made < total:
            due = min(total, round((loop.time() - started) * rate) + 1)
            for _ in range(due - made):
                for event in self.soak.change():
                    self.publish("pods", event)
            made = due
            await asyncio.sleep(max(TICK, 1 / rate))

    async def control_soak(self, request: Request) -> Response:
        if self.task is not None and not self.task.done():
            return JSONResponse({"error": "already running"}, 409)
        rate = float(request.query_params.get("rate", "50"))
        seconds = float(request.query_params.get("seconds", "60"))
        self.task = asyncio.get_running_loop().create_task(self.run_soak(rate, seconds))
        return JSONResponse({"started": True, "rate": rate, "seconds": seconds})

    async def control_status(self, request: Request) -> Response:
        soak = self.soak
        return JSONResponse({
            "running": self.task is not None and not self.task.done(),
            "made": soak.made, "counts": dict(soak.counts), "matching": soak.matching,
            "failed": soak.counts["fail"], "stable_pods": len(soak.stable),
        })  # fmt: skip

    def app(self) -> Starlette:
        app = super().app()
        app.router.routes[-1:-1] = [
            Route("/control/soak", self.control_soak, methods=["POST"]),
            Route("/control/soak-status", self.control_status, methods=["POST"]),
        ]
        return app


def _soak_standin(cluster: Cluster, args: argparse.Namespace) -> StandIn:
    return SoakStandIn(SoakChurn(cluster, args.seed), args.bookmark_seconds)


def main(argv: list[str] | None = None) -> None:
    standin_main(argv, make=_soak_standin)


if __name__ == "__main__":
    main()

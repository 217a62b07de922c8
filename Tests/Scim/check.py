"""Runs scim2-tester's checks against a SCIM server and fails on any that did not pass.

    python Tests/Scim/check.py BASE_URL TOKEN

Every check must end SUCCESS, COMPLIANT or ACCEPTABLE (SKIPPED only where the server says it
does not offer the feature); DEVIATION, ERROR and CRITICAL are printed and fail the run.
"""
import sys

from httpx2 import Client
from scim2_client.engines.httpx2 import SyncSCIMClient
from scim2_tester import Status, check_server

passing = {Status.SUCCESS, Status.COMPLIANT, Status.ACCEPTABLE, Status.SKIPPED}


def main() -> int:
    base, token = sys.argv[1], sys.argv[2]
    http = Client(base_url=base.rstrip("/") + "/", headers={"Authorization": f"Bearer {token}"}, timeout=30)
    results = check_server(SyncSCIMClient(http))
    failed = [result for result in results if result.status not in passing]
    for result in results:
        mark = "ok " if result.status in passing else "BAD"
        print(f"{mark} {result.status.name:<10} {result.resource_type or '-':<8} {result.title}: {result.reason or ''}"[:400])
    counts = {}
    for result in results:
        counts[result.status.name] = counts.get(result.status.name, 0) + 1
    print(f"{len(results)} checks: " + ", ".join(f"{count} {name}" for name, count in sorted(counts.items())))
    if failed:
        for result in failed:
            print(f"FAILED {result.title}: {result.reason}\n  {str(result.data)[:1500]}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

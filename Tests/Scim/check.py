"""Runs scim2-tester's checks against a SCIM server and fails on any that did not pass.

    python Tests/Scim/check.py BASE_URL TOKEN

Every check must end SUCCESS, COMPLIANT, ACCEPTABLE or SKIPPED; DEVIATION, ERROR and CRITICAL
are printed and fail the run, but for the ones in REFUSED_BY_DESIGN (empty today), each a
decision of Micro's documented in Sources/Micro/Micro.docc/Provisioning.md. One of those that
passes is said (some depend on the checker's random values).
"""
import sys

from httpx2 import Client
from scim2_client.engines.httpx2 import SyncSCIMClient
from scim2_tester import Status, check_server

passing = {Status.SUCCESS, Status.COMPLIANT, Status.ACCEPTABLE, Status.SKIPPED}

# (resource type, check, words of its reason): what Micro refuses or does not keep, on purpose.
# None today: renames keep the id (Provisioning.md, "Ids and renames").
REFUSED_BY_DESIGN: list = []


def refused_by_design(result) -> bool:
    return any(
        result.resource_type == kind and result.title == title and words in (result.reason or "")
        for kind, title, words in REFUSED_BY_DESIGN
    )


def main() -> int:
    base, token = sys.argv[1], sys.argv[2]
    http = Client(base_url=base.rstrip("/") + "/", headers={"Authorization": f"Bearer {token}"}, timeout=30)
    results = check_server(SyncSCIMClient(http))
    failed = [result for result in results if result.status not in passing and not refused_by_design(result)]
    for result in results:
        mark = "ok " if result.status in passing else ("by design" if refused_by_design(result) else "BAD")
        print(f"{mark} {result.status.name:<10} {result.resource_type or '-':<8} {result.title}: {result.reason or ''}"[:400])
    counts = {}
    for result in results:
        counts[result.status.name] = counts.get(result.status.name, 0) + 1
    print(f"{len(results)} checks: " + ", ".join(f"{count} {name}" for name, count in sorted(counts.items())))
    refused = sum(1 for result in results if result.status not in passing and refused_by_design(result))
    print(f"{refused} refused by design (REFUSED_BY_DESIGN), {len(failed)} failed")
    for kind, title, words in REFUSED_BY_DESIGN:
        if not any(r.resource_type == kind and r.title == title and words in (r.reason or "") for r in results if r.status not in passing):
            print(f"note: {kind} {title} ({words}) did not fail this time")
    if failed:
        for result in failed:
            print(f"FAILED {result.title}: {result.reason}\n  {str(result.data)[:1500]}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

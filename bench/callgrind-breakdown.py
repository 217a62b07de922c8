#!/usr/bin/env python3
"""Where a request's instructions go, from one callgrind profile of bench/callgrind.sh.

Usage: callgrind-breakdown.py PROFILE REQUESTS [TITLE]     the breakdown table
       callgrind-breakdown.py --top N PROFILE REQUESTS      the N costliest functions, inclusive

A function's inclusive cost is the sum of the calls into it from other functions (its own
recursion not counted twice), so a part is measured at the function that enters it. Async
functions resume in continuations the executor calls, which are not nested under the
function's entry: the parts below are synchronous ones, and "NIO, the runtime and the rest" is
what remains of the total.
"""
import re
import subprocess
import sys
from collections import defaultdict

# (label, depth, patterns): a part is the sum of the inclusive costs of the functions whose
# demangled name starts with one of its patterns; "CALLEE<-CALLER" counts only the calls from
# functions whose name starts with CALLER. A part of depth 1 is within the part of depth 0 above
# it (and so on). Only synchronous functions: see above.
PARTS = [
    ("Request.render: template values, swift-mustache's render of page and layout", 0, ["Request.render("]),
    ("the template values (Request.templateContext, with Authentication's)", 1, ["Request.templateContext()"]),
    ("Authentication's values (currentUser, signedIn, paths)", 2, ["closure #2 in Authentication.install("]),
    ("swift-mustache's render of the page and the layout (MustacheLibrary.render)", 1, ["MustacheLibrary.render("]),
    ("the values the templates look up (TemplateContext.child)", 2, ["TemplateContext.child(named:)"]),
    ("HTML escaping of {{values}} (Html.escape)", 2, ["HtmlContentType.escapeText("]),
    ("the CSRF token in the page (LazyCsrfValue)", 2, ["LazyCsrfValue.renderText.getter"]),
    ("the route's own read of the user (Request.currentUser)", 0, ["Request.currentUser.getter<-closure #3 in static BenchRoutes.install("]),
    ("the Cookie header parsed (Request.cookie, first call)", 0, ["Request.cookie(<-Responder."]),
    ("the session opened and checked (Sessions.load)", 0, ["Sessions.load(for:)"]),
    ("revocation and credential checks (Sessions.isCurrent)", 1, ["Sessions.isCurrent("]),
    ("the session committed: the cookie resealed when due (Sessions.commit)", 0, ["Sessions.commit(_:into:logger:)"]),
    ("CSRF check of the request (CsrfProtection.check)", 0, ["CsrfProtection.check("]),
    ("static files look-up (StaticFiles.response)", 0, ["StaticFiles.response(for:)"]),
    ("route match (RouteIndex, RoutePattern)", 0, ["RouteIndex.", "RoutePattern.match(", "Router."]),
    ("security headers (SecurityHeaders.apply)", 0, ["SecurityHeaders.apply(to:)", "SecurityHeaders.applyCaching("]),
    ("the body made from the route's String (ResponseConvertible)", 0, ["protocol witness for ResponseConvertible.makeResponse("]),
    ("the answer written to NIO: head encoded, pipeline, socket write (HttpHandler.write)", 0, ["HttpHandler.write("]),
]


def parse(path):
    names = {}
    self_cost = defaultdict(int)
    arcs = defaultdict(int)
    total = 0
    function = callee = None
    call_cost_next = False

    def resolve(text):
        match = re.match(r"\((\d+)\)(?: (.*))?", text)
        if not match:
            return text
        key, name = match.group(1), match.group(2)
        if name is not None:
            names[key] = name
        return names[key]

    with open(path, errors="replace") as file:
        for line in file:
            line = line.rstrip("\n")
            if line.startswith("fn="):
                function = resolve(line[3:])
            elif line.startswith("cfn="):
                callee = resolve(line[4:])
            elif line.startswith("calls="):
                call_cost_next = True
            elif line.startswith("totals:"):
                total = int(line.split()[1])
            elif line and (line[0].isdigit() or line[0] in "+-*"):
                parts = line.split()
                cost = int(parts[1]) if len(parts) > 1 else 0
                if call_cost_next:
                    arcs[(function, callee)] += cost
                    call_cost_next = False
                else:
                    self_cost[function] += cost
    return names, self_cost, arcs, total


def demangle(names):
    unique = sorted(set(names))
    result = subprocess.run(
        ["swift", "demangle", "--simplified"], input="\n".join(unique), capture_output=True, text=True, check=True
    )
    return dict(zip(unique, result.stdout.split("\n")))


def base(name):
    # callgrind names a recursion level "f'2".
    return re.sub(r"'\d+$", "", name)


def part_cost(pattern, arcs, readable):
    """Calls into functions named like the pattern (from other functions), summed."""
    callee_pattern, _, caller_pattern = pattern.partition("<-")
    cost = 0
    for (caller, callee), arc in arcs.items():
        if base(caller) == base(callee):
            continue
        callee_name = readable.get(base(callee), callee)
        caller_name = readable.get(base(caller), caller)
        if callee_name.startswith(callee_pattern) and (not caller_pattern or caller_name.startswith(caller_pattern)):
            # A call from another function of the same part is inside it already.
            if not caller_pattern and caller_name.startswith(callee_pattern):
                continue
            cost += arc
    return cost


def inclusive_costs(self_cost, arcs):
    inclusive = defaultdict(int)
    for (caller, callee), cost in arcs.items():
        if base(caller) != base(callee):
            inclusive[base(callee)] += cost
    return inclusive


def main():
    arguments = sys.argv[1:]
    top = None
    if arguments and arguments[0] == "--top":
        top = int(arguments[1])
        arguments = arguments[2:]
    path, requests = arguments[0], int(arguments[1])
    title = arguments[2] if len(arguments) > 2 else path
    _, self_cost, arcs, total = parse(path)
    inclusive = inclusive_costs(self_cost, arcs)
    readable = demangle(list(inclusive.keys()) + [base(name) for name in self_cost] + [base(a) for a, _ in arcs])
    by_name = defaultdict(int)
    for name, cost in inclusive.items():
        by_name[readable.get(name, name)] += cost
    if top is not None:
        own = defaultdict(int)
        for name, cost in self_cost.items():
            own[readable.get(base(name), name)] += cost
        print(f"| function (demangled) | inclusive per request | self per request |")
        print("| --- | ---: | ---: |")
        for name, cost in sorted(by_name.items(), key=lambda item: -item[1])[:top]:
            print(f"| {name[:150]} | {cost / requests:.0f} | {own.get(name, 0) / requests:.0f} |")
        return
    print(f"{title}: {total / requests:.0f} instructions per request")
    print()
    print("| part | instructions per request | share |")
    print("| --- | ---: | ---: |")
    accounted = 0
    for label, depth, patterns in PARTS:
        cost = sum(part_cost(pattern, arcs, readable) for pattern in patterns)
        if depth == 0:
            accounted += cost
        if cost == 0:
            continue
        indent = "&nbsp;&nbsp;" * depth + ("of which " if depth else "")
        print(f"| {indent}{label} | {cost / requests:.0f} | {100 * cost / total:.1f}% |")
    rest = total - accounted
    print(f"| NIO, the runtime and the rest (the total less the parts above) | {rest / requests:.0f} | {100 * rest / total:.1f}% |")


if __name__ == "__main__":
    main()

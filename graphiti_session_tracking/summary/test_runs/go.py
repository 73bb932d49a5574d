"""go test's results: its tests when verbose, else its packages."""

from __future__ import annotations

import re

from .counts import Counts

_GO_OK = re.compile(r"^ok\s+(\S+)\s+(?:[\d.]+s|\(cached\))")
_GO_FAIL_PKG = re.compile(r"^FAIL\s+(\S+)\s+(?:[\d.]+s|\[(build|setup) failed\])")
_GO_TEST = re.compile(r"^(\s*)--- (PASS|FAIL|SKIP): (\S+)")
# Searched in a line: it starts where the spaces start, so a long run of them is one pass.
GO_COVERAGE = re.compile(r"(?<!\s)\s*coverage: (\d+(?:\.\d+)?)% of statements")


def go_counts(lines: list[str]) -> Counts | None:
    """go test: top-level `--- PASS/FAIL/SKIP` lines when verbose; otherwise packages are the unit.

    Without -v go prints nothing for passing tests, only `ok <package>`; counting packages
    then is the only honest count. A package that failed to build counts as one failure.
    """
    ok_packages: list[str] = []
    failed_packages: list[str] = []
    broken_packages: list[str] = []
    results: dict[str, list[str]] = {"PASS": [], "FAIL": [], "SKIP": []}
    verbose = False
    for line in lines:
        if line.startswith("=== RUN"):
            verbose = True
        if ok := _GO_OK.match(line):
            ok_packages.append(ok.group(1))
        elif fail := _GO_FAIL_PKG.match(line):
            (broken_packages if fail.group(2) else failed_packages).append(fail.group(1))
        elif (test := _GO_TEST.match(line)) and not test.group(1):
            results[test.group(2)].append(test.group(3))
            verbose = verbose or test.group(2) != "FAIL"
    if not (ok_packages or failed_packages or broken_packages or any(results.values())):
        return None
    counts = Counts("go", failed_tests=[*results["FAIL"], *broken_packages])
    if verbose:
        counts.passed = len(results["PASS"])
        counts.failed = len(results["FAIL"]) + len(broken_packages)
        counts.skipped = len(results["SKIP"])
    else:
        counts.passed = len(ok_packages)
        counts.failed = len(failed_packages) + len(broken_packages)
    return counts

#!/usr/bin/env python3
"""Runs chosen test binaries of one cargo build, as `cargo test` would run them.

CI builds the workspace once with every feature (`cargo test --workspace --all-features
--no-run`) and then runs a few of its test binaries. Selecting them with `cargo test -p X`
would change the set of selected packages and so the features cargo unifies for the
dependencies, which rebuilds them; running the binaries the build listed does not.

    cargo test … --no-run --message-format=json > build.json
    scripts/ci-test-binaries.py build.json SELECTOR… [-- LIBTEST ARGS…]

A SELECTOR is `package:NAME` (every test binary of that package: its library's unit
tests, its binaries' and its integration tests), `test:PACKAGE/TARGET` (the package's
integration test target, e.g. `test:frugal-cli/it`; `test:*/it` is every package's `it`,
as `cargo test --workspace --test it` runs them), optionally with libtest filters for
that binary alone after a `=` (`test:frugal-cli/it=ephemeral::`, several joined by `,`),
or `bins:NAME` (the unit tests of the package's binaries). LIBTEST ARGS go to every
binary. Each binary runs from its package's folder, as cargo runs it; every binary runs
even after one fails, and the exit status is 1 if any failed, 2 if a selector matched
nothing.
"""

import json
import os
import subprocess
import sys


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    build, rest = argv[0], argv[1:]
    libtest = []
    if "--" in rest:
        i = rest.index("--")
        rest, libtest = rest[:i], rest[i + 1 :]
    selectors = []
    for s in rest:
        kind, _, name = s.partition(":")
        name, _, filters = name.partition("=")
        filters = [f for f in filters.split(",") if f]
        if (
            kind not in ("package", "test", "bins")
            or not name
            or (kind == "test") != ("/" in name)
            or (filters and kind != "test")
        ):
            sys.exit(
                f"selector {s!r}: expected package:NAME, test:PACKAGE/TARGET[=FILTER,…] "
                "or bins:NAME"
            )
        selectors.append((kind, name, filters))

    binaries = []
    with open(build, encoding="utf-8") as f:
        for line in f:
            try:
                msg = json.loads(line)
            except json.JSONDecodeError:
                continue
            if msg.get("reason") != "compiler-artifact" or not msg.get("executable"):
                continue
            if not msg.get("profile", {}).get("test"):
                continue
            target = msg["target"]
            # The package's name is the manifest folder's package; the id names it too.
            package = package_name(msg["package_id"], msg["manifest_path"])
            binaries.append((package, target["name"], target["kind"], msg))

    chosen = []
    for kind, name, filters in selectors:
        hits = [
            b
            for b in binaries
            if (kind == "package" and b[0] == name)
            or (kind == "test" and "test" in b[2] and matches(name, b[0], b[1]))
            or (kind == "bins" and b[0] == name and "bin" in b[2])
        ]
        if not hits:
            print(f"selector {kind}:{name} matched no test binary of {build}", file=sys.stderr)
            return 2
        chosen += [(b, filters) for b in hits if b not in [c[0] for c in chosen]]

    failed = []
    for (package, name, kinds, msg), filters in chosen:
        exe = msg["executable"]
        print(f"     Running {package} {'/'.join(kinds)} {name} ({os.path.basename(exe)})", flush=True)
        code = subprocess.call(
            [exe, *libtest, *filters], cwd=os.path.dirname(msg["manifest_path"])
        )
        if code != 0:
            failed.append(f"{package} {name}")
    if failed:
        print("failed: " + ", ".join(failed), file=sys.stderr)
        return 1
    return 0


def matches(selector, package, target):
    """`PACKAGE/TARGET` names this test target; `*` as the package matches any."""
    want_package, _, want_target = selector.partition("/")
    return want_target == target and want_package in ("*", package)


def package_name(package_id, manifest_path):
    """The package's name from its id (`path+file:///…/crates/NAME#0.1.0` or the older
    `NAME 0.1.0 (path+file://…)`), falling back to the manifest's folder."""
    if " " in package_id:
        return package_id.split(" ", 1)[0]
    tail = package_id.rsplit("/", 1)[-1]
    base = tail.split("#", 1)[0]
    if "@" in tail.split("#", 1)[-1]:
        return tail.split("#", 1)[-1].split("@", 1)[0]
    return base or os.path.basename(os.path.dirname(manifest_path))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

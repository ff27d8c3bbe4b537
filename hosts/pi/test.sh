#!/usr/bin/env bash
# The pi extension's tests: Node dependencies from the lockfile, then the unit
# tests (TypeScript through jiti, the loader pi itself uses) and the end-to-end
# tests through the real pi package.  Run from anywhere; bootstrap/test.py runs it.
#
# WEBSEARCH_PI_TEST_PYTHON: a Python that has the worker's requirements (default:
# the dev venv bootstrap/test.py builds, else the worker's default venv).
set -euo pipefail
cd "$(dirname "$0")"
PI_DIR="$(pwd)"
ROOT="$(cd ../.. && pwd)"

echo "pi extension: node $(node --version), npm $(npm --version 2>/dev/null)"
npm ci --no-audit --no-fund --loglevel=error

if [ -z "${WEBSEARCH_PI_TEST_PYTHON:-}" ]; then
	dev="${WEBSEARCH_WORKER_DEV_VENV:-$ROOT/.venv-dev}/bin/python"
	if [ -x "$dev" ]; then
		WEBSEARCH_PI_TEST_PYTHON="$dev"
	else
		WEBSEARCH_PI_TEST_PYTHON="$(python3 "$ROOT/bootstrap/run.py" --python-path | tail -n 1)"
	fi
fi
export WEBSEARCH_PI_TEST_PYTHON
echo "pi extension: worker python $WEBSEARCH_PI_TEST_PYTHON"

# The real-bootstrap test installs a fresh venv: let it use uv when the dev
# venv has one (as a user with uv on PATH would), without putting the dev
# venv's python on PATH.
if ! command -v uv >/dev/null 2>&1 && [ -x "$(dirname "$WEBSEARCH_PI_TEST_PYTHON")/uv" ]; then
	bin="$(mktemp -d)"
	trap 'rm -rf "$bin"' EXIT
	ln -s "$(dirname "$WEBSEARCH_PI_TEST_PYTHON")/uv" "$bin/uv"
	export PATH="$bin:$PATH"
fi

rc=0
echo "pi extension: type check against the pinned pi packages"
node_modules/.bin/tsc -p . || rc=1
node --import jiti/register --test --test-reporter=spec test/*.test.ts || rc=1
node --test --test-reporter=spec test/e2e.test.mjs test/prepared.test.mjs || rc=1
exit $rc

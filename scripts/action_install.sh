#!/usr/bin/env bash
# The Action's install of schema-audit (action.yml), fast when warm: the package and every dependency are
# built into a wheelhouse once per action commit, Python and machine, which actions/cache keeps between runs;
# a run installs those wheels into a fresh venv without an index, a resolve or bytecode compilation.
#
#   action_install.sh key       prints `key=schema-audit-wheels-<32 hex>` for $GITHUB_OUTPUT: a hash of this
#                               action's pyproject.toml and package files (mcp_schema_audit/, fixtures/demo_server/), the `package` input, python3 -VV
#                               and the machine (uname -sm)
#   action_install.sh install   builds $WHEELS (default $RUNNER_TEMP/schema-audit-wheels) when it holds no
#                               complete wheelhouse, then installs every wheel in it into
#                               $RUNNER_TEMP/schema-audit-venv (replaced)
#
# Environment: ACTION_PATH (this action's checkout), PACKAGE (the `package` input: a pip requirement; empty =
# ACTION_PATH), RUNNER_TEMP, WHEELS (optional). Measured figures: docs/ci.md ("Install time").
set -euo pipefail
: "${ACTION_PATH:?ACTION_PATH is not set}" "${RUNNER_TEMP:?RUNNER_TEMP is not set}"
# a PYTHONPATH of the workflow's (a checkout holding an .egg-info) would make pip take the package as installed
unset PYTHONPATH
wheels="${WHEELS:-$RUNNER_TEMP/schema-audit-wheels}"
venv="$RUNNER_TEMP/schema-audit-venv"
pip_q=(--quiet --disable-pip-version-check --no-input)

case "${1:-}" in
key)
  digest=$(
    {
      python3 -VV
      uname -sm
      printf 'package=%s\n' "${PACKAGE:-}"
      cd "$ACTION_PATH"
      find pyproject.toml mcp_schema_audit fixtures/demo_server -type f ! -name '*.pyc' ! -path '*/__pycache__/*' -print0 |
        LC_ALL=C sort -z | xargs -0 sha256sum
    } | sha256sum | cut -c1-32
  )
  echo "key=schema-audit-wheels-$digest"
  ;;
install)
  if [ ! -f "$wheels/.complete" ]; then # cold: build the wheelhouse (the package and its whole closure)
    rm -rf "$wheels"
    python3 -m pip wheel "${pip_q[@]}" --wheel-dir "$wheels" "${PACKAGE:-$ACTION_PATH}"
    touch "$wheels/.complete"
  fi
  rm -rf "$venv"
  # pip of the runner's python3 installs into a venv made without pip (pip >= 22.3 has --python); an older
  # pip gets a venv with its own pip. Either way: those wheels only, no index, no resolve, no compile.
  if python3 -m venv --without-pip "$venv" &&
    python3 -m pip --python "$venv/bin/python" install "${pip_q[@]}" --no-index --no-deps --no-compile \
      "$wheels"/*.whl 2>/dev/null; then
    :
  else
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$venv/bin/python" -m pip install "${pip_q[@]}" --no-index --no-deps --no-compile "$wheels"/*.whl
  fi
  "$venv/bin/schema-audit" --version
  ;;
*)
  echo "usage: action_install.sh key|install" >&2
  exit 2
  ;;
esac

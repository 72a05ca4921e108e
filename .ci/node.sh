#!/usr/bin/env bash
# Prints the bin directory of a Node.js binary of version $1 (e.g. 22.23.3): the machine's own Node when it is that
# exact version, else a copy unpacked from the npm registry's `node-linux-<arch>@$1` package (npm checks the
# tarball's integrity against the registry) into ${PORTCULLIS_CI_CACHE:-~/.cache/portcullis-ci}/node-$1.
set -euo pipefail
version="$1"
if [ "$(node --version 2>/dev/null)" = "v$version" ]; then dirname "$(command -v node)"; exit 0; fi
case "$(uname -m)" in
  x86_64) arch=x64 ;;
  aarch64|arm64) arch=arm64 ;;
  *) echo "no node-linux package for $(uname -m)" >&2; exit 1 ;;
esac
cache="${PORTCULLIS_CI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/portcullis-ci}"
target="$cache/node-$version"
if [ ! -x "$target/bin/node" ]; then
  mkdir -p "$cache"
  work="$(mktemp -d "$cache/.download.XXXXXX")"
  echo "downloading Node.js $version (node-linux-$arch from the npm registry)" >&2
  (cd "$work" && npm pack --silent "node-linux-$arch@$version" >/dev/null) || { rm -rf "$work"; exit 1; }
  tar -xzf "$work"/node-linux-"$arch"-"$version".tgz -C "$work"
  rm -rf "$target" && mv "$work/package" "$target" && rm -rf "$work"
fi
"$target/bin/node" --version >/dev/null
echo "$target/bin"

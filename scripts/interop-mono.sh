#!/usr/bin/env bash
# Interoperability check with .NET's SOAP client as Mono implements it: `wsdl` generates the same
# SoapHttpClientProtocol proxies as .NET Framework's wsdl.exe / "Add Web Reference", per endpoint,
# for SOAP 1.1 and SOAP 1.2, from the WSDL each endpoint serves and from the legacy-shaped fixture
# (test/fixtures/legacy-wsdl, rewritten for <namespace> and <base_url> by scripts/legacy-wsdl.ts);
# `mcs` compiles them with scripts/interop/mono/*.cs, which calls every operation through each.
#
#   scripts/interop-mono.sh <base_url> <DevID> <DevKey> [<namespace>, default SVAPI]
#
# <namespace> is the service's SVAPI_NAMESPACE. Prints one line per check, then "N passed, M failed";
# exits 1 when a check failed, 2 on bad usage or when Mono is missing (Debian: apt-get install mono-devel).
set -euo pipefail
if [ $# -lt 3 ] || [ $# -gt 4 ]; then
  echo "usage: interop-mono.sh <base_url> <DevID> <DevKey> [<namespace>]" >&2
  exit 2
fi
base=${1%/}
namespace=${4:-SVAPI}
root=$(cd "$(dirname "$0")/.." && pwd)
for tool in wsdl mcs mono; do
  command -v "$tool" >/dev/null || { echo "$tool not found: install mono-devel (Debian)" >&2; exit 2; }
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
node "$root/bin/run-ts.js" "$root/scripts/legacy-wsdl.ts" "$namespace" "$base" "$work/legacy"

fail() { echo "FAIL $1"; cat "$work/log"; echo "0 passed, 1 failed"; exit 1; }
# wsdl names the proxy class after the service (Hunting, ...); the C# namespace tells the four sets apart.
for endpoint in weapons:/api/weapons.asmx item:/api/item.asmx hunting:/API/hunting.asmx auction:/api/auction.asmx; do
  name=${endpoint%%:*} path=${endpoint#*:}
  for protocol in SOAP SOAP12; do
    version=$([ "$protocol" = SOAP ] && echo Soap11 || echo Soap12)
    wsdl -nologo -protocol:$protocol -namespace:Served.$version.${name^}Ref -out:"$work/served-$name-$version.cs" "$base$path?wsdl" >"$work/log" 2>&1 \
      || fail "wsdl -protocol:$protocol $base$path?wsdl"
    wsdl -nologo -protocol:$protocol -namespace:Legacy.$version.${name^}Ref -out:"$work/legacy-$name-$version.cs" "$work/legacy/$name.wsdl" >"$work/log" 2>&1 \
      || fail "wsdl -protocol:$protocol test/fixtures/legacy-wsdl/$name.wsdl"
    if grep -q warning "$work/log"; then fail "wsdl -protocol:$protocol $path: warnings"; fi
  done
done
echo "ok   wsdl: 16 proxies (4 endpoints, SOAP 1.1 and 1.2, served and legacy WSDL)"
mcs -nologo -warn:0 -r:System.Web.Services.dll -r:System.Xml.dll -r:Microsoft.CSharp.dll -r:System.Core.dll \
  -out:"$work/interop.exe" "$work"/*.cs "$root"/scripts/interop/mono/*.cs >"$work/log" 2>&1 || fail "mcs"
# In the temporary directory: when the runtime crashes, Mono writes mono_crash.*.json into the
# working directory, besides its report on stdout (and gdb's thread dump on stderr).
status=0
(cd "$work" && mono "$work/interop.exe" "$base" "$2" "$3" "$namespace") || status=$?
if [ $status -gt 128 ]; then
  echo "FAIL mono died of signal SIG$(kill -l $((status - 128))) (exit code $status): the Mono runtime crashed, see its report above"
fi
exit $status

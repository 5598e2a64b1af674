#!/usr/bin/env bash
# Interoperability check with Apache Axis 1.4, the ASMX era's Java SOAP client: WSDL2Java imports
# both WSDLs each endpoint serves, `?wsdl` (as ASMX published it, no fault declared) and
# `?wsdl=faults` (ServiceError declared as each operation's fault); javac compiles both sets of
# stubs, the second with scripts/interop/axis/AxisInterop.java, which calls every operation over
# SOAP 1.1 (Axis 1.4 has no SOAP 1.2) and checks the answers and the typed ServiceError faults.
#
#   scripts/interop-axis.sh <base_url> <DevID> <DevKey>
#
# Prints one line per check, then "N passed, M failed"; exits 1 when a check failed, 2 on bad usage
# or when Axis or a JDK is missing (Debian: apt-get install libaxis-java default-jdk-headless).
set -euo pipefail
if [ $# -ne 3 ]; then
  echo "usage: interop-axis.sh <base_url> <DevID> <DevKey>" >&2
  exit 2
fi
base=${1%/}
here=$(cd "$(dirname "$0")" && pwd)
java_dir=${AXIS_JAVA_DIR:-/usr/share/java}
cp=""
for jar in axis axis-jaxrpc axis-saaj wsdl4j commons-discovery commons-logging javax.activation javax.mail; do
  if [ ! -f "$java_dir/$jar.jar" ]; then
    echo "$java_dir/$jar.jar not found: install libaxis-java (Debian) or set AXIS_JAVA_DIR" >&2
    exit 2
  fi
  cp="$cp${cp:+:}$java_dir/$jar.jar"
done
for tool in java javac; do
  command -v "$tool" >/dev/null || { echo "$tool not found: install a JDK (Debian: default-jdk-headless)" >&2; exit 2; }
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL $1"; [ -f "$work/log" ] && cat "$work/log"; echo "0 passed, 1 failed"; exit 1; }
# -p: one package per form whatever the namespace, so AxisInterop.java compiles against every form of it.
for form in "wsdl svapi.legacy" "wsdl=faults svapi.axis"; do
  query=${form% *} package=${form#* }
  for path in /api/weapons.asmx /api/item.asmx /API/hunting.asmx /api/auction.asmx; do
    java -cp "$cp" org.apache.axis.wsdl.WSDL2Java -p "$package" -o "$work/src" "$base$path?$query" >"$work/log" 2>&1 \
      || fail "WSDL2Java $base$path?$query:"
    echo "ok   WSDL2Java $path?$query"
  done
done
rm -f "$work/log"
# The legacy stubs have no fault class; the typed-fault stubs have ServiceError, an AxisFault.
[ ! -e "$work/src/svapi/legacy/ServiceError.java" ] || fail "?wsdl declares ServiceError"
grep -q 'class ServiceError *extends *org.apache.axis.AxisFault' "$work/src/svapi/axis/ServiceError.java" || fail "?wsdl=faults: no ServiceError extends AxisFault"
javac -nowarn -encoding UTF-8 -cp "$cp" -d "$work/classes" "$work"/src/svapi/legacy/*.java "$work"/src/svapi/axis/*.java "$here/interop/axis/AxisInterop.java" 2>&1 | grep -v '^Note: ' || true
[ -f "$work/classes/AxisInterop.class" ] && [ -f "$work/classes/svapi/legacy/HuntingSoap_PortType.class" ] || fail javac
java -cp "$cp:$work/classes" AxisInterop "$base" "$2" "$3"

#!/usr/bin/env bash
# Interoperability check with Apache Axis 1.4, the ASMX era's Java SOAP client: WSDL2Java imports
# the WSDL each endpoint serves, javac compiles the stubs with scripts/interop/axis/AxisInterop.java,
# which calls every operation over SOAP 1.1 (Axis 1.4 has no SOAP 1.2) and checks the answers and
# the typed ServiceError faults.
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
for path in /api/weapons.asmx /api/item.asmx /API/hunting.asmx /api/auction.asmx; do
  # -p: one package whatever the namespace, so AxisInterop.java compiles against every form of it.
  if ! java -cp "$cp" org.apache.axis.wsdl.WSDL2Java -p svapi.axis -o "$work/src" "$base$path?wsdl" >"$work/wsdl2java.log" 2>&1; then
    echo "FAIL WSDL2Java $base$path?wsdl:"
    cat "$work/wsdl2java.log"
    echo "0 passed, 1 failed"
    exit 1
  fi
  echo "ok   WSDL2Java $path?wsdl"
done
javac -nowarn -encoding UTF-8 -cp "$cp" -d "$work/classes" "$work"/src/svapi/axis/*.java "$here/interop/axis/AxisInterop.java" 2>&1 | grep -v '^Note: ' || true
[ -f "$work/classes/AxisInterop.class" ] || { echo "FAIL javac"; echo "0 passed, 1 failed"; exit 1; }
java -cp "$cp:$work/classes" AxisInterop "$base" "$2" "$3"

#!/usr/bin/env python3
"""Interoperability check with Python zeep: imports the WSDL each endpoint serves and calls every
operation through both SOAP ports (<Service>Soap and <Service>Soap12), checking that the answers
make sense for the sample dataset (seeds/data), hold the records the HTTP GET binding gives for
the same call, and come back in zeep's types (Decimal for xsd:decimal, timezone-aware datetime for
xsd:dateTime, bool, int); and that faults (NotFound, InvalidParameter, AuthenticationFailed) reach
zeep with their ServiceError detail.

    python3 scripts/interop-zeep.py <base_url> <DevID> <DevKey>
    python3 scripts/interop-zeep.py --wsdl-dir <dir> <base_url> <DevID> <DevKey>

With --wsdl-dir the clients are built from <dir>/{weapons,item,hunting,auction}.wsdl instead of
the served WSDLs (the legacy-shaped ones in test/fixtures/legacy-wsdl, or those
scripts/legacy-wsdl.ts writes for another namespace), with each port's address set to
<base_url><path>; the namespace is the files'.

Prints one line per call ("ok" or "FAIL ..."), then a summary; exits 1 when any call failed,
2 on bad usage or when zeep is missing (Debian: apt-get install python3-zeep).
"""

import datetime
import decimal
import os
import sys
import traceback
import urllib.parse

try:
    import zeep
    from zeep.plugins import Plugin
    from zeep.transports import Transport
    from lxml import etree
except ImportError as e:  # pragma: no cover - reported to the caller
    print(f"zeep is not importable ({e}); install python3-zeep", file=sys.stderr)
    sys.exit(2)

ENVELOPE_NS = {
    "Soap": "http://schemas.xmlsoap.org/soap/envelope/",
    "Soap12": "http://www.w3.org/2003/05/soap-envelope",
}
CONTENT_TYPE = {"Soap": "text/xml", "Soap12": "application/soap+xml"}
ENDPOINTS = [
    ("Weapons", "/api/weapons.asmx", "weapons.wsdl"),
    ("Item", "/api/item.asmx", "item.wsdl"),
    ("Hunting", "/API/hunting.asmx", "hunting.wsdl"),
    ("Auction", "/api/auction.asmx", "auction.wsdl"),
]


class Failure(Exception):
    pass


def check(condition, message):
    if not condition:
        raise Failure(message)


class Wire(Plugin):
    """Remembers what went over the wire for the last call: request and response headers and envelopes."""

    def __init__(self):
        self.sent = None
        self.received = None

    def egress(self, envelope, http_headers, operation, binding_options):
        self.sent = (dict(http_headers), envelope)
        self.received = None
        return envelope, http_headers

    def ingress(self, envelope, http_headers, operation):
        self.received = (dict(http_headers), envelope)
        return envelope, http_headers


def records(result, record):
    """zeep flattens ArrayOf<Record> (one repeated child) to a list; an empty one comes back as None."""
    if result is None:
        return []
    if isinstance(result, list):
        return result
    inner = getattr(result, record, None)
    return list(inner or [])


def is_utc_datetime(value):
    return isinstance(value, datetime.datetime) and value.tzinfo is not None and value.utcoffset() == datetime.timedelta(0)


def check_description(d, where):
    if d is None:
        return
    for field in ("Description", "ItemPictureURL"):
        v = getattr(d, field, None)
        check(v is None or isinstance(v, str), f"{where}.Description.{field} is {type(v).__name__}")


def check_globals(globals_, where, **expect):
    previous = None
    for g in globals_:
        check(is_utc_datetime(g.TimeStamp), f"{where}: TimeStamp {g.TimeStamp!r} is not a datetime in UTC")
        check(isinstance(g.GlobalValue, int), f"{where}: GlobalValue {g.GlobalValue!r} is not an int")
        check(isinstance(g.Player.IsTeam, bool), f"{where}: IsTeam {g.Player.IsTeam!r} is not a bool")
        check(isinstance(g.Monster.MonsterName, str) and g.Monster.MonsterName, f"{where}: no MonsterName")
        check(isinstance(g.GlobalType.GlobalTypeID, int), f"{where}: GlobalTypeID not an int")
        check(isinstance(g.Landarea.AreaName, str), f"{where}: AreaName not a string")
        check_description(g.Monster.Description, where)
        if g.Landarea.Planet is not None:
            check(isinstance(g.Landarea.Planet.PlanetID, int), f"{where}: PlanetID not an int")
        ids = {"MonsterID": g.Monster.MonsterID, "PlayerID": g.Player.PlayerID, "AreaID": g.Landarea.AreaID}
        for k, v in expect.items():
            check(ids[k] == v, f"{where}: a global with {k} {ids[k]}, expected {v}")
        key = (g.TimeStamp, g.GlobalValue)
        if previous is not None:
            check(previous[0] > key[0] or (previous[0] == key[0] and previous[1] >= key[1]),
                  f"{where}: not newest first ({previous} then {key})")
        previous = key


def check_weapons(result, where):
    weapons = records(result, "Weapon")
    check(len(weapons) > 1, f"{where}: {len(weapons)} weapons, the sample data has more")
    ids = [w.WeaponID for w in weapons]
    check(len(set(ids)) == len(ids), f"{where}: repeated WeaponIDs")
    with_damage = 0
    for w in weapons:
        check(isinstance(w.WeaponID, int) and isinstance(w.WeaponName, str) and w.WeaponName, f"{where}: bad weapon {w.WeaponID!r}")
        for field in ("MinHitLevel", "MaxHitLevel", "MinDmgLevel", "MaxDmgLevel", "Weight", "Range",
                      "ImpactRadius", "AttacksMin", "Decay", "TTValue", "MinTTValue"):
            v = getattr(w, field)
            check(isinstance(v, decimal.Decimal), f"{where}: weapon {w.WeaponID} {field} {v!r} is not a Decimal")
        check(isinstance(w.AmmoBurn, int) and isinstance(w.TotalUses, int), f"{where}: weapon {w.WeaponID} ints")
        check(isinstance(w.SIBWeapon, bool), f"{where}: weapon {w.WeaponID} SIBWeapon {w.SIBWeapon!r}")
        check(isinstance(w.HitProfession.ProfessionID, int) and w.HitProfession.ProfessionName, f"{where}: HitProfession")
        check(isinstance(w.DmgProfession.ProfessionID, int) and w.DmgProfession.ProfessionName, f"{where}: DmgProfession")
        check_description(w.Description, where)
        damage = records(w.DamageTypes, "DamageType") if w.DamageTypes is not None else []
        for d in damage:
            check(isinstance(d.Damage, decimal.Decimal), f"{where}: weapon {w.WeaponID} Damage {d.Damage!r} is not a Decimal")
            check(isinstance(d.DamageTypeName, str) and d.DamageTypeName, f"{where}: weapon {w.WeaponID} DamageTypeName")
        with_damage += bool(damage)
    check(with_damage > 0, f"{where}: no weapon has damage types")
    return f"{len(weapons)} weapons, {with_damage} with damage types"


def check_items(result, where):
    items = records(result, "Item")
    check(len(items) > 1, f"{where}: {len(items)} items, the sample data has more")
    for i in items:
        check(isinstance(i.ItemID, int) and isinstance(i.ItemName, str) and i.ItemName, f"{where}: bad item {i.ItemID!r}")
        check(isinstance(i.TTValue, decimal.Decimal), f"{where}: item {i.ItemID} TTValue {i.TTValue!r} is not a Decimal")
        check(isinstance(i.Category.CategoryID, int) and i.Category.CategoryName, f"{where}: item {i.ItemID} Category")
        check_description(i.Description, where)
    return f"{len(items)} items"


def check_monsters(result, where):
    monsters = records(result, "Monster")
    check(len(monsters) > 1, f"{where}: {len(monsters)} monsters, the sample data has more")
    ids = [m.MonsterID for m in monsters]
    check(len(set(ids)) == len(ids), f"{where}: repeated MonsterIDs")
    check(1 in ids and 5 in ids, f"{where}: monsters 1 and 5 missing")
    for m in monsters:
        check(isinstance(m.MonsterID, int) and isinstance(m.MonsterName, str) and m.MonsterName, f"{where}: bad monster {m.MonsterID!r}")
        check_description(m.Description, where)
    return f"{len(monsters)} monsters"


def check_monster(result, where):
    check(result is not None, f"{where}: no result")
    check(result.MonsterID == 1, f"{where}: MonsterID {result.MonsterID!r}, expected 1")
    check(isinstance(result.MonsterName, str) and result.MonsterName, f"{where}: no MonsterName")
    check_description(result.Description, where)
    return f"monster 1 is {result.MonsterName!r}"


def check_monster_globals(result, where):
    globals_ = records(result, "HuntingGlobal")
    check(len(globals_) == 10, f"{where}: {len(globals_)} globals, expected 10")
    check_globals(globals_, where, MonsterID=5)
    return f"{len(globals_)} globals of monster 5, newest {globals_[0].TimeStamp.isoformat()}"


def check_player_globals(result, where):
    globals_ = records(result, "HuntingGlobal")
    check(len(globals_) == 3, f"{where}: {len(globals_)} globals, expected 3")
    check_globals(globals_, where, PlayerID=777001)
    return f"{len(globals_)} globals of player 777001"


def check_landarea_globals(result, where):
    globals_ = records(result, "HuntingGlobal")
    check(0 < len(globals_) <= 100, f"{where}: {len(globals_)} globals, expected 1 to 100")
    check_globals(globals_, where, AreaID=107)
    return f"{len(globals_)} globals in area 107"


def check_categories(result, where):
    categories = records(result, "AuctionCategory")
    check(len(categories) > 1, f"{where}: {len(categories)} categories, the sample data has more")
    ids = [c.CategoryID for c in categories]
    check(all(isinstance(i, int) for i in ids), f"{where}: CategoryID not an int")
    check(ids == sorted(set(ids)), f"{where}: not by CategoryID")
    check(all(isinstance(c.CategoryName, str) and c.CategoryName for c in categories), f"{where}: CategoryName")
    return f"{len(categories)} categories"


# operation -> (service, arguments after the credentials, check)
CALLS = [
    ("Weapons", "GetWeapons", {"SearchWord": ""}, check_weapons),
    ("Item", "FindItems", {"SearchWord": ""}, check_items),
    ("Hunting", "GetMonsters", {"SearchWord": ""}, check_monsters),
    ("Hunting", "GetMonster", {"MonsterID": 1}, check_monster),
    ("Hunting", "GetMonsterGlobals", {"MonsterID": 5, "NumberOfGlobals": 10}, check_monster_globals),
    ("Hunting", "GetPlayerGlobals", {"playerID": 777001, "NumberOfGlobals": 3}, check_player_globals),
    ("Hunting", "GetLandareaGlobals", {"LandareaID": 107}, check_landarea_globals),
    ("Auction", "GetAuctionCategories", {}, check_categories),
]


def utc(text):
    return datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))


GLOBAL_KEY = [("Monster/MonsterID", int), ("TimeStamp", utc), ("GlobalValue", int), ("Player/PlayerID", int),
              ("GlobalType/GlobalTypeID", int), ("Landarea/AreaID", int)]
# operation -> (record element, or None for a single record; fields that identify a record, with the
# parser that turns the HTTP GET document's text into zeep's value)
RECORD_KEYS = {
    "GetWeapons": ("Weapon", [("WeaponID", int), ("WeaponName", str), ("TTValue", decimal.Decimal)]),
    "FindItems": ("Item", [("ItemID", int), ("ItemName", str), ("TTValue", decimal.Decimal)]),
    "GetMonsters": ("Monster", [("MonsterID", int), ("MonsterName", str)]),
    "GetMonster": (None, [("MonsterID", int), ("MonsterName", str)]),
    "GetMonsterGlobals": ("HuntingGlobal", GLOBAL_KEY),
    "GetPlayerGlobals": ("HuntingGlobal", GLOBAL_KEY),
    "GetLandareaGlobals": ("HuntingGlobal", GLOBAL_KEY),
    "GetAuctionCategories": ("AuctionCategory", [("CategoryID", int), ("CategoryName", str)]),
}

# faults clients meet: (service, operation, arguments after the credentials, wrong DevKey?, Code, Parameter)
FAULTS = [
    ("Hunting", "GetMonster", {"MonsterID": 987654321}, False, "NotFound", None),
    ("Hunting", "GetMonsterGlobals", {"MonsterID": 5, "NumberOfGlobals": 0}, False, "InvalidParameter", "NumberOfGlobals"),
    ("Auction", "GetAuctionCategories", {}, True, "AuthenticationFailed", None),
]


class HttpGet:
    """The same call through the HTTP GET binding: the answer zeep's must agree with."""

    def __init__(self, session, base, ns):
        self.session, self.base, self.ns = session, base, ns

    def document(self, path, operation, params):
        url = f"{self.base}{path}/{operation}?{urllib.parse.urlencode({k: str(v) for k, v in params.items()})}"
        response = self.session.get(url, timeout=30)
        return response.status_code, etree.fromstring(response.content)

    def keys(self, path, operation, params):
        status, root = self.document(path, operation, params)
        check(status == 200, f"HTTP GET {operation}: status {status}")
        record, fields = RECORD_KEYS[operation]
        elements = [root] if record is None else root.findall("{%s}%s" % (self.ns, record))
        def text(element, path):
            return element.findtext("/".join("{%s}%s" % (self.ns, step) for step in path.split("/")))
        return [tuple(parse(text(e, p)) for p, parse in fields) for e in elements]


def zeep_keys(operation, result):
    record, fields = RECORD_KEYS[operation]
    values = [result] if record is None else records(result, record)

    def get(value, path):
        for step in path.split("/"):
            value = getattr(value, step)
        return value
    return [tuple(get(v, p) for p, _ in fields) for v in values]


def service_error(element, ns):
    """Code, Message and Parameter of the <ServiceError> child of `element` (None when there is none)."""
    e = element.find("{%s}ServiceError" % ns) if element is not None else None
    if e is None:
        return None
    return {f: e.findtext("{%s}%s" % (ns, f)) for f in ("Code", "Message", "Parameter")}


def check_wire(wire, port, operation, where, ns, fault=False):
    """The call really went as SOAP 1.1 or 1.2, and came back in that version."""
    check(wire.sent is not None and wire.received is not None, f"{where}: nothing seen on the wire")
    headers, envelope = wire.sent
    content_type = headers.get("Content-Type", "")
    check(content_type.split(";")[0].strip() == CONTENT_TYPE[port], f"{where}: sent Content-Type {content_type!r}")
    check(envelope.tag == "{%s}Envelope" % ENVELOPE_NS[port], f"{where}: sent envelope {envelope.tag}")
    body = envelope.find("{%s}Body" % ENVELOPE_NS[port])
    check(body is not None and len(body) == 1 and body[0].tag == "{%s}%s" % (ns, operation),
          f"{where}: request body is not {operation} in {ns}")
    headers, envelope = wire.received
    content_type = headers.get("Content-Type", headers.get("content-type", ""))
    check(content_type == CONTENT_TYPE[port] + "; charset=utf-8", f"{where}: answer Content-Type {content_type!r}")
    check(envelope.tag == "{%s}Envelope" % ENVELOPE_NS[port], f"{where}: answer envelope {envelope.tag}")
    body = envelope.find("{%s}Body" % ENVELOPE_NS[port])
    answer = "{%s}Fault" % ENVELOPE_NS[port] if fault else "{%s}%sResponse" % (ns, operation)
    check(body is not None and len(body) == 1 and body[0].tag == answer, f"{where}: answer body is not {answer}")


def load_client(wsdl_dir, base, service, path, wsdl_file, transport, wire):
    """(client, namespace, {port: proxy}) for the served WSDL, or the one in wsdl_dir at base's address."""
    if wsdl_dir is None:
        client = zeep.Client(f"{base}{path}?wsdl", transport=transport, plugins=[wire])
        for port in ("Soap", "Soap12"):
            address = client.wsdl.services[service].ports[f"{service}{port}"].binding_options["address"]
            check(address == base + path, f"{service}{port} address {address!r}, expected {base + path!r}")
    else:
        client = zeep.Client(os.path.join(wsdl_dir, wsdl_file), transport=transport, plugins=[wire])
    ports = sorted(client.wsdl.services[service].ports)
    check(f"{service}Soap" in ports and f"{service}Soap12" in ports, f"ports {ports}")
    binding = next(str(b) for b in client.wsdl.bindings if str(b).endswith(f"}}{service}Soap"))
    ns = binding[1:binding.index("}")]
    if wsdl_dir is None:
        proxies = {port: client.bind(service, f"{service}{port}") for port in ("Soap", "Soap12")}
    else:
        proxies = {port: client.create_service("{%s}%s%s" % (ns, service, port), base + path) for port in ("Soap", "Soap12")}
    return ns, ports, proxies


def main(argv):
    args = argv[1:]
    wsdl_dir = None
    if args[:1] == ["--wsdl-dir"] and len(args) >= 2:
        wsdl_dir, args = args[1], args[2:]
    if len(args) != 3:
        print("usage: interop-zeep.py [--wsdl-dir <dir>] <base_url> <DevID> <DevKey>", file=sys.stderr)
        return 2
    base, dev_id, dev_key = args[0].rstrip("/"), int(args[1]), args[2]
    print(f"zeep {zeep.__version__} against {base}, WSDLs {'served' if wsdl_dir is None else 'from ' + wsdl_dir}")
    failures = 0
    calls = 0

    def report(where, ok, detail):
        nonlocal failures, calls
        calls += 1
        if not ok:
            failures += 1
        print(f"{'ok  ' if ok else 'FAIL'} {where}: {detail}", flush=True)

    transport = Transport(timeout=30, operation_timeout=60)
    for service, path, wsdl_file in ENDPOINTS:
        wire = Wire()
        try:
            ns, ports, proxies = load_client(wsdl_dir, base, service, path, wsdl_file, transport, wire)
        except Exception as e:  # noqa: BLE001 - any import problem is a failure to report
            report(f"{service} WSDL", False, f"{type(e).__name__}: {e}")
            continue
        report(f"{service} WSDL", True, f"namespace {ns}, ports {', '.join(ports)}")
        http_get = HttpGet(transport.session, base, ns)

        for port in ("Soap", "Soap12"):
            proxy = proxies[port]
            results = {}
            for call_service, operation, call_args, checker in CALLS:
                if call_service != service:
                    continue
                where = f"{service}{port}.{operation}"
                try:
                    result = getattr(proxy, operation)(DevID=dev_id, DevKey=dev_key, **call_args)
                    check_wire(wire, port, operation, where, ns)
                    detail = checker(result, where)
                    expected = http_get.keys(path, operation, {"DevID": dev_id, "DevKey": dev_key, **call_args})
                    got = zeep_keys(operation, result)
                    check(got == expected, f"{where}: records differ from HTTP GET's: {got[:3]}... vs {expected[:3]}...")
                    results[operation] = zeep.helpers.serialize_object(result)
                    report(where, True, f"{detail}, as HTTP GET")
                except Exception as e:  # noqa: BLE001
                    if not isinstance(e, (Failure, zeep.exceptions.Fault)):
                        traceback.print_exc(file=sys.stderr)
                    report(where, False, f"{type(e).__name__}: {e}")

            for call_service, operation, call_args, wrong_key, code, parameter in FAULTS:
                if call_service != service:
                    continue
                where = f"{service}{port}.{operation}({code})"
                key = dev_key + "-wrong" if wrong_key else dev_key
                try:
                    getattr(proxy, operation)(DevID=dev_id, DevKey=key, **call_args)
                    report(where, False, "no fault")
                except zeep.exceptions.Fault as f:
                    try:
                        check_wire(wire, port, operation, where, ns, fault=True)
                        got = service_error(f.detail, ns)
                        check(got is not None, f"fault {f.code} {f.message!r} without ServiceError detail in {ns}")
                        check(got["Code"] == code and got["Parameter"] == parameter and got["Message"],
                              f"ServiceError {got}, expected Code {code}, Parameter {parameter}")
                        _, document = http_get.document(path, operation, {"DevID": dev_id, "DevKey": key, **call_args})
                        check(document.tag == "{%s}ServiceError" % ns, f"HTTP GET answered {document.tag}")
                        expected = {c: document.findtext("{%s}%s" % (ns, c)) for c in ("Code", "Message", "Parameter")}
                        check(got == expected, f"ServiceError {got}, HTTP GET says {expected}")
                        report(where, True, f"fault {f.code}: {got['Message']}")
                    except Failure as e:
                        report(where, False, str(e).removeprefix(f"{where}: "))
                except Exception as e:  # noqa: BLE001
                    report(where, False, f"{type(e).__name__}: {e}")

            if port == "Soap":
                soap11_results = results
            else:
                for operation, value in results.items():
                    same = soap11_results.get(operation) == value
                    report(f"{service} {operation} SOAP 1.1 = SOAP 1.2", same, "same answer" if same else "answers differ")

    print(f"{calls - failures} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

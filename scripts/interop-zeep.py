#!/usr/bin/env python3
"""Interoperability check with Python zeep: imports the WSDL each endpoint serves and calls every
operation through both SOAP ports (<Service>Soap and <Service>Soap12), checking that the answers
make sense for the sample dataset (seeds/data) and come back in zeep's types (Decimal for
xsd:decimal, timezone-aware datetime for xsd:dateTime, bool, int).

    python3 scripts/interop-zeep.py <base_url> <DevID> <DevKey>

Prints one line per call ("ok" or "FAIL ..."), then a summary; exits 1 when any call failed,
2 on bad usage or when zeep is missing (Debian: apt-get install python3-zeep).
"""

import datetime
import decimal
import sys
import traceback

try:
    import zeep
    from zeep.plugins import Plugin
    from zeep.transports import Transport
except ImportError as e:  # pragma: no cover - reported to the caller
    print(f"zeep is not importable ({e}); install python3-zeep", file=sys.stderr)
    sys.exit(2)

NS = "SVAPI"
ENVELOPE_NS = {
    "Soap": "http://schemas.xmlsoap.org/soap/envelope/",
    "Soap12": "http://www.w3.org/2003/05/soap-envelope",
}
CONTENT_TYPE = {"Soap": "text/xml", "Soap12": "application/soap+xml"}
ENDPOINTS = [
    ("Weapons", "/api/weapons.asmx"),
    ("Item", "/api/item.asmx"),
    ("Hunting", "/API/hunting.asmx"),
    ("Auction", "/api/auction.asmx"),
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


def check_wire(wire, port, operation, where):
    """The call really went as SOAP 1.1 or 1.2, and came back in that version."""
    check(wire.sent is not None and wire.received is not None, f"{where}: nothing seen on the wire")
    headers, envelope = wire.sent
    content_type = headers.get("Content-Type", "")
    check(content_type.split(";")[0].strip() == CONTENT_TYPE[port], f"{where}: sent Content-Type {content_type!r}")
    check(envelope.tag == "{%s}Envelope" % ENVELOPE_NS[port], f"{where}: sent envelope {envelope.tag}")
    headers, envelope = wire.received
    content_type = headers.get("Content-Type", headers.get("content-type", ""))
    check(content_type == CONTENT_TYPE[port] + "; charset=utf-8", f"{where}: answer Content-Type {content_type!r}")
    check(envelope.tag == "{%s}Envelope" % ENVELOPE_NS[port], f"{where}: answer envelope {envelope.tag}")
    body = envelope.find("{%s}Body" % ENVELOPE_NS[port])
    check(body is not None and len(body) == 1 and body[0].tag == "{%s}%sResponse" % (NS, operation),
          f"{where}: answer body is not {operation}Response")


def main(argv):
    if len(argv) != 4:
        print("usage: interop-zeep.py <base_url> <DevID> <DevKey>", file=sys.stderr)
        return 2
    base, dev_id, dev_key = argv[1].rstrip("/"), int(argv[2]), argv[3]
    print(f"zeep {zeep.__version__} against {base}")
    failures = 0
    calls = 0

    def report(where, ok, detail):
        nonlocal failures, calls
        calls += 1
        if not ok:
            failures += 1
        print(f"{'ok  ' if ok else 'FAIL'} {where}: {detail}", flush=True)

    transport = Transport(timeout=30, operation_timeout=60)
    for service, path in ENDPOINTS:
        wsdl_url = f"{base}{path}?wsdl"
        wire = Wire()
        try:
            client = zeep.Client(wsdl_url, transport=transport, plugins=[wire])
            ports = sorted(client.wsdl.services[service].ports)
            check(f"{service}Soap" in ports and f"{service}Soap12" in ports, f"ports {ports}")
            for port in ("Soap", "Soap12"):
                address = client.wsdl.services[service].ports[f"{service}{port}"].binding_options["address"]
                check(address == base + path, f"{service}{port} address {address!r}, expected {base + path!r}")
        except Exception as e:  # noqa: BLE001 - any import problem is a failure to report
            report(f"{service} WSDL {wsdl_url}", False, f"{type(e).__name__}: {e}")
            continue
        report(f"{service} WSDL", True, f"ports {', '.join(ports)}")

        for port in ("Soap", "Soap12"):
            proxy = client.bind(service, f"{service}{port}")
            results = {}
            for call_service, operation, args, checker in CALLS:
                if call_service != service:
                    continue
                where = f"{service}{port}.{operation}"
                try:
                    result = getattr(proxy, operation)(DevID=dev_id, DevKey=dev_key, **args)
                    check_wire(wire, port, operation, where)
                    detail = checker(result, where)
                    results[operation] = zeep.helpers.serialize_object(result)
                    report(where, True, detail)
                except Exception as e:  # noqa: BLE001
                    if not isinstance(e, (Failure, zeep.exceptions.Fault)):
                        traceback.print_exc(file=sys.stderr)
                    report(where, False, f"{type(e).__name__}: {e}")

            if service == "Hunting":
                where = f"{service}{port}.GetMonster(unknown ID)"
                try:
                    proxy.GetMonster(DevID=dev_id, DevKey=dev_key, MonsterID=987654321)
                    report(where, False, "no fault")
                except zeep.exceptions.Fault as f:
                    code = f.detail.find("{%s}ServiceError/{%s}Code" % (NS, NS)) if f.detail is not None else None
                    ok = code is not None and code.text == "NotFound"
                    report(where, ok, f"fault {f.code}: {f.message} ({code.text if code is not None else 'no ServiceError detail'})")
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
